import { Effect } from "effect"
import type { MysqlAllowlist } from "./allowlist.js"
import { MysqlQueryRejected, type MysqlRejectionReason } from "./errors.js"
import { Reject, reject } from "./internal/ast.js"
import { parseStatement } from "./internal/parse.js"
import { checkRendered, renderValidated } from "./internal/render.js"
import { validateStatement } from "./internal/validate.js"
import { hasUnsafeCharacter } from "./literals.js"
import { type MysqlColumnOrigin, originOf } from "./provenance.js"

export { MAX_GENERATED_LENGTH } from "./internal/function-info.js"

/** One result column of a plan, in select-list order (stars expanded). */
export interface MysqlPlanOutputColumn {
  /** Output name when the statement gives one (alias or column name). */
  readonly name: string | null
  /** Whether the cells come from table data (`table`), combine it with literals, or are literals. */
  readonly origin: MysqlColumnOrigin
}

/** A validated, normalized single SELECT. Only objects returned by {@link validateMysqlQuery} execute. */
export interface MysqlQueryPlan {
  readonly datasource: string
  /** The datasource's default schema (unqualified table names resolve here). */
  readonly schema: string
  /** Normalized SQL rendered from the validated AST, with the enforced LIMIT. */
  readonly sql: string
  readonly tables: ReadonlyArray<{ readonly schema: string; readonly table: string }>
  readonly columns: ReadonlyArray<{
    readonly schema: string
    readonly table: string
    readonly column: string
  }>
  /** LIMIT written into `sql`: min(existing LIMIT, maxRows). */
  readonly rowLimit: number
  /** True when the validator added or lowered the LIMIT (a full page may mean more rows exist). */
  readonly limitEnforced: boolean
  /** Result columns in order, with their provenance (only `table` cells are evidence). */
  readonly outputColumns: ReadonlyArray<MysqlPlanOutputColumn>
  /** Functions the statement calls (upper case, in order of appearance). */
  readonly functions: ReadonlyArray<string>
}

/** A `query_mysql` request to validate: datasource and SQL text. */
export interface MysqlQueryRequest {
  readonly datasource: string
  readonly sql: string
}

/** Options of the MySQL query validator. */
export interface ValidateMysqlQueryOptions {
  /** Upper bound of the enforced LIMIT. Default 200. */
  readonly maxRows?: number
}

/** Default upper bound of the LIMIT the validator enforces. */
export const DEFAULT_MAX_ROWS = 200
const MAX_SQL_LENGTH = 100_000

const issuedPlans = new WeakSet<object>()

/** True when `plan` is an unmodified object returned by {@link validateMysqlQuery}. */
export const isIssuedMysqlQueryPlan = (plan: unknown): plan is MysqlQueryPlan =>
  typeof plan === "object" && plan !== null && issuedPlans.has(plan)

// ---------------------------------------------------------------------------------------------
// Entry point

const rejected = (reason: MysqlRejectionReason, detail: string) =>
  Effect.fail(new MysqlQueryRejected({ reason, detail }))

/** Everything one validation pass learned; two passes (input, rendered plan) must agree. */
interface Analysis {
  readonly sql: string
  readonly tables: ReadonlyArray<{ schema: string; table: string }>
  readonly columns: ReadonlyArray<{ schema: string; table: string; column: string }>
  readonly outputs: ReadonlyArray<MysqlPlanOutputColumn>
  readonly functions: ReadonlyArray<string>
  readonly literals: ReadonlyArray<string>
  readonly limits: { rowLimit: number; enforced: boolean }
}

/** Parses, validates, then renders `sql` (one pass; throws {@link Reject}). */
const analyze = (
  sql: string,
  datasource: MysqlAllowlist["datasources"][string],
  maxRows: number
): Analysis => {
  const statement = parseStatement(sql)
  try {
    const validated = validateStatement(statement, datasource, maxRows)
    return {
      sql: renderValidated(validated),
      tables: validated.tables,
      columns: validated.columns,
      outputs: validated.outputs.map((c) => ({ name: c.name, origin: originOf(c.info) })),
      functions: validated.functions,
      literals: validated.literals,
      limits: { rowLimit: validated.limit.rowLimit, enforced: validated.limit.enforced }
    }
  } catch (e) {
    if (e instanceof Reject) throw e
    return reject("UNSUPPORTED_SYNTAX", "statement uses unsupported syntax")
  }
}

