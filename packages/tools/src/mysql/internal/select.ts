/** Statement level: WITH, set operations, one SELECT's clauses, FROM items. */
import { isSystemSchema } from "../allowlist.js"
import { choiceInfo, NEUTRAL } from "../provenance.js"
import {
  type AstNode,
  expectNode,
  field,
  findCaseInsensitive,
  identValue,
  isNode,
  listOf,
  lower,
  MAX_DEPTH,
  reject,
  typeOf,
  UNSUPPORTED_DETAIL
} from "./ast.js"
import { walkExpr, walkField, walkWindow } from "./expression.js"
import { infoOf } from "./info.js"
import { limitValues } from "./limit.js"
import { replaceChild, setField, type Walked } from "./rewrites.js"
import {
  type ClauseMode,
  type CteEnv,
  type Ctx,
  type ExprEnv,
  expandStar,
  type OutCol,
  pushSource,
  recordColumn,
  type Scope,
  type SelectAlias,
  type SetOutput,
  scopeFromTable,
  sourceHasColumn
} from "./scope.js"

/** A derived table or a CTE reference: a source named `name` with the columns its body returns. */
const pushDerived = (scope: Scope, name: string, body: SetOutput) =>
  pushSource(scope, {
    kind: "derived",
    key: lower(name),
    columns: body.columns,
    fromTable: body.fromTable,
    qualifier: { db: null, table: name }
  })

