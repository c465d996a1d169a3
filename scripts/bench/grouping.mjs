// Log pattern grouping against a plain Drain (scripts/lib/drain.mjs) on the same lines in the same
// process: lines/s of each, their ratio and each one's Grouping Accuracy. Uses the Loghub
// development files (../shared/data/loghub) when present, else generated lines.
// Printed, never asserted.   pnpm --filter @aiops-harness/projectors build && node scripts/bench/grouping.mjs
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { groupLogPatterns } from "../../packages/projectors/dist/patterns/index.js"
import { drain } from "../lib/drain.mjs"
import { groupingAccuracy, loghubDir, readLoghub } from "../lib/loghub.mjs"

const repoRoot = join(import.meta.dirname, "..", "..")

function generated() {
  let seed = 0x6a09
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n) => Math.floor(rand() * n)
  const makers = [
    () => [`Connection from 10.0.${int(255)}.${int(255)} port ${int(65535)} closed`, 0],
    () => [`Request ${int(1e6).toString(16)} completed in ${int(900)}ms status=200`, 1],
    () => [`user u${int(50)} logged in from host-${int(20)}.example.com`, 2],
    () => [`Cache miss for key order:${int(1e5)}`, 3],
    () => [`Job ${int(999)} finished: ${int(100)} tasks, ${int(3)} failed`, 4]
  ]
  const contents = []
  const events = []
  for (let i = 0; i < 10000; i++) {
    const [line, event] = makers[int(makers.length)]()
    contents.push(line)
    events.push(event)
  }
  return [{ name: "generated", contents, events }]
}

function files() {
  const dir = loghubDir(repoRoot)
  if (dir === null) return generated()
  return readdirSync(dir)
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .map((f) => readLoghub(join(dir, f)))
    .filter((f) => !(f instanceof Error))
}

/** CPU seconds (user + system) of one call: steadier than wall time on a shared machine. */
function cpuSeconds(fn) {
  const c0 = process.cpuUsage()
  fn()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1e6
}

/**
 * CPU seconds per pass of `a` and of `b`, run alternately (a, b, a, b, ...) after warm-ups so
 * that both see the same machine; medians over `rounds`.
 */
function timePair(a, b, rounds) {
  for (let w = 0; w < 3; w++) {
    a()
    b()
  }
  const ta = []
  const tb = []
  for (let r = 0; r < rounds; r++) {
    ta.push(cpuSeconds(a))
    tb.push(cpuSeconds(b))
  }
  const median = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  return [median(ta), median(tb)]
}

// Lines as a logs backend delivers them: JSON-parsed, flat strings (the CSV reader builds ropes).
const sets = JSON.parse(JSON.stringify(files()))
const all = sets.flatMap((s) => s.contents)
let oursGa = 0
let drainGa = 0
for (const s of sets) {
  oursGa += groupingAccuracy(groupLogPatterns(s.contents).patternIds, s.events).ga
  drainGa += groupingAccuracy(drain(s.contents), s.events).ga
}
// Throughput on every file in turn (each call groups one file, as eval:patterns does).
const [oursS, drainS] = timePair(
  () => {
    for (const s of sets) groupLogPatterns(s.contents)
  },
  () => {
    for (const s of sets) drain(s.contents)
  },
  31
)
const oursLps = all.length / oursS
const drainLps = all.length / drainS
console.log(
  `grouping source=${sets.length === 1 && sets[0].name === "generated" ? "generated" : "loghub"} files=${sets.length} lines=${all.length} ` +
    `ga=${(oursGa / sets.length).toFixed(3)} drain_ga=${(drainGa / sets.length).toFixed(3)}`
)
console.log(
  `grouping lines_per_s=${Math.round(oursLps)} drain_lines_per_s=${Math.round(drainLps)} ratio_vs_drain=${(oursLps / drainLps).toFixed(2)}`
)