/** Inlined aliases repeat functions and literals in the second pass: compare them as sets. */
const distinct = (xs: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(xs)].sort()

const sameAnalysis = (a: Analysis, b: Analysis): boolean =>
  a.sql === b.sql &&
  JSON.stringify([a.tables, a.columns, a.outputs, distinct(a.functions), distinct(a.literals)]) ===
    JSON.stringify([b.tables, b.columns, b.outputs, distinct(b.functions), distinct(b.literals)])

/**
 * Validates one read-only SELECT against the allowlist and returns an executable plan whose SQL is
 * re-rendered from the validated AST (comments dropped, names canonicalized, `*` expanded, LIMIT
 * enforced). The rendered SQL is validated again and must render identically with the same
 * tables, columns, functions, literals and result provenance (round-trip check), so what runs is
 * exactly what was validated. Everything else is rejected with a stable {@link MysqlRejectionReason}.
 */
export const validateMysqlQuery = (
  request: MysqlQueryRequest,
  allowlist: MysqlAllowlist,
  options?: ValidateMysqlQueryOptions
): Effect.Effect<MysqlQueryPlan, MysqlQueryRejected> =>
  Effect.suspend(() => {
    const maxRows = options?.maxRows ?? DEFAULT_MAX_ROWS
    if (!Number.isSafeInteger(maxRows) || maxRows < 1)
      return rejected("INVALID_LIMIT", "maxRows must be a positive integer")
    const datasource = Object.hasOwn(allowlist.datasources, request.datasource)
      ? allowlist.datasources[request.datasource]
      : undefined
    if (!datasource) return rejected("UNKNOWN_DATASOURCE", "datasource is not allowlisted")
    const sql = request.sql
    if (typeof sql !== "string") return rejected("EMPTY_QUERY", "sql must be a string")
    if (sql.length > MAX_SQL_LENGTH) return rejected("UNSUPPORTED_SYNTAX", "statement is too long")
    if (sql.includes("\u0000")) return rejected("PARSE_ERROR", "statement contains a NUL character")
    if (hasUnsafeCharacter(sql))
      return rejected("UNSAFE_CHARACTER", "statement contains control, invisible or unusual space characters")
    let first: Analysis
    try {
      first = analyze(sql, datasource, maxRows)
      checkRendered(first.sql)
      let second: Analysis
      try {
        second = analyze(first.sql, datasource, maxRows)
      } catch (e) {
        if (e instanceof Reject) return rejected("ROUND_TRIP_MISMATCH", "the rendered plan does not validate")
        throw e
      }
      if (!sameAnalysis(first, second))
        return rejected("ROUND_TRIP_MISMATCH", "the rendered plan differs from the validated statement")
    } catch (e) {
      if (e instanceof Reject) return rejected(e.reason, e.detail)
      return rejected("UNSUPPORTED_SYNTAX", "statement uses unsupported syntax")
    }
    const plan: MysqlQueryPlan = Object.freeze({
      datasource: request.datasource,
      schema: datasource.defaultSchema,
      sql: first.sql,
      tables: Object.freeze(first.tables.map((t) => Object.freeze({ ...t }))),
      columns: Object.freeze(first.columns.map((c) => Object.freeze({ ...c }))),
      rowLimit: first.limits.rowLimit,
      limitEnforced: first.limits.enforced,
      outputColumns: Object.freeze(first.outputs.map((o) => Object.freeze({ ...o }))),
      functions: Object.freeze([...first.functions])
    })
    issuedPlans.add(plan)
    return Effect.succeed(plan)
  })
