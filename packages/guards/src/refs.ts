import type { Json, JsonObject } from "@aiops-harness/core"

/** Envelope and request-echo keys: their text is never evidence. */
const NON_EVIDENCE_KEYS = new Set([
  "tool_call_id",
  "tool",
  "status",
  "evidence_status",
  "truncated",
  "query",
  "scope"
])

/** Minimum length (after whitespace normalization) of an `excerpt` citation. */
export const MIN_EXCERPT_CHARS = 8

const normalize = (s: string): string => s.replace(/\s+/g, " ").trim().toLowerCase()

const hasKeyValue = (value: Json | undefined, key: string, ref: string): boolean => {
  if (value === null || value === undefined || typeof value !== "object") return false
  if (Array.isArray(value)) return value.some((v) => hasKeyValue(v, key, ref))
  const obj = value as JsonObject
  for (const [k, v] of Object.entries(obj)) {
    if (k === key && typeof v === "string" && v === ref) return true
    if (hasKeyValue(v, key, ref)) return true
  }
  return false
}

const evidenceStrings = (value: Json | undefined, out: string[], key: string | null): void => {
  if (key !== null && NON_EVIDENCE_KEYS.has(key)) return
  if (typeof value === "string") out.push(value)
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value))
  else if (Array.isArray(value)) for (const v of value) evidenceStrings(v, out, null)
  else if (value !== null && value !== undefined && typeof value === "object") {
    for (const [k, v] of Object.entries(value as JsonObject)) evidenceStrings(v, out, k)
  }
}

const rowOf = (agentResult: JsonObject, ref: string): boolean => {
  const rows = agentResult.rows
  if (!Array.isArray(rows)) return false
  const index = /^(?:rows\[)?(\d{1,6})\]?$/.exec(ref.trim())
  if (index?.[1] !== undefined) return Number(index[1]) < rows.length
  const eq = ref.indexOf("=")
  if (eq <= 0) return false
  const column = ref.slice(0, eq).trim()
  const expected = ref.slice(eq + 1).trim()
  return rows.some((row) => {
    if (row === null || typeof row !== "object" || Array.isArray(row)) return false
    const cell = (row as JsonObject)[column]
    return cell !== undefined && (cell === null ? "null" : String(cell)) === expected
  })
}

/**
 * Whether a cited ref is present in a stored agent result (the projection):
 * - `document`: a `document_id` equal to `ref`;
 * - `pattern`: a `pattern_id` equal to `ref`;
 * - `excerpt`: `ref` (at least {@link MIN_EXCERPT_CHARS} characters, whitespace and case
 *   normalized) occurs in the evidence text (envelope fields, `query` and `scope` excluded);
 * - `row`: `ref` is a row index (`3` or `rows[3]`) of `rows`, or `column=value` matching a cell.
 */
export const refPresent = (agentResult: JsonObject, kind: string, ref: string): boolean => {
  switch (kind) {
    case "document":
      return ref !== "" && hasKeyValue(agentResult, "document_id", ref)
    case "pattern":
      return ref !== "" && hasKeyValue(agentResult, "pattern_id", ref)
    case "excerpt": {
      const needle = normalize(ref)
      if (needle.length < MIN_EXCERPT_CHARS) return false
      const texts: string[] = []
      evidenceStrings(agentResult, texts, null)
      return texts.some((t) => normalize(t).includes(needle))
    }
    case "row":
      return rowOf(agentResult, ref)
    default:
      return false
  }
}
