// Release check, for real: version with changesets in a temporary clone, publish every public
// package to a throwaway Verdaccio registry on loopback, install them by version range into an
// empty project outside the workspace and run each package README's example as written.
// Nothing is published anywhere but the loopback registry; everything it starts is stopped.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { extractExample } from "./release/readme-example.mjs"

if (process.argv.includes("--ci-only") && process.env.CI !== "true") {
  console.log("release:check skipped (runs under CI=true or as `pnpm release:check`)")
  process.exit(0)
}
const root = resolve(import.meta.dirname, "..")
const work = mkdtempSync(join(tmpdir(), "aiops-release-"))
const keep = process.argv.includes("--keep")
const children = []
const log = (line) => console.log(`release:check ${line}`)

/** The packages whose README example the check installs and runs (the issue's list plus audit). */
const examplePackages = ["core", "stores", "projectors", "guards", "tools", "audit"]

const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...opts })

const freePort = () =>
  new Promise((ok, fail) => {
    const server = createServer()
    server.once("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => ok(port))
    })
  })

/** fetch, retried once: undici reuses a keep-alive socket that Verdaccio may have closed meanwhile. */
const fetchRetry = (url, init = {}) => {
  const once = () => fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
  return once().catch(() => once())
}

const parseVersion = (v) => v.split("-")[0].split(".").map(Number)

/**
 * Whether `next` is inside the range a `workspace:` dependency had when it was last released
 * against `old` (`^`: same major, or same minor below 1.0; `~`: same minor; `*`/exact: equal).
 */
const workspaceRangeAllows = (range, old, next) => {
  const [a, b, c] = parseVersion(old)
  const [x, y, z] = parseVersion(next)
  const notLower = x > a || (x === a && (y > b || (y === b && z >= c)))
  if (range === "workspace:^")
    return notLower && (a > 0 ? x === a : b > 0 ? x === 0 && y === b : old === next)
  if (range === "workspace:~") return notLower && x === a && y === b
  return old === next
}

const readManifests = (repo) =>
  readdirSync(join(repo, "packages")).map((dir) => {
    const manifest = JSON.parse(readFileSync(join(repo, "packages", dir, "package.json"), "utf8"))
    return { dir, manifest }
  })

const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM")
  if (!keep) rmSync(work, { recursive: true, force: true })
}
process.on("exit", cleanup)
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130))

const fail = (message) => {
  console.error(`release:check FAILED: ${message}`)
  process.exit(1)
}

// 1. A temporary clone on a temporary branch: the maintainer's tree is never touched.
const repo = join(work, "repo")
run("git", ["clone", "--quiet", "--no-hardlinks", root, repo])
run("git", ["checkout", "--quiet", "-b", "release-check"], { cwd: repo })
run("git", ["config", "user.email", "release-check@localhost"], { cwd: repo })
run("git", ["config", "user.name", "release-check"], { cwd: repo })
log(`clone ${repo} (branch release-check)`)
run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline"], { cwd: repo })
run("pnpm", ["exec", "turbo", "run", "build", "--filter=./packages/*", "--output-logs=errors-only"], {
  cwd: repo,
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" }
})

