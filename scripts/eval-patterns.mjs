#!/usr/bin/env node
// Grouping Accuracy (GA) of the log pattern grouping on Loghub structured CSV files.
// Usage: node scripts/eval-patterns.mjs <System>_2k.log_structured.csv [...]
// Prints one line per file, then the average GA. Needs `pnpm --filter @aiops-harness/projectors build`.
import { readFileSync } from "node:fs"
import { basename } from "node:path"
import { performance } from "node:perf_hooks"
import { groupLogPatterns } from "../packages/projectors/dist/patterns/index.js"

/** RFC 4180 CSV parser: quoted fields may hold commas, CR/LF and doubled quotes. */
function parseCsv(text) {
  const rows = []
  let row = []
  let field = ""
  let i = 0
  let inQuotes = false
  let sawAny = false
  const n = text.length
  while (i < n) {
    const c = text[i]
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        inQuotes = false
        i++
        continue
      }
      field += c
      i++
      continue
    }
    if (c === '"') {
      inQuotes = true
      sawAny = true
      i++
    } else if (c === ",") {
      row.push(field)
      field = ""
      sawAny = true
      i++
    } else if (c === "\r" || c === "\n") {
      if (sawAny || field.length > 0 || row.length > 0) {
        row.push(field)
        rows.push(row)
      }
      row = []
      field = ""
      sawAny = false
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1
    } else {
      field += c
      sawAny = true
      i++
    }
  }
  if (inQuotes) throw new Error("unterminated quoted field")
  if (sawAny || field.length > 0 || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

function groupingAccuracy(predicted, truth) {
  const predGroups = new Map()
  const truthGroups = new Map()
  for (let i = 0; i < predicted.length; i++) {
    const p = predicted[i]
    const t = truth[i]
    if (!predGroups.has(p)) predGroups.set(p, [])
    predGroups.get(p).push(i)
    if (!truthGroups.has(t)) truthGroups.set(t, [])
    truthGroups.get(t).push(i)
  }
  let correct = 0
  for (const members of truthGroups.values()) {
    const p = predicted[members[0]]
    const pm = predGroups.get(p)
    if (pm.length === members.length && members.every((m) => predicted[m] === p)) correct += members.length
  }
  return { ga: predicted.length === 0 ? 1 : correct / predicted.length, truthCount: truthGroups.size }
}

function evaluate(path) {
  let text
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    fail(`${path}: cannot read (${e.code ?? "error"})`)
  }
  const rows = parseCsv(text)
  const header = rows[0] ?? []
  const ci = header.indexOf("Content")
  const ei = header.indexOf("EventId")
  if (ci < 0 || ei < 0) fail(`${path}: not a Loghub structured CSV (needs Content and EventId columns)`)
  const data = rows.slice(1).filter((r) => r.length > Math.max(ci, ei))
  const contents = data.map((r) => r[ci])
  const events = data.map((r) => r[ei])
  // One untimed warm-up pass so lines_per_s reflects steady-state (JIT-compiled) throughput.
  groupLogPatterns(contents)
  const t0 = performance.now()
  const grouping = groupLogPatterns(contents)
  const seconds = Math.max((performance.now() - t0) / 1000, 1e-9)
  const { ga, truthCount } = groupingAccuracy(grouping.patternIds, events)
  const name = basename(path).split("_")[0]
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
