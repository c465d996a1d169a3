import type { Json, Projection, Projector } from "@aiops-harness/core"
import { ProjectionError } from "@aiops-harness/core"
import { byteBudget, fromResult, parseStrict } from "./common.js"
import { boundToBytes, cutText, type ToolProjectionLimits, resolveLimits } from "./limits.js"
import { isSensitiveName, redactText } from "./redaction/index.js"
import { type MysqlRequest, MysqlRawSchema } from "./schemas.js"

/** Value that replaces a sensitive column's cell in the Agent Observation. */
export const MASKED = "<MASKED>"

/** True when a column holds secrets (`password`, `USER_PASSWORD_HASH`, `apiToken`, `ssn`, ...). */
export const isSensitiveColumn = (name: string): boolean => isSensitiveName(name)

type Cell = number | string | boolean | null

/**
 * `query_mysql` projector: at most `maxRows` rows, string cells redacted and cut to
 * `maxCellChars`, numbers / booleans / nulls keep their types, sensitive columns always
 * `<MASKED>`, rows dropped from the end to fit the byte budget. `truncated` when the backend or
 * the projector reduced the result. No rows -> `NO_EVIDENCE`.
 */
export const projectMysqlRows = (
  overrides?: Partial<ToolProjectionLimits>
): Projector<MysqlRequest, unknown> => {
  const limits = resolveLimits(overrides)
  return (input) =>
    fromResult(() => {
      const raw = parseStrict(MysqlRawSchema, input.raw)
      if (raw instanceof ProjectionError) return raw
      // `origin` says whether a column's cells are table data; unknown provenance is `literal`,
      // so EvidenceGuard never accepts a cell the statement could have written itself.
      const columns = raw.columns.map((column) => ({
        name: column.name,
        type: column.type,
        origin: column.origin ?? "literal"
      }))
      const masked = columns.map((column) => isSensitiveColumn(column.name))
      let cut = raw.truncated || raw.rowCount > raw.rows.length || raw.rows.length > limits.maxRows
      const rows: Array<Record<string, Cell>> = []
      for (const row of raw.rows.slice(0, limits.maxRows)) {
        const out: Record<string, Cell> = {}
        columns.forEach((column, c) => {
          const value = row[column.name] as Cell
          if (masked[c]) out[column.name] = MASKED
          else if (typeof value === "string") {
            const redacted = redactText(value)
            const cell = cutText(redacted, limits.maxCellChars)
            if (cell.length < redacted.length) cut = true
            out[column.name] = cell
          } else out[column.name] = value
        })
        rows.push(out)
      }
      const datasource = input.request.datasource
      const build = (counts: ReadonlyArray<number>) => ({
        datasource,
        columns,
        rows: rows.slice(0, counts[0]) as unknown as Json
      })
      const bounded = boundToBytes(
        [{ items: rows }],
        build,
        byteBudget(limits, input.maxBytes),
        rows.length > 0
      )
      if (bounded instanceof ProjectionError) return bounded
      const projection: Projection = {
        evidenceStatus: bounded.counts[0]! > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
        observation: build(bounded.counts),
        truncated: cut || bounded.dropped,
        returnedCount: raw.rows.length,
        scope: { datasource, sql: input.request.sql.trim().replace(/\s+/g, " ") }
      }
      return projection
    })
}
