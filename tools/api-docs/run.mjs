// Runs TypeDoc from the repository root with the root typedoc.json. TypeDoc 0.28 drives the
// TypeScript 5.9 compiler API, which TypeScript 7 (the workspace compiler) does not ship, so this
// private package pins its own TypeScript and TypeDoc resolves that one.
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")
const require = createRequire(import.meta.url)
const bin = join(dirname(require.resolve("typedoc/package.json")), "bin", "typedoc")
const result = spawnSync(
  process.execPath,
  [bin, "--options", join(root, "typedoc.json"), ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" }
)
process.exit(result.status ?? 1)
