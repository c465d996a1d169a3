#!/usr/bin/env node
// GA of the plain Drain reference (scripts/lib/drain.mjs, Drain3 defaults) on Loghub-style CSVs,
// with the same accuracy function as scripts/eval-patterns.mjs.
// Usage: node scripts/eval/synthetic/drain-ga.mjs /tmp/synthetic-logs/*.csv
import { drain } from "../../lib/drain.mjs"
import { groupingAccuracy, readLoghub } from "../../lib/loghub.mjs"

const files = process.argv.slice(2)
if (files.length === 0) {
  console.error("usage: node scripts/eval/synthetic/drain-ga.mjs <file.csv>...")
  process.exit(2)
}
let sum = 0
for (const path of files) {
  const file = readLoghub(path)
  if (file instanceof Error) {
    console.error(file.message)
    process.exit(2)
  }
  const ids = drain(file.contents)
  const { ga, truthCount } = groupingAccuracy(ids, file.events)
  sum += ga
  console.log(`${file.name} drain_ga=${ga.toFixed(3)} clusters=${new Set(ids).size} truth=${truthCount}`)
}
console.log(`average drain_ga=${(sum / files.length).toFixed(3)}`)
