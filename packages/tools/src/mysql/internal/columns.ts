/** Column references: resolved through the scopes to exactly one allowlisted or derived column. */
import { isSystemSchema } from "../allowlist.js"
import { type AstNode, field, identValue, lower, reject } from "./ast.js"
import { infoOf, validated, withInfo } from "./info.js"
import { setField, type Walked } from "./rewrites.js"
import {
  type ExprEnv,
  findQualified,
  recordColumn,
  type Scope,
  sourceColumnInfo,
  sourceHasColumn
} from "./scope.js"

/**
 * An unquoted number in exponent notation without a decimal point (`1e1`, `2E`) is read by
 * node-sql-parser as a column name: report a parse problem, not a forbidden column.
 */
export const EXPONENT_QUIRK = /^[0-9]+e[0-9]*$/i

export const qualifierCaseConflict = (env: ExprEnv, found: Scope, qualifier: string): boolean => {
  // A server with case-sensitive aliases (lower_case_table_names=0) would skip a source whose
  // spelling differs and bind an exactly spelled one further out: refuse instead of guessing.
  for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
    if (scope === found) continue
    if (scope.sources.some((s) => s.qualifier.table === qualifier)) return true
  }
  return false
}

/**
 * Renders a resolved column with the spelling it resolved to (the allowlist's, or the derived
 * column's), so the server never compares a different spelling (case, Unicode case folding such
 * as the Kelvin sign) than the validator did.
 */
const setColumnName = (env: ExprEnv, ref: AstNode, canonical: string) => {
  const inner = field(ref.column, "expr")
  if (typeof ref.column === "string") setField(env.ctx.rewrites, ref, "column", canonical)
  else if (inner !== null && typeof inner === "object" && typeof field(inner, "value") === "string")
    setField(env.ctx.rewrites, inner, "value", canonical)
  else reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
}

export const resolveColumn = (ref: AstNode, env: ExprEnv): Walked => {
  const column = identValue(ref.column)
  if (column === undefined) return reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  if (column === "*") reject("STAR_NOT_ALLOWED", "star is not allowed here")
  if (ref.options) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const qualifier = ref.table === null || ref.table === undefined ? undefined : identValue(ref.table)
  if (ref.table && qualifier === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const db = identValue(ref.db) ?? identValue(ref.schema)
  if (db !== undefined && isSystemSchema(db)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
  const rewrites = env.ctx.rewrites
  if (qualifier !== undefined) {
    for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
      const s = findQualified(scope.sources, qualifier, db)
      if (!s) continue
      const canonical = sourceHasColumn(s, column)
      if (!canonical) return reject("COLUMN_NOT_ALLOWED", "column is not allowed")
      if (s.qualifier.table !== qualifier && qualifierCaseConflict(env, scope, qualifier)) {
        reject("AMBIGUOUS_COLUMN", "table qualifier differs in case from its alias; spell it exactly")
      }
      if (s.kind === "table") recordColumn(env.ctx, s, canonical)
      // Render exactly the qualifier the validator resolved, so the server binds the same source.
      setField(rewrites, ref, "table", s.qualifier.table)
      if (db !== undefined) setField(rewrites, ref, ref.db ? "db" : "schema", s.qualifier.db)
      setColumnName(env, ref, canonical)
      return { ...validated(env.ctx, ref, sourceColumnInfo(s, canonical)), column: canonical }
    }
    if (isSystemSchema(qualifier)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
    return reject("COLUMN_NOT_ALLOWED", "unknown table qualifier")
  }
  const alias = env.aliases.get(lower(column))
  const matches = env.scope.sources.filter((s) => sourceHasColumn(s, column))
  if (matches.length > 1) reject("AMBIGUOUS_COLUMN", "unqualified column matches several tables; qualify it")
  const [match] = matches
  if (match !== undefined) {
    const canonical = sourceHasColumn(match, column)
    if (canonical === undefined) return reject("COLUMN_NOT_ALLOWED", "column is not allowed")
    if (match.kind === "table") recordColumn(env.ctx, match, canonical)
    setColumnName(env, ref, canonical)
    return { ...validated(env.ctx, ref, sourceColumnInfo(match, canonical)), column: canonical }
  }
  if (alias !== undefined) {
    if (env.mode === "having" || env.mode === "group-item") {
      // Inline the aliased expression: MySQL resolves GROUP BY/HAVING names against table columns
      // first, so leaving the alias could bind to a hidden column of the same name.
      withInfo(env.ctx, alias.expr, infoOf(env.ctx, alias.expr))
      return { node: alias.expr, inlined: true }
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
  if (EXPONENT_QUIRK.test(column)) {
    reject("PARSE_ERROR", "exponent numbers need a decimal point (1.0e1) or must be written in full")
  }
  for (let scope = env.scope.parent; scope; scope = scope.parent) {
    if (scope.sources.some((s) => sourceHasColumn(s, column))) {
      reject("AMBIGUOUS_COLUMN", "outer column references must be qualified")
    }
  }
  return reject("COLUMN_NOT_ALLOWED", "column is not allowed")
}
