// Publishability check, for real: `pnpm pack` every public package, install the tarballs
// into an empty temporary folder with npm (third-party deps from the registry, our own
// packages from the tarballs), then import each package there.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const packagesDir = join(root, "packages")
const packages = readdirSync(packagesDir)
  .map((dir) => ({
    dir: join(packagesDir, dir),
    manifest: JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8"))
  }))
  .filter((p) => !p.manifest.private)

const work = mkdtempSync(join(tmpdir(), "aiops-pack-"))
try {
  const tarballs = {}
  for (const p of packages) {
    const out = execFileSync("pnpm", ["pack", "--pack-destination", work], { cwd: p.dir, encoding: "utf8" })
    const file = out.trim().split("\n").pop().trim()
    tarballs[p.manifest.name] = resolve(p.dir, file)
  }
  const consumer = join(work, "consumer")
  execFileSync("mkdir", ["-p", consumer])
  const deps = Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]))
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify(
      { name: "pack-consumer", private: true, type: "module", dependencies: deps, overrides: deps },
      null,
      2
    )
  )
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--omit=peer"], {
    cwd: consumer,
    stdio: "inherit"
  })
  // Every subpath of every exports map, except the ones that need an optional peer (vitest).
  const needsOptionalPeer = new Set(["@aiops-harness/core/testing/conformance"])
  const specifiers = packages.flatMap((p) =>
    Object.entries(p.manifest.exports ?? { ".": "." })
      // A null target blocks a subpath (private code under `internal/`): nothing to import.
      .filter(([, target]) => target !== null)
      .map(([sub]) => sub)
      .map((sub) => (sub === "." ? p.manifest.name : `${p.manifest.name}/${sub.slice(2)}`))
      .filter((spec) => !needsOptionalPeer.has(spec) && !spec.endsWith("/package.json"))
  )
  const script = specifiers
    .map(
      (name) =>
        `{ const m = await import(${JSON.stringify(name)}); if (Object.keys(m).length === 0) throw new Error("${name}: no exports"); console.log("pack: import ${name} ok (" + Object.keys(m).length + " exports)") }`
    )
    .join("\n")
  writeFileSync(join(consumer, "check.mjs"), script)
  execFileSync("node", ["check.mjs"], { cwd: consumer, stdio: "inherit" })
} finally {
  rmSync(work, { recursive: true, force: true })
}
