/** Statement level: WITH, set operations, one SELECT's clauses, FROM items. */
import { isSystemSchema } from "./allowlist.js"
import { findCaseInsensitive, identValue, lower, MAX_DEPTH, type Node, reject } from "./ast.js"
import { infoOf, walkExpr, walkWindow } from "./expression.js"
import { limitValues } from "./limit.js"
import { choiceInfo, NEUTRAL } from "./provenance.js"
import {
  type ClauseMode,
  type CteEnv,
  type Ctx,
  type ExprEnv,
  expandStar,
  type OutCol,
  pushSource,
  type Scope,
  type SelectAlias,
  type SetOutput,
  scopeFromTable,
  sourceHasColumn,
  recordColumn
} from "./scope.js"

// ---------------------------------------------------------------------------------------------
// Statement level

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

export const processWith = (node: Node, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): CteEnv => {
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
export const validateSetExpr = (head: Node, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv): SetOutput => {
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

export const selectOutputName = (col: Node): string | null => {
  const as = identValue(col.as)
  if (as !== undefined) return as
  const e = col.expr
  if (e?.type === "column_ref") return identValue(e.column) ?? null
  return null
}

export const validateSingleSelect = (
  node: Node,
  ctx: Ctx,
  outer: Scope | undefined,
  ctes: CteEnv
): SetOutput => {
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
export const bareName = (n: Node): string | undefined => {
  if (n?.type !== "column_ref" || n.table || n.db || n.schema || n.collate || n.options) return undefined
  for (const k of Object.keys(n)) {
    if (!["type", "table", "db", "schema", "column", "collate", "options", "parentheses", "loc"].includes(k))
      return undefined
  }
  const name = identValue(n.column)
  return name === undefined || name === "*" ? undefined : name
}

export const addFromItem = (item: Node, scope: Scope, ctx: Ctx, outer: Scope | undefined, ctes: CteEnv) => {
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
