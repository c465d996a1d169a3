import { Effect } from "effect"
import NodeSqlParser from "node-sql-parser/build/mysql.js"
import { isSystemSchema, type MysqlAllowlist, type MysqlAllowlistTable } from "./allowlist.js"
import { MysqlQueryRejected, type MysqlRejectionReason } from "./errors.js"
import { SAFE_AGGREGATE_FUNCTIONS, SAFE_SCALAR_FUNCTIONS } from "./functions.js"
import { scanSql } from "./lexer.js"
import {
  checkRegexPattern,
  DATE_LITERAL,
  hasUnsafeCharacter,
  isSafeText,
  likeWildcards,
  MAX_LIKE_WILDCARDS,
  MAX_LITERAL_CHARS,
  NUMBER_TEXT,
  PUNCTUATION_SEPARATOR,
  SPECIFIER_ONLY_FORMAT
} from "./literals.js"
import {
  CHOICE_FUNCTIONS,
  choiceInfo,
  EXPANSION_FACTOR,
  type ExprInfo,
  literalInfo,
  MAX_EXPRESSION_AMPLIFICATION,
  MAX_EXPRESSION_CHARS,
  type MysqlColumnOrigin,
  NEUTRAL,
  OUTPUT_ARGUMENTS,
  originOf,
  PREDICATE_OPERATORS,
  SCALAR_RESULT_FUNCTIONS,
  scalarInfo,
  scale,
  sumInfo,
  TABLE_COLUMN
} from "./provenance.js"

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

export interface MysqlQueryRequest {
  readonly datasource: string
  readonly sql: string
}

export interface ValidateMysqlQueryOptions {
  /** Upper bound of the enforced LIMIT. Default 200. */
  readonly maxRows?: number
}

export const DEFAULT_MAX_ROWS = 200
const MAX_SQL_LENGTH = 100_000

const issuedPlans = new WeakSet<object>()

/** True when `plan` is an unmodified object returned by {@link validateMysqlQuery}. */
export const isIssuedMysqlQueryPlan = (plan: unknown): plan is MysqlQueryPlan =>
  typeof plan === "object" && plan !== null && issuedPlans.has(plan)

const parser = new NodeSqlParser.Parser()
const PARSER_OPTIONS = { database: "MySQL" }

class Reject {
  constructor(
    readonly reason: MysqlRejectionReason,
    readonly detail: string
  ) {}
}
const reject = (reason: MysqlRejectionReason, detail: string): never => {
  throw new Reject(reason, detail)
}

type Node = any

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
// Name helpers

const identValue = (x: unknown): string | undefined => {
  if (typeof x === "string") return x
  if (x && typeof x === "object" && typeof (x as any).value === "string") return (x as any).value
  if (x && typeof x === "object" && (x as any).expr && typeof (x as any).expr.value === "string") {
    return (x as any).expr.value
  }
  return undefined
}
const lower = (s: string) => s.toLowerCase()

