// Package metadata, checked by the tools the ecosystem uses: publint and
// @arethetypeswrong/cli (`attw --pack`, ESM-only profile) on every public package, plus the
// fields a registry page and provenance need. Run after `pnpm build`.
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const packagesDir = join(root, "packages")
const required = [
  "description",
  "license",
  "keywords",
  "homepage",
  "repository",
  "engines",
  "exports",
  "files"
]
const problems = []

for (const dir of readdirSync(packagesDir)) {
  const cwd = join(packagesDir, dir)
  const manifest = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"))
  if (manifest.private) continue
  const name = manifest.name
  for (const field of required) if (manifest[field] === undefined) problems.push(`${name}: no "${field}"`)
  if (manifest.repository?.directory !== `packages/${dir}`)
    problems.push(`${name}: repository.directory is not packages/${dir}`)
  if (manifest.publishConfig?.access !== "public")
    problems.push(`${name}: publishConfig.access is not "public"`)
  if (manifest.publishConfig?.provenance !== true)
    problems.push(`${name}: publishConfig.provenance is not true`)

  try {
    const out = execFileSync("pnpm", ["exec", "publint", "--strict", "--pack", "pnpm"], {
      cwd,
      encoding: "utf8"
    })
    console.log(`metadata: publint ${name}: ${out.trim().split("\n").pop()}`)
  } catch (error) {
    problems.push(`${name}: publint:\n${error.stdout}${error.stderr}`)
  }
  try {
    const out = execFileSync(
      "pnpm",
      ["exec", "attw", "--pack", ".", "--profile", "esm-only", "--format", "json"],
      {
        cwd,
        encoding: "utf8"
      }
    )
    // Exit 0: no problem the ESM-only profile counts (CJS/node10 resolution is ignored by design).
    const ignored = JSON.parse(out).analysis?.problems?.length ?? 0
    console.log(
      `metadata: attw ${name}: ok (${ignored} CJS/node10-only finding(s) ignored: ESM-only package)`
    )
  } catch (error) {
    // attw exits 1 when it finds problems; its JSON report names them.
    let detail = `${error.stdout ?? ""}${error.stderr ?? ""}`
    try {
      const report = JSON.parse(error.stdout)
      detail = JSON.stringify(report.analysis?.problems ?? report, null, 2)
    } catch {}
    problems.push(`${name}: attw:\n${detail}`)
  }
}

if (problems.length > 0) {
  console.error(`metadata: ${problems.length} problem(s)\n${problems.join("\n")}`)
  process.exit(1)
}
console.log("metadata: ok")
