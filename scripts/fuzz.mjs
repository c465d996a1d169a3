// `pnpm test:fuzz`: the property tests (every test file that imports fast-check) with a fresh
// random seed per file and 10x the default runs, for [rounds] rounds (default 5). Not part
// of `pnpm test`, whose seeds are fixed per commit. A failure prints its seed: replay it with
// FC_SEED=<seed> and add the counterexample as a table row.
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
// Usage: node scripts/fuzz.mjs [rounds]
const rounds = Number(process.argv[2] ?? 5)
const packages = ["core", "projectors", "guards"]
let failed = 0
for (let round = 1; round <= rounds; round++) {
  for (const pkg of packages) {
    const dir = join(root, "packages", pkg)
    const files = readdirSync(join(dir, "test"))
      .filter((f) => f.endsWith(".test.ts"))
      .filter((f) => readFileSync(join(dir, "test", f), "utf8").includes('from "fast-check"'))
      .map((f) => `test/${f}`)
    if (files.length === 0) continue
    console.log(`\n# fuzz round ${round}/${rounds}: ${pkg} (${files.length} files)`)
    try {
      execFileSync("pnpm", ["exec", "vitest", "run", "--testTimeout=600000", ...files], {
        cwd: dir,
        stdio: "inherit",
        env: { ...process.env, FC_FUZZ: "1" }
      })
    } catch {
      failed++
    }
  }
}
if (failed > 0) {
  console.error(`\nfuzz: ${failed} package run(s) failed; the failing seeds are printed above`)
  process.exit(1)
}