// 2. changeset version: bumps, CHANGELOGs, internal dependency updates.
const before = new Map(readManifests(repo).map((p) => [p.manifest.name, p.manifest.version]))
const pending = readdirSync(join(repo, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")
run("pnpm", ["exec", "changeset", "version"], { cwd: repo })
const packages = readManifests(repo).filter((p) => !p.manifest.private)
const bumped = new Set(
  packages.filter((p) => p.manifest.version !== before.get(p.manifest.name)).map((p) => p.manifest.name)
)
log(
  `changeset version: ${pending.length} changeset(s); bumped ${[...bumped].map((n) => `${n}@${before.get(n)}->${packages.find((p) => p.manifest.name === n).manifest.version}`).join(", ") || "nothing"}`
)
for (const p of packages) {
  if (pending.length > 0 && !existsSync(join(repo, "packages", p.dir, "CHANGELOG.md"))) {
    fail(`${p.manifest.name} has no CHANGELOG.md after changeset version`)
  }
  // changesets' rule: a package whose internal dependency was bumped out of the range it was
  // released against (`workspace:^` = `^<old version>`) must be released too.
  for (const [dep, range] of Object.entries(p.manifest.dependencies ?? {})) {
    if (!bumped.has(dep) || bumped.has(p.manifest.name)) continue
    const next = packages.find((q) => q.manifest.name === dep).manifest.version
    if (!workspaceRangeAllows(range, before.get(dep), next)) {
      fail(
        `${p.manifest.name} depends on ${dep} ${range} (was ${before.get(dep)}), now ${next}, but was not bumped`
      )
    }
  }
}

// 3. A throwaway Verdaccio on loopback: no uplinks (nothing proxied), storage under `work`.
const port = await freePort()
const registry = `http://127.0.0.1:${port}/`
const verdaccioDir = join(work, "verdaccio")
mkdirSync(verdaccioDir)
writeFileSync(
  join(verdaccioDir, "config.yaml"),
  [
    `storage: ${join(verdaccioDir, "storage")}`,
    "auth:",
    "  htpasswd:",
    `    file: ${join(verdaccioDir, "htpasswd")}`,
    "    max_users: 10",
    "uplinks: {}",
    "packages:",
    "  '@aiops-harness/*':",
    "    access: $all",
    "    publish: $authenticated",
    "  '**':",
    "    access: $all",
    "    publish: $authenticated",
    "log: { type: stdout, format: pretty, level: warn }",
    ""
  ].join("\n")
)
const verdaccioBin = join(root, "node_modules", "verdaccio", "bin", "verdaccio")
const verdaccio = spawn(
  process.execPath,
  [verdaccioBin, "--config", join(verdaccioDir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
  { stdio: ["ignore", "pipe", "pipe"] }
)
children.push(verdaccio)
let verdaccioOutput = ""
verdaccio.stdout.on("data", (d) => (verdaccioOutput += d))
verdaccio.stderr.on("data", (d) => (verdaccioOutput += d))
for (let i = 0; ; i++) {
  const up = await fetchRetry(`${registry}-/ping`).then(
    (r) => r.ok,
    () => false
  )
  if (up) break
  if (i > 100 || verdaccio.exitCode !== null)
    fail(`verdaccio did not start on ${registry}\n${verdaccioOutput}`)
  await new Promise((r) => setTimeout(r, 200))
}
log(`verdaccio 127.0.0.1:${port} (storage ${verdaccioDir})`)

const user = await fetchRetry(`${registry}-/user/org.couchdb.user:release-check`, {
  method: "PUT",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ name: "release-check", password: "release-check-only", type: "user" })
}).then((r) => r.json())
if (!user.token) fail(`could not create a registry user: ${JSON.stringify(user)}`)

// 4. Publish with the normal command; the registry and token come from the clone's .npmrc only.
const host = `//127.0.0.1:${port}/`
writeFileSync(
  join(repo, ".npmrc"),
  `${readFileSync(join(repo, ".npmrc"), "utf8")}\nregistry=${registry}\n${host}:_authToken=${user.token}\n`
)
// Provenance needs a CI identity provider (GitHub Actions OIDC), which a loopback run has not:
// the clone (only the clone) publishes without it; everything else is the real manifest.
for (const p of packages) {
  const file = join(repo, "packages", p.dir, "package.json")
  const manifest = JSON.parse(readFileSync(file, "utf8"))
  if (manifest.publishConfig?.provenance !== true)
    fail(`${p.manifest.name}: publishConfig.provenance is not true`)
  delete manifest.publishConfig.provenance
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
}
const publishEnv = { ...process.env, npm_config_registry: registry }
try {
  log("publishing with changeset publish")
  run("pnpm", ["exec", "changeset", "publish"], { cwd: repo, env: publishEnv, timeout: 300_000 })
} catch (error) {
  fail(`changeset publish failed:\n${error.stdout}\n${error.stderr}`)
}

const sizes = []
for (const p of packages) {
  const name = p.manifest.name
  const doc = await fetchRetry(`${registry}${name.replace("/", "%2f")}`, {
    headers: { authorization: `Bearer ${user.token}` }
  })
    .then((r) => r.json())
    .catch((error) =>
      fail(`reading ${name} from the registry: ${error.cause?.message ?? error.message}\n${verdaccioOutput}`)
    )
  const published = doc.versions?.[p.manifest.version]
  if (!published) fail(`${name}@${p.manifest.version} is not on the registry`)
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(published[field] ?? {})) {
      if (String(range).startsWith("workspace:")) fail(`${name} publishes ${field}.${dep}=${range}`)
      const internal = packages.find((q) => q.manifest.name === dep)
      if (internal && !range.includes(internal.manifest.version)) {
        fail(`${name} publishes ${dep}@${range}, not a range of ${internal.manifest.version}`)
      }
    }
  }
  const tarball = await fetchRetry(published.dist.tarball, {
    headers: { authorization: `Bearer ${user.token}` }
  })
    .then((r) => r.arrayBuffer())
    .catch((error) => fail(`downloading ${name}'s tarball: ${error.message}`))
  const listing = run("tar", ["-tvzf", "-"], { input: Buffer.from(tarball), stdio: ["pipe", "pipe", "pipe"] })
  const entries = listing.trim().split("\n")
  const unpacked = entries.reduce((sum, line) => sum + Number(line.split(/\s+/)[2] ?? 0), 0)
  sizes.push({
    name,
    version: p.manifest.version,
    packed: tarball.byteLength,
    unpacked,
    files: entries.length
  })
}
log(`published ${packages.length} packages: no workspace: ranges, internal ranges name the new versions`)

