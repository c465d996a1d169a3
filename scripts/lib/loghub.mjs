// Loghub structured CSV files (Zhu et al., ISSRE 2023): reading and Grouping Accuracy.
// Shared by scripts/eval-patterns.mjs and the grouping bench; never used by tests.
import { existsSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"

/** RFC 4180 CSV parser: quoted fields may hold commas, CR/LF and doubled quotes. */
export function parseCsv(text) {
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

export function groupingAccuracy(predicted, truth) {
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

/** Content and EventId columns of one file, or an Error naming what is wrong. */
export function readLoghub(path) {
  let text
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    return new Error(`${path}: cannot read (${e.code ?? "error"})`)
  }
  const rows = parseCsv(text)
  const header = rows[0] ?? []
  const ci = header.indexOf("Content")
  const ei = header.indexOf("EventId")
  if (ci < 0 || ei < 0)
    return new Error(`${path}: not a Loghub structured CSV (needs Content and EventId columns)`)
  const data = rows.slice(1).filter((r) => r.length > Math.max(ci, ei))
  return {
    name: basename(path).split("_")[0],
    contents: data.map((r) => r[ci]),
    events: data.map((r) => r[ei])
  }
}

/** The development systems' folder: ../shared/data/loghub next to the checkout (or its parent). */
export function loghubDir(repoRoot) {
  const candidates = [
    join(repoRoot, "..", "shared", "data", "loghub"),
    join(repoRoot, "..", "..", "shared", "data", "loghub")
  ]
  return candidates.find((dir) => existsSync(dir)) ?? null
}
