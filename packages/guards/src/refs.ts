import type { Json, JsonObject } from "@aiops-harness/core"

/** Minimum length (after whitespace normalization) of an `excerpt` citation. */
export const MIN_EXCERPT_CHARS = 8

const normalize = (s: string): string => s.replace(/\s+/g, " ").trim().toLowerCase()

const isObject = (v: Json | undefined): v is JsonObject =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v)

/** Whether `agentResult[list][i][key] === ref` for some item (one place only, never nested). */
const listHasId = (agentResult: JsonObject, list: string, key: string, ref: string): boolean => {
  const items = agentResult[list]
  return Array.isArray(items) && items.some((item) => isObject(item) && item[key] === ref)
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

/**
 * Options of {@link refPresent} / {@link evidenceTexts}. `tableCellsOnly`: a row cell counts only
 * when its column is listed in `columns` with `origin: "table"` (the MySQL projection's provenance:
 * `'text' AS finding` is `literal`, `CONCAT(status, 'text')` is `mixed`; neither is evidence).
 */
export interface RefOptions {
  readonly tableCellsOnly?: boolean
}

/** Names of the columns whose cells are table data (`origin: "table"`). */
const tableColumns = (agentResult: JsonObject): ReadonlySet<string> => {
  const out = new Set<string>()
  const columns = agentResult.columns
  if (!Array.isArray(columns)) return out
  for (const c of columns) {
    if (isObject(c) && typeof c.name === "string" && c.origin === "table") out.add(c.name)
  }
  return out
}

/** The row cells a citation may use, as `[column, cell]` pairs per row. */
const citableRows = (agentResult: JsonObject, options?: RefOptions): Array<Array<[string, Json]> | null> => {
  const rows = agentResult.rows
  if (!Array.isArray(rows)) return []
  const allowed = options?.tableCellsOnly ? tableColumns(agentResult) : undefined
  return rows.map((row) =>
    isObject(row)
      ? Object.entries(row).filter(([k, v]) => v !== undefined && (allowed === undefined || allowed.has(k)))
      : null
  ) as Array<Array<[string, Json]> | null>
}

const cellText = (cell: Json | undefined): string | null =>
  cell === undefined ? null : cell === null ? "null" : typeof cell === "object" ? null : String(cell)

const collectStrings = (value: Json | undefined, out: string[]): void => {
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out)
  else if (isObject(value)) for (const item of Object.values(value)) collectStrings(item, out)
}

/** The evidence text of a stored projection (see {@link EXCERPT_FIELDS}; MySQL: every cell value). */
export const evidenceTexts = (agentResult: JsonObject, options?: RefOptions): string[] => {
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
  for (const row of citableRows(agentResult, options)) {
    if (row === null) continue
    for (const [, cell] of row) {
      const text = cellText(cell)
      if (text !== null) out.push(text)
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

const rowMatches = (agentResult: JsonObject, ref: RowRef, options?: RefOptions): boolean => {
  const rows = citableRows(agentResult, options)
  const candidates = ref.index === null ? rows : ref.index < rows.length ? [rows[ref.index]!] : []
  return candidates.some((row) => {
    if (row === null) return false
    const cell = row.find(([k]) => k === ref.column)
    const text = cell === undefined ? null : cellText(cell[1])
    return text !== null && text === ref.value
  })
}

/**
 * Whether a cited ref is present in a stored agent result (the projection):
 * - `document`: an `evidence[i].document_id` equal to `ref` (knowledge results only);
 * - `pattern`: a `patterns[i].pattern_id` equal to `ref` (log results only); a row cell or
 *   any other nested field named like an id never counts;
 * - `excerpt`: `ref` (at least {@link MIN_EXCERPT_CHARS} characters, whitespace and case
 *   normalized) occurs inside one evidence text field ({@link evidenceTexts});
 * - `row`: `column=value` matching a cell of some row, or `rows[i].column=value` matching a
 *   cell of row `i` (cells stringified, `null` as `null`); a bare index never matches.
 * With `tableCellsOnly`, row cells count only in columns marked `origin: "table"`.
 */
export const refPresent = (
  agentResult: JsonObject,
  kind: string,
  ref: string,
  options?: RefOptions
): boolean => {
  switch (kind) {
    case "document":
      return ref !== "" && listHasId(agentResult, "evidence", "document_id", ref)
    case "pattern":
      return ref !== "" && listHasId(agentResult, "patterns", "pattern_id", ref)
    case "excerpt": {
      const needle = normalize(ref)
      if (needle.length < MIN_EXCERPT_CHARS) return false
      return evidenceTexts(agentResult, options).some((t) => normalize(t).includes(needle))
    }
    case "row": {
      const parsed = parseRowRef(ref)
      return parsed !== null && rowMatches(agentResult, parsed, options)
    }
    default:
      return false
  }
}