// 5. An empty project outside the workspace installs by version range from that registry.
const consumer = join(work, "consumer")
mkdirSync(consumer)
writeFileSync(
  join(consumer, "package.json"),
  JSON.stringify({ name: "release-consumer", private: true, type: "module" }, null, 2)
)
writeFileSync(join(consumer, ".npmrc"), `@aiops-harness:registry=${registry}\n`)
const ranges = packages
  .filter((p) => examplePackages.includes(p.dir))
  .map((p) => `${p.manifest.name}@^${p.manifest.version}`)
run(
  "npm",
  [
    "install",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    ...ranges,
    "effect",
    "zod",
    "tsx",
    "typescript",
    "@types/node"
  ],
  {
    cwd: consumer
  }
)
log(`installed ${ranges.join(" ")}`)

// 6. Each README's example as written (fixtures for the files the tools example reads).
mkdirSync(join(consumer, "runbooks"))
writeFileSync(
  join(consumer, "runbooks", "pool.md"),
  "# Connection pool exhaustion\n\n## Symptoms\n\nHikariPool timeouts in checkout.\n"
)
mkdirSync(join(consumer, "logs"))
writeFileSync(
  join(consumer, "logs", "app.ndjson"),
  `${JSON.stringify({ timestamp: new Date().toISOString(), service: "checkout-service", level: "ERROR", message: "request failed", response_time: 4200 })}\n`
)
execFileSync("mariadb", ["-h", "127.0.0.1", "-uroot", "-e", "CREATE DATABASE IF NOT EXISTS aiops"], {
  stdio: "ignore"
})
writeFileSync(
  join(consumer, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      strict: true,
      module: "nodenext",
      target: "es2022",
      noEmit: true,
      skipLibCheck: false,
      types: ["node"]
    }
  })
)
const examples = []
for (const dir of examplePackages) {
  const code = extractExample(readFileSync(join(repo, "packages", dir, "README.md"), "utf8"))
  if (!code) fail(`packages/${dir}/README.md has no \`\`\`ts example`)
  const file = `example-${dir}.ts`
  writeFileSync(join(consumer, file), code)
  examples.push(file)
}
try {
  run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: consumer })
} catch (error) {
  fail(`README examples do not typecheck against the published packages:\n${error.stdout}`)
}
for (const file of examples) {
  try {
    run("npx", ["tsx", file], { cwd: consumer, timeout: 60_000 })
    log(`ran ${file} ok`)
  } catch (error) {
    fail(`${file} failed:\n${error.stdout}\n${error.stderr}`)
  }
}

console.log("release:check published sizes:")
for (const s of sizes) {
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
  console.log(
    `  ${s.name}@${s.version} tarball=${kib(s.packed)} unpacked=${kib(s.unpacked)} files=${s.files}`
  )
}
log("ok")
// Verdaccio's pipes keep the event loop alive: exit explicitly (the exit hook stops it and cleans up).
process.exit(0)
