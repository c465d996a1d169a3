import { Effect } from "effect"
import NodeSqlParser from "node-sql-parser/build/mysql.js"
import type { MysqlAllowlist } from "./allowlist.js"
import { MAX_DEPTH, type Node, Reject, reject } from "./ast.js"
import { MysqlQueryRejected, type MysqlRejectionReason } from "./errors.js"
import { scanSql } from "./lexer.js"
import { enforceLimit } from "./limit.js"
import { hasUnsafeCharacter, isSafeText } from "./literals.js"
import { type MysqlColumnOrigin, originOf } from "./provenance.js"
import type { Ctx, SetOutput } from "./scope.js"
import { validateSetExpr } from "./select.js"

export { MAX_GENERATED_LENGTH } from "./expression.js"

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

const parser = new NodeSqlParser.Parser()
const PARSER_OPTIONS = { database: "MySQL" }

const NOT_SELECT_KEYWORDS: ReadonlySet<string> = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "REPLACE",
  "MERGE",
  "UPSERT",
  "CREATE",
  "ALTER",
  "DROP",
  "TRUNCATE",
  "RENAME",
  "GRANT",
  "REVOKE",
  "SET",
  "SHOW",
  "CALL",
  "DO",
  "HANDLER",
  "PREPARE",
  "EXECUTE",
  "DEALLOCATE",
  "LOAD",
  "LOCK",
  "UNLOCK",
  "KILL",
  "FLUSH",
  "RESET",
  "PURGE",
  "ANALYZE",
  "OPTIMIZE",
  "REPAIR",
  "CHECK",
  "CHECKSUM",
  "EXPLAIN",
  "DESCRIBE",
  "DESC",
  "USE",
  "BEGIN",
  "START",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
  "XA",
  "INSTALL",
  "UNINSTALL",
  "SHUTDOWN",
  "BINLOG",
  "CACHE",
  "CHANGE",
  "HELP",
  "TABLE",
  "VALUES",
  "SIGNAL",
  "RESIGNAL",
  "GET",
  "DECLARE",
  "BACKUP"
])

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

/** Every string anywhere in the validated AST must be renderable verbatim (no quotes, backslashes, controls). */
const checkAstText = (node: unknown, depth = 0): void => {
  if (depth > MAX_DEPTH * 8) reject("UNSUPPORTED_SYNTAX", "statement is too deeply nested")
  if (typeof node === "string") {
    if (!isSafeText(node))
      reject("UNSAFE_LITERAL", "quotes, backslashes or control characters in a value or name")
    return
  }
  if (node === null || typeof node !== "object") return
  if (Array.isArray(node)) {
    for (const v of node) checkAstText(v, depth + 1)
    return
  }
  for (const [k, v] of Object.entries(node)) if (k !== "loc") checkAstText(v, depth + 1)
}

/** Parses, validates and renders `sql` (one pass; throws {@link Reject}). */
const analyze = (
  sql: string,
  datasource: MysqlAllowlist["datasources"][string],
  maxRows: number
): Analysis => {
  const lex = scanSql(sql)
  if (lex.empty) reject("EMPTY_QUERY", "empty statement")
  if (lex.versionedComment) reject("VERSIONED_COMMENT", "versioned comments are not allowed")
  if (lex.optimizerHint) reject("OPTIMIZER_HINT", "optimizer hints are not allowed")
  if (lex.multipleStatements) reject("MULTIPLE_STATEMENTS", "exactly one statement is allowed")
  const notSelect = lex.firstWord !== undefined && NOT_SELECT_KEYWORDS.has(lex.firstWord)
  if (lex.dashDashWithoutSpace && !notSelect) {
    // The server reads `1--1` as 1 - -1; the parser reads a comment and drops the rest of the line.
    reject("UNSUPPORTED_SYNTAX", "write '- -' with a space: '--' without a following space is ambiguous")
  }
  if (lex.backslashInString && !notSelect) {
    // The parser decodes some escapes (\u0027) and keeps others; the server decodes its own set.
    reject("UNSAFE_LITERAL", "backslash escapes in string literals are not supported")
  }
  let ast: Node
  try {
    ast = parser.astify(sql, PARSER_OPTIONS)
  } catch {
    if (notSelect) reject("NOT_SELECT", "only SELECT statements are allowed")
    return reject("PARSE_ERROR", "statement could not be parsed as MySQL")
  }
  const statements = (Array.isArray(ast) ? ast : [ast]).filter((s) => s !== null && s !== undefined)
  if (statements.length !== 1) reject("MULTIPLE_STATEMENTS", "exactly one statement is allowed")
  const stmt = statements[0]
  if (notSelect || stmt.type !== "select") reject("NOT_SELECT", "only SELECT statements are allowed")
  const ctx: Ctx = {
    datasource,
    tables: new Map(),
    columns: new Map(),
    info: new WeakMap(),
    functions: [],
    literals: [],
    validateSubquery: (ast, outer, ctes) => validateSetExpr(ast, ctx, outer, ctes),
    depth: 0
  }
  let out: SetOutput
  let limits: { rowLimit: number; enforced: boolean }
  let rendered: string
  try {
    out = validateSetExpr(stmt, ctx, undefined, new Map())
    limits = enforceLimit(stmt, maxRows)
    checkAstText(stmt)
    rendered = parser.sqlify(stmt, PARSER_OPTIONS)
  } catch (e) {
    if (e instanceof Reject) throw e
    return reject("UNSUPPORTED_SYNTAX", "statement uses unsupported syntax")
  }
  return {
    sql: rendered,
    tables: [...ctx.tables.values()],
    columns: [...ctx.columns.values()],
    outputs: out.columns.map((c) => ({ name: c.name, origin: originOf(c.info) })),
    functions: ctx.functions,
    literals: ctx.literals,
    limits
  }
}

/** The rendered plan must lex as plain SQL: no comment, no escape, no double quote, one statement. */
const checkRendered = (sql: string) => {
  const lex = scanSql(sql)
  if (
    lex.comment ||
    lex.backslashInString ||
    lex.doubleQuoted ||
    lex.unterminated ||
    lex.multipleStatements ||
    lex.versionedComment ||
    lex.optimizerHint ||
    sql.includes("\\") ||
    hasUnsafeCharacter(sql)
  ) {
    reject("ROUND_TRIP_MISMATCH", "the rendered plan is not plain SQL")
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
