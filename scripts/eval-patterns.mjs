#!/usr/bin/env node
// Grouping Accuracy (GA) of the log pattern grouping on Loghub structured CSV files.
// Usage: node scripts/eval-patterns.mjs <System>_2k.log_structured.csv [...]
// Prints one line per file, then the average GA. Needs `pnpm --filter @aiops-harness/projectors build`.
import { performance } from "node:perf_hooks"
import { groupLogPatterns } from "../packages/projectors/dist/patterns/index.js"
import { groupingAccuracy, readLoghub } from "./lib/loghub.mjs"

function evaluate(path) {
  const file = readLoghub(path)
  if (file instanceof Error) fail(file.message)
  const { name, contents, events } = file
  // One untimed warm-up pass so lines_per_s reflects steady-state (JIT-compiled) throughput.
  groupLogPatterns(contents)
  const t0 = performance.now()
  const grouping = groupLogPatterns(contents)
  const seconds = Math.max((performance.now() - t0) / 1000, 1e-9)
  const { ga, truthCount } = groupingAccuracy(grouping.patternIds, events)
  return { name, ga, patterns: grouping.patterns.length, truth: truthCount, lines: contents.length, seconds }
}

function fail(message) {
  console.error(`eval:patterns: ${message}`)
  process.exit(2)
}

const files = process.argv.slice(2)
if (files.length === 0) {
  console.error(
    "usage: pnpm eval:patterns <file.csv>...  (Loghub *_2k.log_structured.csv files, columns Content and EventId;\n" +
      "       the Loghub collection: Zhu et al., ISSRE 2023 — e.g. ../shared/data/loghub/*.csv here)"
  )
  process.exit(2)
}
let sum = 0
for (const file of files) {
  const r = evaluate(file)
  sum += r.ga
  console.log(
    `${r.name} ga=${r.ga.toFixed(3)} patterns=${r.patterns} truth=${r.truth} lines=${r.lines} lines_per_s=${Math.round(r.lines / r.seconds)}`
  )
}
console.log(`average ga=${(sum / files.length).toFixed(3)}`)
