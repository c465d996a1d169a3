// Scores `redactText` (built dist) on a redaction corpus (JSONL from heldout/ or dev/ generate.mjs):
// leaks (a secret, or any 10-character window of it, survives), over-redactions (a `keep`
// string is lost) and ordinary words lost. Printed, never asserted.
// Usage: node packages/projectors/test/corpus-score.mjs <corpus.jsonl> [--verbose]
import { readFileSync } from "node:fs"
import { redactText } from "../dist/index.js"

const [file, flag] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: corpus-score.mjs <corpus.jsonl> [--verbose]")
  process.exit(2)
}
const verbose = flag === "--verbose"
const cases = readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l))

const survives = (out, secret) => {
  if (out.includes(secret)) return true
  if (secret.length <= 10) return false
  for (let i = 0; i + 10 <= secret.length; i++) if (out.includes(secret.slice(i, i + 10))) return true
  return false
}

const family = (form) => form.split(":")[0]
const stats = new Map()
const bump = (key, field, n = 1) => {
  const s = stats.get(key) ?? { lines: 0, leaked: 0, over: 0 }
  s[field] += n
  stats.set(key, s)
}
let secretLines = 0
let leakedLines = 0
let secretsTotal = 0
let secretsLeaked = 0
let overLines = 0
let ordinaryWords = 0
let ordinaryLost = 0
let ordinaryLines = 0
let ordinaryChanged = 0
const t0 = performance.now()
for (const c of cases) {
  const out = redactText(c.line)
  const fam = family(c.form)
  bump(fam, "lines")
  const leaked = c.secrets.filter((sec) => survives(out, sec))
  const lost = c.keep.filter((k) => !out.includes(k))
  if (c.secrets.length > 0) {
    secretLines++
    secretsTotal += c.secrets.length
    secretsLeaked += leaked.length
    if (leaked.length > 0) {
      leakedLines++
      bump(fam, "leaked")
    }
  } else {
    ordinaryLines++
    ordinaryWords += c.keep.length
    ordinaryLost += lost.length
    if (out !== c.line) ordinaryChanged++
  }
  if (lost.length > 0) {
    overLines++
    bump(fam, "over")
  }
  if (verbose && (leaked.length > 0 || lost.length > 0))
    console.log(
      `#${c.id} [${c.form}] ${leaked.length > 0 ? `LEAK ${JSON.stringify(leaked)}` : ""}${lost.length > 0 ? ` LOST ${JSON.stringify(lost)}` : ""}\n   in:  ${JSON.stringify(c.line)}\n   out: ${JSON.stringify(out)}`
    )
}
const ms = performance.now() - t0
const pct = (a, b) => (b === 0 ? "0.0" : ((100 * a) / b).toFixed(1))
console.log(`corpus ${file}: ${cases.length} lines (${secretLines} with secrets, ${ordinaryLines} ordinary)`)
console.log(
  `leaks: ${leakedLines}/${secretLines} lines (${pct(leakedLines, secretLines)}%), ${secretsLeaked}/${secretsTotal} secrets`
)
console.log(`over-redactions (a kept string lost): ${overLines} lines`)
console.log(
  `ordinary: ${ordinaryLost}/${ordinaryWords} words lost (${pct(ordinaryLost, ordinaryWords)}%), ${ordinaryChanged}/${ordinaryLines} lines changed`
)
console.log("by family: lines leaked over")
for (const [k, v] of [...stats.entries()].sort())
  console.log(
    `  ${k.padEnd(14)} ${String(v.lines).padStart(4)} ${String(v.leaked).padStart(6)} ${String(v.over).padStart(4)}`
  )
console.log(`(${ms.toFixed(0)} ms)`)
