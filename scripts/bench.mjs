// `pnpm bench`: runs every benchmark in scripts/bench/ in turn. Figures are printed, never
// asserted; a benchmark whose server is missing says so and is skipped.
import { execFileSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { join } from "node:path"

const dir = join(import.meta.dirname, "bench")
const only = process.argv.slice(2)
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".mjs"))
  .sort()) {
  if (only.length > 0 && !only.some((o) => file.includes(o))) continue
  console.log(`\n# ${file}`)
  execFileSync(process.execPath, ["--expose-gc", join(dir, file)], { stdio: "inherit" })
}