const findCaseInsensitive = <T>(record: Record<string, T>, name: string): [string, T] | undefined => {
  if (Object.hasOwn(record, name)) return [name, record[name]!]
  const l = lower(name)
  for (const [k, v] of Object.entries(record)) if (lower(k) === l) return [k, v]
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Scopes

interface BaseSource {
  readonly kind: "table"
  /** Lower-cased name usable as qualifier (alias, else table name). */
  readonly key: string
  readonly schema: string
  readonly table: string
  readonly def: MysqlAllowlistTable
  /** How to qualify expanded star columns. */
  readonly qualifier: { readonly db: string | null; readonly table: string }
  readonly dbKey: string | null
}
/** A validated output column: its name and what the validator knows about its values. */
interface OutCol {
  readonly name: string | null
  readonly info: ExprInfo
}

/** The output of a validated SELECT / set operation. */
interface SetOutput {
  readonly columns: ReadonlyArray<OutCol>
  /** Some row source is an allowlisted table (so COUNT(*) and ROW_NUMBER() count table rows). */
  readonly fromTable: boolean
}

interface DerivedSource {
  readonly kind: "derived"
  readonly key: string
  readonly columns: ReadonlyArray<OutCol>
  readonly fromTable: boolean
  readonly qualifier: { readonly db: null; readonly table: string }
}
type Source = BaseSource | DerivedSource

interface Scope {
  readonly sources: Array<Source>
  readonly parent: Scope | undefined
}

/** Lower-cased CTE name -> exact name and output columns. */
type CteEnv = ReadonlyMap<
  string,
  { readonly name: string; readonly columns: ReadonlyArray<OutCol>; readonly fromTable: boolean }
>

interface Ctx {
  readonly datasource: MysqlAllowlist["datasources"][string]
  readonly tables: Map<string, { schema: string; table: string }>
  readonly columns: Map<string, { schema: string; table: string; column: string }>
  /** Provenance and size of every validated expression node. */
  readonly info: WeakMap<object, ExprInfo>
  readonly functions: Array<string>
  /** `type:value` of every literal, in order (compared by the round-trip check). */
  readonly literals: Array<string>
  depth: number
}

/**
 * Where an expression sits, which decides how select-list aliases may be used:
 * - `group-item` / `order-item`: the whole GROUP BY / ORDER BY item is one bare name;
 * - `group` / `order`: inside a GROUP BY / ORDER BY expression, where MySQL/MariaDB bind names to
 *   table columns (so an alias there could read a hidden column of the same name): rejected;
 * - `having`: aliases are inlined (their validated expression replaces the name).
 */
type ClauseMode = "select" | "where" | "group" | "group-item" | "having" | "order"

interface ExprEnv {
  readonly ctx: Ctx
  readonly scope: Scope
  readonly ctes: CteEnv
  readonly mode: ClauseMode
  /** Lower-cased select-list alias -> exact alias and validated expression (first one wins). */
  readonly aliases: ReadonlyMap<string, SelectAlias>
}

interface SelectAlias {
  readonly name: string
  readonly expr: Node
}

const MAX_DEPTH = 64

const sourceHasColumn = (s: Source, column: string): string | undefined => {
  const l = lower(column)
  if (s.kind === "table") return s.def.columns.find((c) => lower(c) === l)
  const found = s.columns.find((c) => c.name !== null && lower(c.name) === l)
  return found?.name ?? undefined
}

/** What a column reference to `column` of `s` carries (a derived column keeps its expression's info). */
const sourceColumnInfo = (s: Source, column: string): ExprInfo => {
  if (s.kind === "table") return TABLE_COLUMN
  const l = lower(column)
  return s.columns.find((c) => c.name !== null && lower(c.name) === l)?.info ?? NEUTRAL
}

const scopeFromTable = (scope: Scope): boolean => scope.sources.some((s) => s.kind === "table" || s.fromTable)

const recordColumn = (ctx: Ctx, s: BaseSource, column: string) => {
  ctx.columns.set(`${s.schema}\u0000${s.table}\u0000${column}`, { schema: s.schema, table: s.table, column })
}

// ---------------------------------------------------------------------------------------------
// Statement level

const SELECT_KEYS: ReadonlySet<string> = new Set([
  "with",
  "type",
  "options",
  "distinct",
  "columns",
  "into",
  "from",
  "where",
  "groupby",
  "having",
  "orderby",
  "limit",
  "locking_read",
  "window",
  "collate",
  "loc",
  "_next",
  "set_op",
  "_orderby",
  "_limit",
  "parentheses_symbol",
  "_parentheses"
])

const processWith = (node: Node, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): CteEnv => {
  if (!Array.isArray(node.with) || node.with.length === 0) return ctes
  const env = new Map(ctes)
  for (const cte of node.with) {
    if (cte.recursive) reject("RECURSIVE_CTE", "recursive CTEs are not allowed")
    const name = identValue(cte.name)
    if (!name) reject("UNSUPPORTED_SYNTAX", "unsupported CTE name")
    const body = cte.stmt?.ast
    if (!body) reject("UNSUPPORTED_SYNTAX", "unsupported CTE body")
    const out = validateSetExpr(body, ctx, outer, env)
    let cols = out.columns
    if (Array.isArray(cte.columns) && cte.columns.length > 0) {
      const names = cte.columns.map((c: Node) => identValue(c?.column) ?? identValue(c))
      if (names.some((n: unknown) => typeof n !== "string"))
        reject("UNSUPPORTED_SYNTAX", "unsupported CTE column list")
      cols = (names as Array<string>).map((name, i) => ({ name, info: cols[i]?.info ?? NEUTRAL }))
    }
    env.set(lower(name!), { name: name!, columns: cols, fromTable: out.fromTable })
  }
  return env
}

/** Validates a SELECT possibly followed by set operations. Returns its output column names. */
const validateSetExpr = (head: Node, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): SetOutput => {
  if (++ctx.depth > MAX_DEPTH) reject("UNSUPPORTED_SYNTAX", "query nesting is too deep")
  if (head?.type !== "select") reject("NOT_SELECT", "only SELECT statements are allowed")
  const env = processWith(head, ctx, outer, ctes)
  const branches: Array<SetOutput> = []
  let node: Node = head
  while (node) {
    if (node.type !== "select") reject("NOT_SELECT", "only SELECT statements are allowed")
    if (node !== head && Array.isArray(node.with) && node.with.length > 0) {
      reject("UNSUPPORTED_SYNTAX", "WITH inside a set operation branch")
    }
    branches.push(validateSingleSelect(node, ctx, outer, env))
    if (node._next && typeof node.set_op !== "string")
      reject("UNSUPPORTED_SYNTAX", "unsupported set operation")
    node = node._next
  }
  // A set operation's column holds rows of every branch: table data only if every branch's is.
  const first = branches[0]!
  const result: SetOutput = {
    fromTable: branches.some((b) => b.fromTable),
    columns: first.columns.map((c, i) => {
      const infos = branches.map((b) => b.columns[i]?.info ?? NEUTRAL)
      const merged = choiceInfo(infos)
      return { name: c.name, info: { ...merged, table: infos.every((x) => x.table) } }
    })
  }
  // ORDER BY / LIMIT applying to a parenthesized set operation: output names only.
  if (Array.isArray(head._orderby)) {
    const outScope: Scope = {
      sources: [
        {
          kind: "derived",
          key: "",
          columns: result.columns,
          fromTable: result.fromTable,
          qualifier: { db: null, table: "" }
        }
      ],
      parent: undefined
    }
    for (const o of head._orderby) {
      o.expr = walkExpr(o.expr, { ctx, scope: outScope, ctes: env, mode: "where", aliases: new Map() })
    }
  }
  if (head._limit) limitValues(head._limit)
  ctx.depth--
  return result
}

const selectOutputName = (col: Node): string | null => {
  const as = identValue(col.as)
  if (as !== undefined) return as
  const e = col.expr
  if (e?.type === "column_ref") return identValue(e.column) ?? null
  return null
}

const validateSingleSelect = (node: Node, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): SetOutput => {
  for (const [k, v] of Object.entries(node)) {
    if (!SELECT_KEYS.has(k) && v !== null && v !== undefined)
      reject("UNSUPPORTED_SYNTAX", "unsupported SELECT clause")
  }
  if (node.into && (node.into.type || node.into.keyword || node.into.expr)) {
    reject("INTO_NOT_ALLOWED", "SELECT ... INTO is not allowed")
  }
  if (node.locking_read) reject("LOCKING_READ", "locking reads are not allowed")
  if (Array.isArray(node.options) && node.options.length > 0) {
    reject("SELECT_MODIFIER", "SELECT modifiers are not allowed")
  }
  if (node.collate) reject("UNSUPPORTED_SYNTAX", "unsupported SELECT clause")
  if (node.distinct !== null && node.distinct !== undefined && node.distinct !== "DISTINCT") {
    reject("SELECT_MODIFIER", "SELECT modifiers are not allowed")
  }

  const scope: Scope = { sources: [], parent: outer }
  const env = (mode: ClauseMode, aliases: ReadonlyMap<string, SelectAlias> = new Map()): ExprEnv => ({
    ctx,
    scope,
    ctes,
    mode,
    aliases
  })

  // FROM
  if (node.from !== null && node.from !== undefined) {
    if (!Array.isArray(node.from)) reject("UNSUPPORTED_SYNTAX", "unsupported FROM clause")
    for (const item of node.from) {
      addFromItem(item, scope, ctx, outer, ctes)
      if (item.on) item.on = walkExpr(item.on, env("where"))
      if (Array.isArray(item.using)) {
        const added = scope.sources[scope.sources.length - 1]!
        for (const u of item.using) {
          const name = identValue(u)
          if (!name) reject("UNSUPPORTED_SYNTAX", "unsupported USING clause")
          if (!sourceHasColumn(added, name!)) reject("COLUMN_NOT_ALLOWED", "column in USING is not allowed")
          const others = scope.sources.slice(0, -1).filter((s) => sourceHasColumn(s, name!))
          if (others.length !== 1)
            reject("AMBIGUOUS_COLUMN", "USING column must match exactly one earlier table")
          for (const s of [added, others[0]!])
            if (s.kind === "table") recordColumn(ctx, s, sourceHasColumn(s, name!)!)
        }
      }
    }
  }

  // SELECT list (with star expansion)
  if (!Array.isArray(node.columns) || node.columns.length === 0)
    reject("UNSUPPORTED_SYNTAX", "empty select list")
  const newColumns: Array<Node> = []
  const outputs: Array<OutCol> = []
  const aliases = new Map<string, SelectAlias>()
  for (const col of node.columns) {
    const e = col?.expr
    if (e?.type === "column_ref" && identValue(e.column) === "*") {
      for (const expanded of expandStar(e, scope, ctx)) {
        newColumns.push(expanded.node)
        outputs.push({ name: identValue(expanded.node.expr.column)!, info: expanded.info })
      }
      continue
    }
    if (e?.type === "star") reject("STAR_NOT_ALLOWED", "star is not allowed here")
    col.expr = walkExpr(e, env("select"))
    newColumns.push(col)
    const name = selectOutputName(col)
    outputs.push({ name, info: infoOf(ctx, col.expr) })
    const as = identValue(col.as)
    // MySQL/MariaDB bind a duplicated alias to its first occurrence.
    if (as !== undefined && !aliases.has(lower(as))) aliases.set(lower(as), { name: as, expr: col.expr })
  }
  node.columns = newColumns

  if (node.where) node.where = walkExpr(node.where, env("where"))
  if (node.groupby) {
    const gb = node.groupby
    if (Array.isArray(gb.columns))
      gb.columns = gb.columns.map((c: Node) =>
        walkExpr(c, env(bareName(c) !== undefined ? "group-item" : "group", aliases))
      )
    if (Array.isArray(gb.modifiers)) {
      for (const m of gb.modifiers) {
        if (m !== null && !(m.type === "origin" && lower(String(m.value)) === "with rollup")) {
          reject("UNSUPPORTED_SYNTAX", "unsupported GROUP BY modifier")
        }
      }
    }
  }
  if (node.having) node.having = walkExpr(node.having, env("having", aliases))
  if (node.window) {
    if (node.window.type !== "window" || !Array.isArray(node.window.expr))
      reject("UNSUPPORTED_SYNTAX", "unsupported WINDOW clause")
    for (const w of node.window.expr) walkWindow(w.as_window_specification, env("where"))
  }
  if (Array.isArray(node.orderby)) {
    for (const o of node.orderby) {
      // A bare ORDER BY name binds to a select-list alias first; render exactly that alias.
      const bare = bareName(o.expr)
      const alias = bare === undefined ? undefined : aliases.get(lower(bare))
      if (alias !== undefined) o.expr = { type: "column_ref", table: null, column: alias.name }
      else o.expr = walkExpr(o.expr, env("order", aliases))
    }
  }
  if (node.limit) limitValues(node.limit)
  return { columns: outputs, fromTable: scopeFromTable(scope) }
}

/** The name when `n` is an unqualified column reference and nothing else (no COLLATE, no options). */
const bareName = (n: Node): string | undefined => {
  if (n?.type !== "column_ref" || n.table || n.db || n.schema || n.collate || n.options) return undefined
  for (const k of Object.keys(n)) {
    if (!["type", "table", "db", "schema", "column", "collate", "options", "parentheses", "loc"].includes(k))
      return undefined
  }
  const name = identValue(n.column)
  return name === undefined || name === "*" ? undefined : name
}

const addFromItem = (item: Node, scope: Scope, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv) => {
  if (!item || typeof item !== "object") reject("UNSUPPORTED_SYNTAX", "unsupported FROM item")
  if (item.type === "dual") return
  if (item.join !== undefined && item.join !== null) {
    const joins = new Set([
      "INNER JOIN",
      "JOIN",
      "LEFT JOIN",
      "LEFT OUTER JOIN",
      "RIGHT JOIN",
      "RIGHT OUTER JOIN",
      "CROSS JOIN",
      "STRAIGHT_JOIN"
    ])
    if (!joins.has(String(item.join).toUpperCase())) reject("UNSUPPORTED_SYNTAX", "unsupported join type")
  }
  for (const k of ["table_hint", "index_hint", "partition", "temporal_table", "tablesample"]) {
    if (item[k]) reject("UNSUPPORTED_SYNTAX", "table hints are not allowed")
  }
  const alias = identValue(item.as)
  if (item.expr) {
    if (item.prefix) reject("UNSUPPORTED_SYNTAX", "LATERAL derived tables are not allowed")
    if (!item.expr.ast) reject("UNSUPPORTED_SYNTAX", "unsupported derived table")
    if (!alias) reject("UNSUPPORTED_SYNTAX", "derived tables need an alias")
    const out = validateSetExpr(item.expr.ast, ctx, outer, ctes)
    pushSource(scope, {
      kind: "derived",
      key: lower(alias!),
      columns: out.columns,
      fromTable: out.fromTable,
      qualifier: { db: null, table: alias! }
    })
    return
  }
  const tableName = identValue(item.table)
  if (tableName === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported FROM item")
  const db = identValue(item.db) ?? identValue(item.schema) ?? null
  if (item.db && item.schema) reject("UNSUPPORTED_SYNTAX", "unsupported table reference")
  if (db === null) {
    const cte = ctes.get(lower(tableName!))
    if (cte) {
      // Render the CTE's exact spelling so a case-sensitive server cannot bind a real table instead.
      item.table = cte.name
      const name = alias ?? cte.name
      pushSource(scope, {
        kind: "derived",
        key: lower(name),
        columns: cte.columns,
        fromTable: cte.fromTable,
        qualifier: { db: null, table: name }
      })
      return
    }
  }
  if (db !== null && isSystemSchema(db)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
  const schemaName = db ?? ctx.datasource.defaultSchema
  const schemaEntry = findCaseInsensitive(ctx.datasource.schemas, schemaName)
  if (!schemaEntry) reject("TABLE_NOT_ALLOWED", "schema is not allowed")
  const [schema, schemaDef] = schemaEntry!
  const tableEntry = findCaseInsensitive(schemaDef.tables, tableName!)
  if (!tableEntry) {
    if (isSystemSchema(tableName!)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
    reject("TABLE_NOT_ALLOWED", "table is not allowed")
  }
  const [table, def] = tableEntry!
  // Canonicalize names so the server reads exactly the allowlisted table.
  item.table = table
  if (db !== null) {
    if (item.db) item.db = schema
    else item.schema = schema
  }
  ctx.tables.set(`${schema}\u0000${table}`, { schema, table })
  const key = alias ?? table
  pushSource(scope, {
    kind: "table",
    key: lower(key),
    schema,
    table,
    def,
    qualifier: alias ? { db: null, table: alias } : { db: db !== null ? schema : null, table },
    dbKey: alias || db === null ? null : lower(schema)
  })
}

const pushSource = (scope: Scope, source: Source) => {
  if (
    scope.sources.some(
      (s) =>
        s.key === source.key && (s.kind !== "table" || source.kind !== "table" || s.dbKey === source.dbKey)
    )
  ) {
    reject("UNSUPPORTED_SYNTAX", "duplicate table alias")
  }
  scope.sources.push(source)
}

const expandStar = (ref: Node, scope: Scope, ctx: Ctx): Array<{ node: Node; info: ExprInfo }> => {
  const qualifier = identValue(ref.table)
  const db = identValue(ref.db) ?? identValue(ref.schema)
  let sources: Array<Source>
  if (qualifier === undefined) {
    if (scope.sources.length === 0) reject("STAR_NOT_ALLOWED", "star without a table")
    sources = scope.sources
  } else {
    const s = findQualified(scope.sources, qualifier, db)
    if (!s) reject("COLUMN_NOT_ALLOWED", "unknown table qualifier")
    sources = [s!]
  }
  const out: Array<{ node: Node; info: ExprInfo }> = []
  for (const s of sources) {
    if (s.kind === "table") {
      if (s.def.excludedColumns && s.def.excludedColumns.length > 0) {
        reject("STAR_NOT_ALLOWED", `star over ${s.table} is not allowed; list allowed columns`)
      }
      for (const c of s.def.columns) {
        recordColumn(ctx, s, c)
        out.push({
          node: {
            expr: { type: "column_ref", db: s.qualifier.db, table: s.qualifier.table, column: c },
            as: null
          },
          info: TABLE_COLUMN
        })
      }
    } else {
      for (const c of s.columns) {
        if (c.name === null) reject("STAR_NOT_ALLOWED", "star over a derived column without a name")
        out.push({
          node: { expr: { type: "column_ref", table: s.qualifier.table, column: c.name }, as: null },
          info: c.info
        })
      }
    }
  }
  return out
}

const findQualified = (
  sources: ReadonlyArray<Source>,
  qualifier: string,
  db: string | undefined
): Source | undefined => {
  const q = lower(qualifier)
  if (db !== undefined) {
    const d = lower(db)
    return sources.find((s) => s.kind === "table" && s.key === q && s.dbKey === d)
  }
  return sources.find((s) => s.key === q)
}

// ---------------------------------------------------------------------------------------------
// Expressions

const LITERAL_TYPES: ReadonlySet<string> = new Set([
  "number",
  "single_quote_string",
  "double_quote_string",
  "natural_string",
  "hex_string",
  "full_hex_string",
  "bit_string",
  "bool",
  "boolean",
  "null",
  "date",
  "datetime",
  "time",
  "timestamp",
  "datatype"
])

const ORIGIN_KEYWORDS: ReadonlySet<string> = new Set(["both", "leading", "trailing", "from", "for", "in"])

/**
 * An unquoted number in exponent notation without a decimal point (`1e1`, `2E`) is read by
 * node-sql-parser as a column name: report a parse problem, not a forbidden column.
 */
const EXPONENT_QUIRK = /^[0-9]+e[0-9]*$/i

const qualifierCaseConflict = (env: ExprEnv, found: Scope, qualifier: string): boolean => {
  // A server with case-sensitive aliases (lower_case_table_names=0) would skip a source whose
  // spelling differs and bind an exactly spelled one further out: refuse instead of guessing.
  for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
    if (scope === found) continue
    if (scope.sources.some((s) => s.qualifier.table === qualifier)) return true
  }
  return false
}

const resolveColumn = (ref: Node, env: ExprEnv): Node => {
  const column = identValue(ref.column)
  if (column === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  if (column === "*") reject("STAR_NOT_ALLOWED", "star is not allowed here")
  if (ref.options) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const qualifier = ref.table === null || ref.table === undefined ? undefined : identValue(ref.table)
  if (ref.table && qualifier === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const db = identValue(ref.db) ?? identValue(ref.schema)
  if (db !== undefined && isSystemSchema(db)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
  if (qualifier !== undefined) {
    for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
      const s = findQualified(scope.sources, qualifier, db)
      if (!s) continue
      const canonical = sourceHasColumn(s, column!)
      if (!canonical) reject("COLUMN_NOT_ALLOWED", "column is not allowed")
      if (s.qualifier.table !== qualifier && qualifierCaseConflict(env, scope, qualifier)) {
        reject("AMBIGUOUS_COLUMN", "table qualifier differs in case from its alias; spell it exactly")
      }
      if (s.kind === "table") recordColumn(env.ctx, s, canonical!)
      // Render exactly the qualifier the validator resolved, so the server binds the same source.
      ref.table = s.qualifier.table
      if (db !== undefined) {
        if (ref.db) ref.db = s.qualifier.db
        else ref.schema = s.qualifier.db
      }
      return withInfo(env.ctx, ref, sourceColumnInfo(s, canonical!))
    }
    if (isSystemSchema(qualifier)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
    return reject("COLUMN_NOT_ALLOWED", "unknown table qualifier")
  }
  const alias = env.aliases.get(lower(column!))
  const matches = env.scope.sources.filter((s) => sourceHasColumn(s, column!))
  if (matches.length > 1) reject("AMBIGUOUS_COLUMN", "unqualified column matches several tables; qualify it")
  if (matches.length === 1) {
    const s = matches[0]!
    if (s.kind === "table") recordColumn(env.ctx, s, sourceHasColumn(s, column!)!)
    return withInfo(env.ctx, ref, sourceColumnInfo(s, column!))
  }
  if (alias !== undefined) {
    if (env.mode === "having" || env.mode === "group-item") {
      // Inline the aliased expression: MySQL resolves GROUP BY/HAVING names against table columns
      // first, so leaving the alias could bind to a hidden column of the same name.
      return withInfo(env.ctx, structuredClone(alias.expr), infoOf(env.ctx, alias.expr))
    }
    if (env.mode === "order" || env.mode === "group") {
      // Inside an ORDER BY / GROUP BY expression the server binds the name to a table column,
      // which may be a hidden one (e.g. `ORDER BY secret LIKE 'a%'` with `'x' AS secret`).
      reject(
        "COLUMN_NOT_ALLOWED",
        "a select alias may only be a whole ORDER BY/GROUP BY item; repeat its expression instead"
      )
    }
  }
  if (EXPONENT_QUIRK.test(column!)) {
    reject("PARSE_ERROR", "exponent numbers need a decimal point (1.0e1) or must be written in full")
  }
  for (let scope = env.scope.parent; scope; scope = scope.parent) {
    if (scope.sources.some((s) => sourceHasColumn(s, column!))) {
      reject("AMBIGUOUS_COLUMN", "outer column references must be qualified")
    }
  }
  return reject("COLUMN_NOT_ALLOWED", "column is not allowed")
}

const checkFunctionName = (fn: Node, aggregate: boolean): string => {
  if (aggregate) {
    const name = typeof fn.name === "string" ? fn.name.toUpperCase() : ""
    if (!SAFE_AGGREGATE_FUNCTIONS.has(name)) reject("FORBIDDEN_FUNCTION", "function is not allowed")
    return name
  }
  const parts = fn.name?.name
  if (fn.name?.schema || !Array.isArray(parts) || parts.length !== 1) {
    reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  const raw = identValue(parts[0])
  if (raw === undefined) reject("FORBIDDEN_FUNCTION", "function is not allowed")
  const name = raw!.toUpperCase()
  if (!SAFE_SCALAR_FUNCTIONS.has(name) && !SAFE_AGGREGATE_FUNCTIONS.has(name)) {
    reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  return name
}

const walkWindow = (spec: Node, env: ExprEnv) => {
  if (typeof spec === "string") return
  const ws = spec?.window_specification
  if (!ws) reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  if (ws.name) reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  if (Array.isArray(ws.partitionby)) for (const p of ws.partitionby) p.expr = walkExpr(p.expr, env)
  if (Array.isArray(ws.orderby)) for (const o of ws.orderby) o.expr = walkExpr(o.expr, env)
  if (ws.window_frame_clause) checkFrame(ws.window_frame_clause)
}

const checkFrame = (n: Node): void => {
  if (typeof n === "string") return
  if (!n || typeof n !== "object") reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  switch (n.type) {
    case "binary_expr":
      checkFrame(n.left)
      checkFrame(n.right)
      return
    case "expr_list":
      for (const v of n.value) checkFrame(v)
      return
    case "origin":
    case "number":
      return
    default:
      reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  }
}

const walkList = (list: Node, env: ExprEnv) => {
  if (!list) return
  if (list.type !== "expr_list" || !Array.isArray(list.value))
    reject("UNSUPPORTED_SYNTAX", "unsupported argument list")
  list.value = list.value.map((v: Node) => walkExpr(v, env))
}

const infoOf = (ctx: Ctx, n: Node): ExprInfo =>
  n !== null && typeof n === "object" ? (ctx.info.get(n) ?? NEUTRAL) : NEUTRAL

/** Records `info` for `n` after checking the static size bound. */
const withInfo = (ctx: Ctx, n: Node, info: ExprInfo): Node => {
  if (
    info.k > MAX_EXPRESSION_AMPLIFICATION ||
    info.c > MAX_EXPRESSION_CHARS ||
    !Number.isFinite(info.k + info.c)
  ) {
    reject("RESOURCE_LIMIT", "expression could produce too much output (size-amplifying functions)")
  }
  if (n !== null && typeof n === "object") ctx.info.set(n, info)
  return n
}

const LITERAL_KEYS: ReadonlySet<string> = new Set(["type", "value", "prefix", "loc", "parentheses"])

/**
 * A literal the plan may render: plain single-quoted text of safe characters (see literals.ts),
 * numbers, booleans, NULL, date literals. Charset introducers, `N'…'`, `X'…'`, `0x…`, `b'…'`,
 * `ESCAPE` clauses and any quote, backslash or control character are `UNSAFE_LITERAL`.
 */
const checkLiteral = (n: Node, ctx: Ctx): ExprInfo => {
  if (n.type === "datatype") {
    // CONVERT(x, CHAR): a type name, not a value.
    if (typeof n.dataType !== "string" || !/^[A-Za-z0-9_ ]{1,32}$/.test(n.dataType))
      reject("UNSUPPORTED_SYNTAX", "unsupported data type")
    return NEUTRAL
  }
  for (const k of Object.keys(n)) {
    if (!LITERAL_KEYS.has(k) && n[k] !== null && n[k] !== undefined)
      reject("UNSAFE_LITERAL", "literal with unsupported decoration (ESCAPE, COLLATE, ...)")
  }
  if (n.prefix !== null && n.prefix !== undefined)
    reject("UNSAFE_LITERAL", "charset introducers are not allowed")
  switch (n.type) {
    case "single_quote_string":
    case "double_quote_string": {
      const v = n.value
      if (typeof v !== "string" || !isSafeText(v))
        reject("UNSAFE_LITERAL", "string literals may not contain quotes, backslashes or control characters")
      if (v.length > MAX_LITERAL_CHARS) reject("UNSAFE_LITERAL", "string literal is too long")
      // Always rendered with single quotes, which every sql_mode reads as a string.
      n.type = "single_quote_string"
      ctx.literals.push(`s:${v}`)
      return literalInfo(v.length)
    }
    case "number": {
      const v = n.value
      const ok =
        (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && NUMBER_TEXT.test(v))
      if (!ok) reject("PARSE_ERROR", "number literal could not be parsed")
      ctx.literals.push(`n:${String(v)}`)
      return literalInfo(String(v).length)
    }
    case "bool":
    case "boolean":
      if (typeof n.value !== "boolean") reject("UNSAFE_LITERAL", "unsupported literal")
      ctx.literals.push(`b:${String(n.value)}`)
      return literalInfo(1)
    case "null":
      ctx.literals.push("null")
      return literalInfo(4)
    case "date":
    case "datetime":
    case "time":
    case "timestamp":
      if (typeof n.value !== "string" || !DATE_LITERAL.test(n.value) || n.value.length > 32)
        reject("UNSAFE_LITERAL", "unsupported date literal")
      ctx.literals.push(`${n.type}:${n.value}`)
      return literalInfo(n.value.length)
    default:
      return reject("UNSAFE_LITERAL", "hex, bit, national and other special literals are not allowed")
  }
}

/** A plain single-quoted string literal's text (after {@link checkLiteral}), else undefined. */
const stringLiteral = (n: Node): string | undefined =>
  n?.type === "single_quote_string" && typeof n.value === "string" ? n.value : undefined

/** Every spelling of a regular-expression match (`REGEXP BINARY`, `NOT RLIKE`, ...). */
const REGEX_OPERATOR = /\b(?:REGEXP|RLIKE)\b/
const LIKE_OPERATOR = /\bLIKE\b/

/** Pattern operators: the pattern must be a literal the server matches in bounded time. */
const checkPattern = (operator: string, right: Node) => {
  if (REGEX_OPERATOR.test(operator)) {
    const pattern = stringLiteral(right)
    if (pattern === undefined) reject("RESOURCE_LIMIT", "REGEXP pattern must be a plain string literal")
    const problem = checkRegexPattern(pattern!)
    if (problem !== undefined) reject("RESOURCE_LIMIT", problem)
  } else if (LIKE_OPERATOR.test(operator)) {
    const pattern = stringLiteral(right)
    if (pattern === undefined) reject("RESOURCE_LIMIT", "LIKE pattern must be a plain string literal")
    if (likeWildcards(pattern!) > MAX_LIKE_WILDCARDS)
      reject("RESOURCE_LIMIT", "LIKE pattern has too many % wildcards")
  }
}

const argList = (n: Node): Array<Node> => (Array.isArray(n?.args?.value) ? n.args.value : [])

/** Provenance and size of a validated scalar function call. */
const functionInfo = (name: string, n: Node, env: ExprEnv): ExprInfo => {
  const args = argList(n)
  const infos = args.map((a) => infoOf(env.ctx, a))
  if (args.length === 0) {
    // ROW_NUMBER() / RANK() count table rows; NOW(), PI() are not table data.
    return SCALAR_RESULT_FUNCTIONS.has(name)
      ? scalarInfo([{ ...NEUTRAL, table: scopeFromTable(env.scope) }])
      : scalarInfo([])
  }
  if (SCALAR_RESULT_FUNCTIONS.has(name)) return scalarInfo(infos)
  const growth = ROW_CONCATENATING_AGGREGATES[name]
  if (growth !== undefined) {
    // JSON_ARRAYAGG / JSON_OBJECTAGG parse as plain functions.
    const aggregated = sumInfo(infos)
    return { ...aggregated, k: Math.max(aggregated.k, growth) }
  }
  switch (name) {
    case "LPAD":
    case "RPAD": {
      // Output is exactly the length argument (checked to be a literal <= MAX_GENERATED_LENGTH).
      const length = Number(args[1]?.value)
      const base = sumInfo(infos.filter((_, i) => i !== 1))
      return { ...base, k: 0, c: length }
    }
    case "REPLACE": {
      const [subject = NEUTRAL, , to = NEUTRAL] = infos
      const from = stringLiteral(args[1])
      if (from === "") return subject
      const fromLength = from === undefined ? 1 : from.length
      if (to.k > 0 && subject.k > 0)
        reject("RESOURCE_LIMIT", "REPLACE of column data by column data could produce too much output")
      const factor = Math.max(1, to.c / fromLength)
      const prov = sumInfo([subject, to])
      return {
        table: prov.table,
        literal: prov.literal,
        k: subject.k * factor + (subject.c / fromLength) * to.k,
        c: subject.c * factor
      }
    }
    case "CONCAT_WS": {
      const [sep = NEUTRAL, ...rest] = infos
      return sumInfo([...rest, scale(sep, Math.max(0, rest.length - 1))])
    }
    case "DATE_FORMAT":
    case "TIME_FORMAT":
    case "FROM_UNIXTIME": {
      const format = stringLiteral(args[1])
      const value = infos[0] ?? NEUTRAL
      const fmt = infos[1]
      if (fmt === undefined) return scalarInfo([value])
      const wordless = format !== undefined && SPECIFIER_ONLY_FORMAT.test(format)
      return {
        table: value.table || fmt.table,
        literal: value.literal || (!wordless && fmt.literal),
        k: fmt.k * 12,
        c: fmt.c * 12 + 64
      }
    }
  }
  const outputIndexes = OUTPUT_ARGUMENTS[name]
  const outputs = outputIndexes ? infos.filter((_, i) => outputIndexes.includes(i)) : infos
  const others = infos.filter((x) => !outputs.includes(x))
  const combined = CHOICE_FUNCTIONS.has(name) ? choiceInfo(outputs) : sumInfo(outputs)
  const factor = EXPANSION_FACTOR[name] ?? 1
  return {
    table: combined.table || others.some((x) => x.table),
    literal: combined.literal,
    k: combined.k * factor,
    c: combined.c * factor + 64
  }
}

/**
 * Size factor given to aggregates that concatenate rows. GROUP_CONCAT is capped per session
 * (`group_concat_max_len`, pinned by the executor) and may still be doubled; JSON_ARRAYAGG /
 * JSON_OBJECTAGG are not capped on MySQL, so nothing may grow them.
 */
const ROW_CONCATENATING_AGGREGATES: Readonly<Record<string, number>> = {
  GROUP_CONCAT: MAX_EXPRESSION_AMPLIFICATION / 2,
  JSON_ARRAYAGG: MAX_EXPRESSION_AMPLIFICATION,
  JSON_OBJECTAGG: MAX_EXPRESSION_AMPLIFICATION
}

const walkExpr = (n: Node, env: ExprEnv): Node => {
  if (n === null || n === undefined) return n
  if (typeof n !== "object") reject("UNSUPPORTED_SYNTAX", "unsupported expression")
  if (++env.ctx.depth > MAX_DEPTH * 4) reject("UNSUPPORTED_SYNTAX", "expression nesting is too deep")
  const ctx = env.ctx
  const info = (node: Node, i: ExprInfo) => withInfo(ctx, node, i)
  try {
    if (n.ast && n.type === undefined) {
      // Scalar / IN / EXISTS subquery: sees the current scope as its outer scope.
      const out = validateSetExpr(n.ast, env.ctx, env.scope, env.ctes)
      const first = out.columns[0]?.info ?? NEUTRAL
      return info(n, out.columns.length === 1 ? first : choiceInfo(out.columns.map((c) => c.info)))
    }
    if (LITERAL_TYPES.has(n.type)) return info(n, checkLiteral(n, ctx))
    if (n.type === "bigint") {
      // node-sql-parser's node for long integers and decimals with an exponent (`1.5e3`):
      // rendered verbatim, so accept only a plain numeric spelling.
      if (typeof n.value === "string" && BIG_NUMBER.test(n.value) && n.value.length <= 80) {
        ctx.literals.push(`n:${n.value}`)
        return info(n, literalInfo(n.value.length))
      }
      return reject("PARSE_ERROR", "number literal could not be parsed")
    }
    switch (n.type) {
      case "column_ref":
        return resolveColumn(n, env)
      case "var":
        return reject(
          String(n.prefix ?? "").startsWith("@@") ? "SYSTEM_VARIABLE" : "USER_VARIABLE",
          String(n.prefix ?? "").startsWith("@@")
            ? "system variables are not allowed"
            : "user variables are not allowed"
        )
      case "assign":
        return reject("USER_VARIABLE", "variable assignment is not allowed")
      case "param":
        return reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
      case "origin": {
        const v = lower(String(n.value))
        if (v === "?")
          reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
        if (!ORIGIN_KEYWORDS.has(v)) reject("UNSUPPORTED_SYNTAX", "unsupported expression")
        return info(n, NEUTRAL)
      }
      case "star":
        return reject("STAR_NOT_ALLOWED", "star is not allowed here")
      case "binary_expr": {
        n.left = walkExpr(n.left, env)
        n.right = walkExpr(n.right, env)
        const operator = String(n.operator ?? "").toUpperCase()
        checkPattern(operator, n.right)
        const l = infoOf(ctx, n.left)
        const r = infoOf(ctx, n.right)
        if (
          PREDICATE_OPERATORS.has(operator) ||
          REGEX_OPERATOR.test(operator) ||
          LIKE_OPERATOR.test(operator)
        )
          return info(n, scalarInfo([l, r]))
        if (operator === "->" || operator === "->>") return info(n, { ...l, table: l.table || r.table })
        // Arithmetic: a number, but literal operands set its value.
        return info(n, { ...sumInfo([l, r]), k: 0, c: 64 })
      }
      case "unary_expr": {
        n.expr = walkExpr(n.expr, env)
        const inner = infoOf(ctx, n.expr)
        const operator = String(n.operator ?? "").toUpperCase()
        return info(n, operator === "NOT" || operator === "!" ? scalarInfo([inner]) : inner)
      }
      case "expr_list":
        walkList(n, env)
        return info(n, sumInfo(n.value.map((v: Node) => infoOf(ctx, v))))
      case "function": {
        const name = checkFunctionName(n, false)
        ctx.functions.push(name)
        if (n.args) walkList(n.args, env)
        checkLengthArgument(name, n.args)
        if (name === "JSON_SEARCH") {
          // Its search string is a LIKE pattern over every string of the document.
          const pattern = stringLiteral(argList(n)[2])
          if (pattern === undefined)
            reject("RESOURCE_LIMIT", "JSON_SEARCH pattern must be a plain string literal")
          if (likeWildcards(pattern!) > MAX_LIKE_WILDCARDS)
            reject("RESOURCE_LIMIT", "JSON_SEARCH pattern has too many % wildcards")
        }
        if (n.over) walkOver(n.over, env)
        if (n.suffix) reject("UNSUPPORTED_SYNTAX", "unsupported function syntax")
        return info(n, functionInfo(name, n, env))
      }
      case "aggr_func": {
        const name = checkFunctionName(n, true)
        ctx.functions.push(name)
        const args = n.args ?? {}
        let argInfo: ExprInfo = NEUTRAL
        if (args.expr?.type === "star") {
          if (name !== "COUNT") reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
        } else if (args.expr && !args.expr.type && args.expr.expr) {
          reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
        } else {
          args.expr = walkExpr(args.expr, env)
          argInfo = infoOf(ctx, args.expr)
        }
        if (Array.isArray(args.orderby)) for (const o of args.orderby) o.expr = walkExpr(o.expr, env)
        let separatorInfo: ExprInfo = NEUTRAL
        if (args.separator) {
          const sep = args.separator.value ?? args.separator
          if (!LITERAL_TYPES.has(sep?.type)) reject("UNSUPPORTED_SYNTAX", "unsupported separator")
          separatorInfo = checkLiteral(sep, ctx)
          if (PUNCTUATION_SEPARATOR.test(stringLiteral(sep) ?? "x"))
            separatorInfo = { ...separatorInfo, literal: false }
        }
        if (n.over) walkOver(n.over, env)
        const rows = { ...NEUTRAL, table: scopeFromTable(env.scope) }
        // COUNT is a number of rows; other aggregates carry their argument's provenance.
        if (name === "COUNT") return info(n, scalarInfo([rows, argInfo]))
        const aggregated = sumInfo([argInfo, separatorInfo])
        const growth = ROW_CONCATENATING_AGGREGATES[name]
        // Row-concatenating aggregates are as long as many rows: count them as (nearly) the
        // largest accepted size, so nothing may amplify them further.
        if (growth !== undefined) return info(n, { ...aggregated, k: Math.max(aggregated.k, growth) })
        return info(n, aggregated)
      }
      case "case": {
        n.expr = walkExpr(n.expr, env)
        const conditions: Array<ExprInfo> = [infoOf(ctx, n.expr)]
        const results: Array<ExprInfo> = []
        for (const a of n.args ?? []) {
          if (a.type === "when") {
            a.cond = walkExpr(a.cond, env)
            conditions.push(infoOf(ctx, a.cond))
          } else if (a.type !== "else") reject("UNSUPPORTED_SYNTAX", "unsupported CASE")
          a.result = walkExpr(a.result, env)
          results.push(infoOf(ctx, a.result))
        }
        const chosen = choiceInfo(results)
        return info(n, { ...chosen, table: chosen.table || conditions.some((c) => c.table) })
      }
      case "cast":
        n.expr = walkExpr(n.expr, env)
        return info(n, infoOf(ctx, n.expr))
      case "interval":
        n.expr = walkExpr(n.expr, env)
        return info(n, infoOf(ctx, n.expr))
      case "extract":
        if (!n.args) reject("UNSUPPORTED_SYNTAX", "unsupported EXTRACT")
        n.args.source = walkExpr(n.args.source, env)
        return info(n, scalarInfo([infoOf(ctx, n.args.source)]))
      case "fulltext_search":
        n.columns = (n.columns ?? []).map((c: Node) => walkExpr(c, env))
        n.expr = walkExpr(n.expr, env)
        return info(n, scalarInfo([...n.columns.map((c: Node) => infoOf(ctx, c)), infoOf(ctx, n.expr)]))
      default:
        return reject("UNSUPPORTED_SYNTAX", "unsupported expression")
    }
  } finally {
    env.ctx.depth--
  }
}

const BIG_NUMBER = /^[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?$/i

/** Largest length a padding/repeating function may produce (resource abuse guard). */
export const MAX_GENERATED_LENGTH = 1000

/** Functions whose output size is set by an argument: argument index of that length. */
const LENGTH_ARGUMENT: Readonly<Record<string, number>> = { LPAD: 1, RPAD: 1, REPEAT: 1, SPACE: 0 }

const checkLengthArgument = (name: string, args: Node) => {
  const index = LENGTH_ARGUMENT[name]
  if (index === undefined) return
  const arg = Array.isArray(args?.value) ? args.value[index] : undefined
  const value = arg?.type === "number" ? Number(arg.value) : Number.NaN
  if (!(Number.isFinite(value) && value >= 0 && value <= MAX_GENERATED_LENGTH)) {
    reject("RESOURCE_LIMIT", `length argument must be a number literal between 0 and ${MAX_GENERATED_LENGTH}`)
  }
}

const walkOver = (over: Node, env: ExprEnv) => {
  if (over.type !== "window") reject("UNSUPPORTED_SYNTAX", "unsupported OVER clause")
  walkWindow(over.as_window_specification, env)
}

// ---------------------------------------------------------------------------------------------
// LIMIT

const limitNumber = (v: Node): number => {
  if (v?.type === "origin" && v.value === "?")
    reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported")
  if (v?.type !== "number") reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  const num = typeof v.value === "number" ? v.value : Number(v.value)
  if (!Number.isSafeInteger(num) || num < 0)
    reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  return num
}

/** Returns the [count node index] and checks every value. */
const limitValues = (limit: Node): { countIndex: number; values: Array<Node> } | undefined => {
  const values = limit?.value
  if (!Array.isArray(values) || values.length === 0) return undefined
  if (values.length > 2) reject("INVALID_LIMIT", "unsupported LIMIT")
  for (const v of values) limitNumber(v)
  const sep = limit.seperator
  const countIndex = values.length === 2 && sep === "," ? 1 : 0
  return { countIndex, values }
}

const enforceLimit = (head: Node, maxRows: number): { rowLimit: number; enforced: boolean } => {
  let target: Node
  let key: "limit" | "_limit"
  let last: Node = head
  while (last._next) last = last._next
  if (head._limit) {
    target = head
    key = "_limit"
  } else if (last === head) {
    target = head
    key = "limit"
  } else if (!last.parentheses_symbol) {
    target = last
    key = "limit"
  } else {
    target = head
    key = "_limit"
  }
  const current = limitValues(target[key])
  if (!current) {
    target[key] = { seperator: "", value: [{ type: "number", value: maxRows }] }
    return { rowLimit: maxRows, enforced: true }
  }
  const existing = limitNumber(current.values[current.countIndex])
  if (existing <= maxRows) {
    current.values[current.countIndex] = { type: "number", value: existing }
    return { rowLimit: existing, enforced: false }
  }
  current.values[current.countIndex] = { type: "number", value: maxRows }
  return { rowLimit: maxRows, enforced: true }
}

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