export const SELECT_KEYS: ReadonlySet<string> = new Set([
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

const JOINS: ReadonlySet<string> = new Set([
  "INNER JOIN",
  "JOIN",
  "LEFT JOIN",
  "LEFT OUTER JOIN",
  "RIGHT JOIN",
  "RIGHT OUTER JOIN",
  "CROSS JOIN",
  "STRAIGHT_JOIN"
])

const TABLE_HINT_KEYS = ["table_hint", "index_hint", "partition", "temporal_table", "tablesample"]

export const processWith = (node: AstNode, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): CteEnv => {
  const withList = node.with
  if (!Array.isArray(withList) || withList.length === 0) return ctes
  const env = new Map(ctes)
  for (const item of withList) {
    const cte = expectNode(item)
    if (cte.recursive) reject("RECURSIVE_CTE", "recursive CTEs are not allowed")
    const name = identValue(cte.name)
    if (!name) return reject("UNSUPPORTED_SYNTAX", "unsupported CTE name")
    const body = field(cte.stmt, "ast")
    if (!body) return reject("UNSUPPORTED_SYNTAX", "unsupported CTE body")
    const out = validateSetExpr(body, ctx, outer, env)
    let cols = out.columns
    if (Array.isArray(cte.columns) && cte.columns.length > 0) {
      const names: Array<string> = []
      for (const c of cte.columns) {
        const n = identValue(field(c, "column")) ?? identValue(c)
        if (typeof n !== "string") return reject("UNSUPPORTED_SYNTAX", "unsupported CTE column list")
        names.push(n)
      }
      cols = names.map((name, i) => ({ name, info: cols[i]?.info ?? NEUTRAL }))
    }
    env.set(lower(name), { name, columns: cols, fromTable: out.fromTable })
  }
  return env
}

/** Validates a SELECT possibly followed by set operations. Returns its output columns. */
export const validateSetExpr = (
  head: unknown,
  ctx: Ctx,
  outer: Scope | undefined,
  ctes: CteEnv
): SetOutput => {
  if (++ctx.depth > MAX_DEPTH) reject("UNSUPPORTED_SYNTAX", "query nesting is too deep")
  if (!isNode(head) || head.type !== "select")
    return reject("NOT_SELECT", "only SELECT statements are allowed")
  const env = processWith(head, ctx, outer, ctes)
  const branches: Array<SetOutput> = []
  for (let next: unknown = head; next; ) {
    if (!isNode(next) || next.type !== "select")
      return reject("NOT_SELECT", "only SELECT statements are allowed")
    const node = next
    if (node !== head && Array.isArray(node.with) && node.with.length > 0) {
      reject("UNSUPPORTED_SYNTAX", "WITH inside a set operation branch")
    }
    branches.push(validateSingleSelect(node, ctx, outer, env))
    if (node._next && typeof node.set_op !== "string")
      reject("UNSUPPORTED_SYNTAX", "unsupported set operation")
    next = node._next
  }
  const [first = { columns: [], fromTable: false }] = branches
  // A set operation's column holds rows of every branch: table data only if every branch's is.
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
    const orderEnv: ExprEnv = { ctx, scope: outScope, ctes: env, mode: "where", aliases: new Map() }
    for (const o of head._orderby) walkField(expectNode(o), "expr", orderEnv)
  }
  if (head._limit) limitValues(head._limit)
  ctx.depth--
  return result
}

/** A select-list item's output name: its alias, else the name of the column it renders. */
export const selectOutputName = (col: AstNode, walked: Walked): string | null => {
  const as = identValue(col.as)
  if (as !== undefined) return as
  if (typeOf(walked.node) === "column_ref")
    return walked.column ?? identValue(field(walked.node, "column")) ?? null
  return null
}

/** Rejects what a SELECT may not carry: unknown clauses, INTO, locking reads, modifiers. */
const checkSelectShape = (node: AstNode) => {
  for (const [k, v] of Object.entries(node)) {
    if (!SELECT_KEYS.has(k) && v !== null && v !== undefined)
      reject("UNSUPPORTED_SYNTAX", "unsupported SELECT clause")
  }
  const into = node.into
  if (into && (field(into, "type") || field(into, "keyword") || field(into, "expr"))) {
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
}

/** USING (a, b): each name must be a column of the joined table and of exactly one earlier table. */
const checkUsing = (using: ReadonlyArray<unknown>, scope: Scope, ctx: Ctx) => {
  const added = scope.sources[scope.sources.length - 1]
  for (const u of using) {
    const name = identValue(u)
    if (!name) return reject("UNSUPPORTED_SYNTAX", "unsupported USING clause")
    if (added === undefined) return reject("UNSUPPORTED_SYNTAX", UNSUPPORTED_DETAIL)
    if (!sourceHasColumn(added, name)) reject("COLUMN_NOT_ALLOWED", "column in USING is not allowed")
    const others = scope.sources.slice(0, -1).filter((s) => sourceHasColumn(s, name))
    const [other] = others
    if (others.length !== 1 || other === undefined)
      return reject("AMBIGUOUS_COLUMN", "USING column must match exactly one earlier table")
    for (const s of [added, other]) {
      const column = sourceHasColumn(s, name)
      if (s.kind === "table" && column !== undefined) recordColumn(ctx, s, column)
    }
  }
}

export const validateSingleSelect = (
  node: AstNode,
  ctx: Ctx,
  outer: Scope | undefined,
  ctes: CteEnv
): SetOutput => {
  checkSelectShape(node)
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
    for (const raw of node.from) {
      const item = addFromItem(raw, scope, ctx, outer, ctes)
      if (item.on) walkField(item, "on", env("where"))
      const using = listOf(item, "using")
      if (using) checkUsing(using, scope, ctx)
    }
  }

  // SELECT list (with star expansion)
  const columns = node.columns
  if (!Array.isArray(columns) || columns.length === 0)
    return reject("UNSUPPORTED_SYNTAX", "empty select list")
  const newColumns: Array<unknown> = []
  const outputs: Array<OutCol> = []
  const aliases = new Map<string, SelectAlias>()
  for (const raw of columns) {
    const e = field(raw, "expr")
    if (typeOf(e) === "column_ref" && identValue(field(e, "column")) === "*") {
      for (const expanded of expandStar(expectNode(e), scope, ctx)) {
        newColumns.push(expanded.node)
        outputs.push({ name: expanded.name, info: expanded.info })
      }
      continue
    }
    if (typeOf(e) === "star") reject("STAR_NOT_ALLOWED", "star is not allowed here")
    const walked = walkExpr(e, env("select"))
    const col = expectNode(raw)
    replaceChild(ctx.rewrites, col, "expr", walked)
    newColumns.push(col)
    outputs.push({ name: selectOutputName(col, walked), info: infoOf(ctx, walked.node) })
    const as = identValue(col.as)
    // MySQL/MariaDB bind a duplicated alias to its first occurrence.
    if (as !== undefined && !aliases.has(lower(as))) aliases.set(lower(as), { name: as, expr: walked.node })
  }
  setField(ctx.rewrites, node, "columns", newColumns)

  if (node.where) walkField(node, "where", env("where"))
  if (node.groupby) {
    const gb = node.groupby
    const items = listOf(gb, "columns")
    if (items) {
      items.forEach((c, i) => {
        const walked = walkExpr(c, env(bareName(c) !== undefined ? "group-item" : "group", aliases))
        replaceChild(ctx.rewrites, items, i, walked)
      })
    }
    const modifiers = listOf(gb, "modifiers")
    if (modifiers) {
      for (const raw of modifiers) {
        if (raw === null) continue
        const m = expectNode(raw)
        if (!(m.type === "origin" && lower(String(m.value)) === "with rollup")) {
          reject("UNSUPPORTED_SYNTAX", "unsupported GROUP BY modifier")
        }
      }
    }
  }
  if (node.having) walkField(node, "having", env("having", aliases))
  if (node.window) {
    const windows = listOf(node.window, "expr")
    if (typeOf(node.window) !== "window" || !windows)
      return reject("UNSUPPORTED_SYNTAX", "unsupported WINDOW clause")
    for (const w of windows) walkWindow(expectNode(w).as_window_specification, env("where"))
  }
  if (Array.isArray(node.orderby)) {
    for (const raw of node.orderby) {
      const o = expectNode(raw)
      // A bare ORDER BY name binds to a select-list alias first; render exactly that alias.
      const bare = bareName(o.expr)
      const alias = bare === undefined ? undefined : aliases.get(lower(bare))
      if (alias !== undefined)
        setField(ctx.rewrites, o, "expr", { type: "column_ref", table: null, column: alias.name })
      else walkField(o, "expr", env("order", aliases))
    }
  }
  if (node.limit) limitValues(node.limit)
  return { columns: outputs, fromTable: scopeFromTable(scope) }
}

const BARE_KEYS = ["type", "table", "db", "schema", "column", "collate", "options", "parentheses", "loc"]

/** The name when `n` is an unqualified column reference and nothing else (no COLLATE, no options). */
export const bareName = (n: unknown): string | undefined => {
  if (!isNode(n) || n.type !== "column_ref" || n.table || n.db || n.schema || n.collate || n.options)
    return undefined
  for (const k of Object.keys(n)) if (!BARE_KEYS.includes(k)) return undefined
  const name = identValue(n.column)
  return name === undefined || name === "*" ? undefined : name
}

/** Validates one FROM item and adds its row source to `scope`; returns the item. */
export const addFromItem = (
  raw: unknown,
  scope: Scope,
  ctx: Ctx,
  outer: Scope | undefined,
  ctes: CteEnv
): AstNode => {
  if (!isNode(raw)) return reject("UNSUPPORTED_SYNTAX", "unsupported FROM item")
  const item = raw
  if (item.type === "dual") return item
  if (item.join !== undefined && item.join !== null) {
    if (!JOINS.has(String(item.join).toUpperCase())) reject("UNSUPPORTED_SYNTAX", "unsupported join type")
  }
  for (const k of TABLE_HINT_KEYS) if (item[k]) reject("UNSUPPORTED_SYNTAX", "table hints are not allowed")
  const alias = identValue(item.as)
  if (item.expr) {
    if (item.prefix) reject("UNSUPPORTED_SYNTAX", "LATERAL derived tables are not allowed")
    const body = field(item.expr, "ast")
    if (!body) return reject("UNSUPPORTED_SYNTAX", "unsupported derived table")
    if (!alias) return reject("UNSUPPORTED_SYNTAX", "derived tables need an alias")
    pushDerived(scope, alias, validateSetExpr(body, ctx, outer, ctes))
    return item
  }
  const tableName = identValue(item.table)
  if (tableName === undefined) return reject("UNSUPPORTED_SYNTAX", "unsupported FROM item")
  const db = identValue(item.db) ?? identValue(item.schema) ?? null
  if (item.db && item.schema) reject("UNSUPPORTED_SYNTAX", "unsupported table reference")
  if (db === null) {
    const cte = ctes.get(lower(tableName))
    if (cte) {
      // Render the CTE's exact spelling so a case-sensitive server cannot bind a real table instead.
      setField(ctx.rewrites, item, "table", cte.name)
      pushDerived(scope, alias ?? cte.name, cte)
      return item
    }
  }
  if (db !== null && isSystemSchema(db)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
  const schemaEntry = findCaseInsensitive(ctx.datasource.schemas, db ?? ctx.datasource.defaultSchema)
  if (!schemaEntry) return reject("TABLE_NOT_ALLOWED", "schema is not allowed")
  const [schema, schemaDef] = schemaEntry
  const tableEntry = findCaseInsensitive(schemaDef.tables, tableName)
  if (!tableEntry) {
    if (isSystemSchema(tableName)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
    return reject("TABLE_NOT_ALLOWED", "table is not allowed")
  }
  const [table, def] = tableEntry
  // Canonicalize names so the server reads exactly the allowlisted table.
  setField(ctx.rewrites, item, "table", table)
  if (db !== null) setField(ctx.rewrites, item, item.db ? "db" : "schema", schema)
  ctx.tables.set(`${schema}\u0000${table}`, { schema, table })
  pushSource(scope, {
    kind: "table",
    key: lower(alias ?? table),
    schema,
    table,
    def,
    qualifier: alias ? { db: null, table: alias } : { db: db !== null ? schema : null, table },
    dbKey: alias || db === null ? null : lower(schema)
  })
  return item
}
