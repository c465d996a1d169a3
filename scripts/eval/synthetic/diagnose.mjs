#!/usr/bin/env node
// For one Loghub-style CSV: which ground-truth events the grouping got wrong, from its output only.
// SPLIT: one event spread over several groups (sizes, one example line per group).
// MERGED: one group holding lines of several events (one example line per event).
// Usage: node scripts/eval/synthetic/diagnose.mjs [--drain] [--max N] <file.csv>
import { groupLogPatterns } from "../../../packages/projectors/dist/patterns/index.js"
import { drain } from "../../lib/drain.mjs"
import { groupingAccuracy, readLoghub } from "../../lib/loghub.mjs"

const args = process.argv.slice(2)
const useDrain = args.includes("--drain")
const mi = args.indexOf("--max")
const max = mi >= 0 ? Number(args[mi + 1]) : 200
const path = args.filter((a, i) => !a.startsWith("--") && !(mi >= 0 && i === mi + 1))[0]
const file = readLoghub(path)
if (file instanceof Error) throw file
const { contents, events } = file
const ids = useDrain ? drain(contents) : groupLogPatterns(contents).patternIds
const cut = (s) => (s.length > max ? `${s.slice(0, max)}...` : s)
const byEvent = new Map()
const byGroup = new Map()
contents.forEach((_c, i) => {
  if (!byEvent.has(events[i])) byEvent.set(events[i], [])
  byEvent.get(events[i]).push(i)
  if (!byGroup.has(ids[i])) byGroup.set(ids[i], [])
  byGroup.get(ids[i]).push(i)
})
const { ga } = groupingAccuracy(ids, events)
console.log(
  `${file.name} ${useDrain ? "drain" : "groupLogPatterns"} ga=${ga.toFixed(3)} groups=${byGroup.size} events=${byEvent.size}`
)
const num = (e) => Number(e.slice(1))
for (const [ev, lines] of [...byEvent].sort((a, b) => num(a[0]) - num(b[0]))) {
  const groups = new Map()
  for (const i of lines) {
    if (!groups.has(ids[i])) groups.set(ids[i], [])
    groups.get(ids[i]).push(i)
  }
  if (groups.size > 1) {
    console.log(`SPLIT ${ev} (${lines.length} lines) into ${groups.size} groups:`)
    const gs = [...groups.values()].sort((a, b) => b.length - a.length)
    for (const g of gs.slice(0, 4)) console.log(`    ${g.length}x  ${cut(contents[g[0]])}`)
    if (gs.length > 4) console.log(`    ... ${gs.length - 4} more groups`)
  }
}
for (const [g, lines] of byGroup) {
  const evs = new Map()
  for (const i of lines) if (!evs.has(events[i])) evs.set(events[i], i)
  if (evs.size > 1) {
    console.log(`MERGED group ${g} (${lines.length} lines) holds ${evs.size} events:`)
    for (const [ev, i] of evs)
      console.log(`    ${ev} (${lines.filter((l) => events[l] === ev).length}x)  ${cut(contents[i])}`)
  }
}
