#!/usr/bin/env node
// Diagnosis eval: runs the question set(s) through the reference app (offline model unless
// OPENAI_BASE_URL/OPENAI_API_KEY/MODEL are set) and prints accuracy= and the misses.
// Usage: node scripts/eval-diagnosis.mjs [set.json ...]
// Default: scripts/eval/diagnosis-questions.json and the held-out scripts/eval/diagnosis-heldout.json.
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parseEvalSet, runEval } from "../apps/diagnosis-harness/dist/index.js"

const here = (p) => fileURLToPath(new URL(p, import.meta.url))
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [here("./eval/diagnosis-questions.json"), here("./eval/diagnosis-heldout.json")]

// The whole environment: the model (OPENAI_*, MODEL), REDIS_URL and MYSQL_URL as the app reads them.
const env = { ...process.env }
let failed = false
for (const file of files) {
  const set = parseEvalSet(JSON.parse(readFileSync(file, "utf8")))
  const { rows, accuracy } = await runEval(set, env)
  const misses = rows.filter((r) => !r.grade.pass)
  console.log(
    `${file.split("/").at(-1)}: accuracy=${accuracy.toFixed(3)} (${rows.length - misses.length}/${rows.length})`
  )
  for (const m of misses) {
    console.log(`  MISS [${m.question.scenario}] ${JSON.stringify(m.question.question)}: ${m.grade.why}`)
    console.log(`       ${m.summary}`)
  }
  if (accuracy < 0.95) failed = true
}
process.exitCode = failed ? 1 : 0
