import type { Json, JsonObject } from "@aiops-harness/core"

/** Minimum length (after whitespace normalization) of an `excerpt` citation. */
export const MIN_EXCERPT_CHARS = 8

const normalize = (s: string): string => s.replace(/\s+/g, " ").trim().toLowerCase()

const isObject = (v: Json | undefined): v is JsonObject =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v)

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

/**
 * Evidence text fields of each observation list: only these may back an `excerpt` citation.
 * Envelope fields, request echoes (`query`, `scope`), `source_kind`, ids, services, levels,
 * timestamps, column names and relevance levels are never evidence text.
 */
export const EXCERPT_FIELDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  /** knowledge */
  evidence: ["excerpt", "title", "breadcrumb"],
  /** logs */
  patterns: ["template", "example"],
  timeline: ["message"]
}

const cellText = (cell: Json | undefined): string | null =>
  cell === undefined ? null : cell === null ? "null" : typeof cell === "object" ? null : String(cell)

const collectStrings = (value: Json | undefined, out: string[]): void => {
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out)
  else if (isObject(value)) for (const item of Object.values(value)) collectStrings(item, out)
}

/** The evidence text of a stored projection (see {@link EXCERPT_FIELDS}; MySQL: every cell value). */
export const evidenceTexts = (agentResult: JsonObject): string[] => {
  const out: string[] = []
  for (const [list, fields] of Object.entries(EXCERPT_FIELDS)) {
    const items = agentResult[list]
    if (!Array.isArray(items)) continue
    for (const item of items) {
      if (!isObject(item)) continue
      for (const field of fields) {
        const v = item[field]
        if (typeof v === "string") out.push(v)
        else if (Array.isArray(v)) for (const part of v) if (typeof part === "string") out.push(part)
      }
    }
  }
  // Generic JSON projections (external MCP tools): every string of the projected `result`
  // (already allowlisted, redacted and bounded by the projector).
  if (typeof agentResult.server === "string") collectStrings(agentResult.result, out)
  const rows = agentResult.rows
  if (Array.isArray(rows)) {
    for (const row of rows) {
      if (!isObject(row)) continue
      for (const cell of Object.values(row)) {
        const text = cellText(cell)
        if (text !== null) out.push(text)
      }
    }
  }
  return out
}

/** A parsed `row` citation: `column=value` (any row) or `rows[i].column=value` (that row). */
export interface RowRef {
  readonly index: number | null
  readonly column: string
  readonly value: string
}

/**
 * Parses a `row` ref. `null` when it is not `column=value` / `rows[i].column=value`; a bare
 * index (`3`, `rows[3]`) is {@link isBareRowIndex} and never enough on its own.
 */
export const parseRowRef = (ref: string): RowRef | null => {
  const trimmed = ref.trim()
  const indexed = /^rows\[(\d{1,6})\]\.([^=]+)=([\s\S]*)$/.exec(trimmed)
  if (indexed) {
    const column = indexed[2]!.trim()
    return column === "" ? null : { index: Number(indexed[1]), column, value: indexed[3]!.trim() }
  }
  const eq = trimmed.indexOf("=")
  if (eq <= 0) return null
  const column = trimmed.slice(0, eq).trim()
  if (column === "" || /^rows\[/.test(column)) return null
  return { index: null, column, value: trimmed.slice(eq + 1).trim() }
}

/** `3`, `rows[3]` or `rows[3].`: a row position that says nothing about the row's content. */
export const isBareRowIndex = (ref: string): boolean => /^(?:\d{1,6}|rows\[\d{1,6}\]\.?)$/.test(ref.trim())

const rowMatches = (agentResult: JsonObject, ref: RowRef): boolean => {
  const rows = agentResult.rows
  if (!Array.isArray(rows)) return false
  const candidates = ref.index === null ? rows : ref.index < rows.length ? [rows[ref.index]] : []
  return candidates.some((row) => {
    if (!isObject(row)) return false
    const cell = cellText(row[ref.column])
    return cell !== null && cell === ref.value
  })
}

/**
 * Whether a cited ref is present in a stored agent result (the projection):
 * - `document`: a `document_id` equal to `ref`;
 * - `pattern`: a `pattern_id` equal to `ref`;
 * - `excerpt`: `ref` (at least {@link MIN_EXCERPT_CHARS} characters, whitespace and case
 *   normalized) occurs inside one evidence text field ({@link evidenceTexts});
 * - `row`: `column=value` matching a cell of some row, or `rows[i].column=value` matching a
 *   cell of row `i` (cells stringified, `null` as `null`); a bare index never matches.
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
      return evidenceTexts(agentResult).some((t) => normalize(t).includes(needle))
    }
    case "row": {
      const parsed = parseRowRef(ref)
      return parsed !== null && rowMatches(agentResult, parsed)
    }
    default:
      return false
  }
}
