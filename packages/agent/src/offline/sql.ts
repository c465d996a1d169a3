/**
 * The corroborating database query of the offline model: it tests the claim over the incident
 * window (rows per status while the failure was logged), and the claim states exactly what the
 * rows show, citing each row it names, never "any row".
 */
import type { Claim } from "@aiops-harness/guards"
import { isObject, type Seen, str } from "./conversation.js"
import type { PatternHit } from "./signals.js"

const MINUTE = 60_000

/** The incident window of a pattern: its first to last occurrence, widened to whole minutes. */
export const incidentWindow = (p: PatternHit): { readonly start: number; readonly end: number } | null => {
  const first = Date.parse(p.firstSeen)
  const last = Date.parse(p.lastSeen)
  if (!Number.isFinite(first) || !Number.isFinite(last) || last < first) return null
  return { start: Math.floor(first / MINUTE) * MINUTE, end: Math.ceil((last + 1) / MINUTE) * MINUTE }
}

/** `YYYY-MM-DD HH:MM:SS` (UTC): how a DATETIME literal is written. */
const sqlTime = (t: number): string => new Date(t).toISOString().slice(0, 19).replace("T", " ")

/** What each table is grouped by, and which time column says "written in the window". */
const TABLES = {
  payments: {
    group: ["provider", "status", "error_code"],
    count: "payment_count",
    time: "created_at",
    what: "payments created",
    none: "No payments were created"
  },
  orders: {
    group: ["status"],
    count: "order_count",
    time: "updated_at",
    what: "orders written (updated_at)",
    none: "No orders were written (updated_at)"
  }
} as const
type Table = keyof typeof TABLES

/** The table a question and cause are about: `payments` when either mentions a payment, else `orders`. */
export const tableFor = (text: string): Table => (/payment|支付/i.test(text) ? "payments" : "orders")

/**
 * A read-only query that tests the claim over the incident window: rows per status (and, for
 * payments, provider and error code) written while the failure was logged, largest first.
 */
export const corroboratingSql = (table: Table, window: { readonly start: number; readonly end: number }) => {
  const t = TABLES[table]
  const group = t.group.join(", ")
  return (
    `SELECT ${group}, COUNT(*) AS ${t.count} FROM ${table} ` +
    `WHERE ${t.time} >= '${sqlTime(window.start)}' AND ${t.time} < '${sqlTime(window.end)}' ` +
    `GROUP BY ${group} ORDER BY ${t.count} DESC LIMIT 20`
  )
}

const WINDOW_RE = /FROM (\w+) WHERE (\w+) >= '([^']+)' AND \w+ < '([^']+)'/

/**
 * Claims from the offline model's own windowed queries: what the rows show over the window, each
 * named row cited by its group value (`rows[i].status=PENDING`); an empty result is a scoped
 * negative claim. Observations of other queries give no claim here.
 */
export const windowRowClaims = (seen: Seen, maxRows = 4): Claim[] =>
  seen.observations.flatMap((o): Claim[] => {
    const id = str(o.tool_call_id)
    if (!id || o.tool !== "query_mysql" || o.status !== "READY") return []
    const sql = str(seen.calls.find((c) => c.id === id)?.args.sql)
    const m = sql ? WINDOW_RE.exec(sql) : null
    if (!m) return []
    const table = m[1] as Table
    const spec = TABLES[table]
    if (!spec) return []
    const scope = `${spec.what} between ${m[3]} and ${m[4]} UTC, the window in which the failure was logged`
    const datasource = str(o.datasource) ?? "the database"
    if (o.evidence_status === "NO_EVIDENCE") {
      return [
        {
          text: `${spec.none} between ${m[3]} and ${m[4]} UTC according to a read-only query on ${datasource}.`,
          negative: true,
          citations: [{ tool_call_id: id, kind: "no_evidence", ref: "" }]
        }
      ]
    }
    const rows = Array.isArray(o.rows) ? o.rows.filter(isObject) : []
    const named = rows.slice(0, maxRows).flatMap((row, i): Array<{ label: string; ref: string }> => {
      const key = spec.group[0]!
      const value = row[key]
      if (value === undefined || value === null) return []
      const label = spec.group
        .map((g) => (row[g] === undefined || row[g] === null ? null : `${g}=${String(row[g])}`))
        .filter((x): x is string => x !== null)
        .join(", ")
      return [
        { label: `${label}: ${String(row[spec.count] ?? "?")}`, ref: `rows[${i}].${key}=${String(value)}` }
      ]
    })
    if (named.length === 0) return []
    const more = rows.length > named.length ? ` (and ${rows.length - named.length} more group(s))` : ""
    return [
      {
        text: `Database check in ${datasource} over the incident window — ${scope}, by ${spec.group.join(", ")}: ${named
          .map((n) => n.label)
          .join("; ")}${more}.`,
        citations: named.map((n) => ({ tool_call_id: id, kind: "row" as const, ref: n.ref }))
      }
    ]
  })
