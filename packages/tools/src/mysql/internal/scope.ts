/** Scopes of a validated statement: row sources, their columns and what each column carries. */
import type { MysqlAllowlist, MysqlAllowlistTable } from "../allowlist.js"
import { type ExprInfo, NEUTRAL, TABLE_COLUMN } from "../provenance.js"
import { type AstNode, field, identValue, lower, reject } from "./ast.js"
import type { Rewrites } from "./rewrites.js"

// ---------------------------------------------------------------------------------------------
// Scopes

export interface BaseSource {
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
export interface OutCol {
  readonly name: string | null
  readonly info: ExprInfo
}

/** The output of a validated SELECT / set operation. */
export interface SetOutput {
  readonly columns: ReadonlyArray<OutCol>
  /** Some row source is an allowlisted table (so COUNT(*) and ROW_NUMBER() count table rows). */
  readonly fromTable: boolean
}

export interface DerivedSource {
  readonly kind: "derived"
  readonly key: string
  readonly columns: ReadonlyArray<OutCol>
  readonly fromTable: boolean
  readonly qualifier: { readonly db: null; readonly table: string }
}
export type Source = BaseSource | DerivedSource

export interface Scope {
  readonly sources: Array<Source>
  readonly parent: Scope | undefined
}

/** Lower-cased CTE name -> exact name and output columns. */
export type CteEnv = ReadonlyMap<
  string,
  { readonly name: string; readonly columns: ReadonlyArray<OutCol>; readonly fromTable: boolean }
>

export interface Ctx {
  readonly datasource: MysqlAllowlist["datasources"][string]
  readonly tables: Map<string, { schema: string; table: string }>
  readonly columns: Map<string, { schema: string; table: string; column: string }>
  /** Provenance and size of every validated expression node. */
  readonly info: WeakMap<object, ExprInfo>
  readonly functions: Array<string>
  /** `type:value` of every literal, in order (compared by the round-trip check). */
  readonly literals: Array<string>
  /** Changes the render step makes to the parsed tree, in order. */
  readonly rewrites: Rewrites
  /** Validates a subquery in `outer` (the statement level, injected to keep modules acyclic). */
  readonly validateSubquery: (ast: unknown, outer: Scope, ctes: CteEnv) => SetOutput
  depth: number
}

/**
 * Where an expression sits, which decides how select-list aliases may be used:
 * - `group-item` / `order-item`: the whole GROUP BY / ORDER BY item is one bare name;
 * - `group` / `order`: inside a GROUP BY / ORDER BY expression, where MySQL/MariaDB bind names to
 *   table columns (so an alias there could read a hidden column of the same name): rejected;
 * - `having`: aliases are inlined (their validated expression replaces the name).
 */
export type ClauseMode = "select" | "where" | "group" | "group-item" | "having" | "order"

export interface ExprEnv {
  readonly ctx: Ctx
  readonly scope: Scope
  readonly ctes: CteEnv
  readonly mode: ClauseMode
  /** Lower-cased select-list alias -> exact alias and validated expression (first one wins). */
  readonly aliases: ReadonlyMap<string, SelectAlias>
}

export interface SelectAlias {
  readonly name: string
  readonly expr: unknown
}

export const sourceHasColumn = (s: Source, column: string): string | undefined => {
  const l = lower(column)
  if (s.kind === "table") return s.def.columns.find((c) => lower(c) === l)
  const found = s.columns.find((c) => c.name !== null && lower(c.name) === l)
  return found?.name ?? undefined
}

/** What a column reference to `column` of `s` carries (a derived column keeps its expression's info). */
export const sourceColumnInfo = (s: Source, column: string): ExprInfo => {
  if (s.kind === "table") return TABLE_COLUMN
  const l = lower(column)
  return s.columns.find((c) => c.name !== null && lower(c.name) === l)?.info ?? NEUTRAL
}

export const scopeFromTable = (scope: Scope): boolean =>
  scope.sources.some((s) => s.kind === "table" || s.fromTable)

export const recordColumn = (ctx: Ctx, s: BaseSource, column: string) => {
  ctx.columns.set(`${s.schema}\u0000${s.table}\u0000${column}`, { schema: s.schema, table: s.table, column })
}

export const pushSource = (scope: Scope, source: Source) => {
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

/** A select-list item written by star expansion, and its output name. */
export interface ExpandedColumn {
  readonly node: AstNode
  readonly name: string
  readonly info: ExprInfo
}

export const expandStar = (ref: AstNode, scope: Scope, ctx: Ctx): Array<ExpandedColumn> => {
  const qualifier = identValue(field(ref, "table"))
  const db = identValue(field(ref, "db")) ?? identValue(field(ref, "schema"))
  let sources: Array<Source>
  if (qualifier === undefined) {
    if (scope.sources.length === 0) reject("STAR_NOT_ALLOWED", "star without a table")
    sources = scope.sources
  } else {
    const s = findQualified(scope.sources, qualifier, db)
    if (!s) return reject("COLUMN_NOT_ALLOWED", "unknown table qualifier")
    sources = [s]
  }
  const out: Array<ExpandedColumn> = []
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
          name: c,
          info: TABLE_COLUMN
        })
      }
    } else {
      for (const c of s.columns) {
        if (c.name === null) return reject("STAR_NOT_ALLOWED", "star over a derived column without a name")
        out.push({
          node: { expr: { type: "column_ref", table: s.qualifier.table, column: c.name }, as: null },
          name: c.name,
          info: c.info
        })
      }
    }
  }
  return out
}

export const findQualified = (
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
