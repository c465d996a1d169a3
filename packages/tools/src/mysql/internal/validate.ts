/**
 * The validation step: checks a parsed statement against the allowlist without changing it, and
 * returns what it learned (tables, columns, result provenance, functions, literals, row limit)
 * with the rewrites the render step must apply.
 */
import type { MysqlAllowlist } from "../allowlist.js"
import type { ExprInfo } from "../provenance.js"
import type { Rewrites } from "./rewrites.js"
import { planLimit, type RowLimit } from "./limit.js"
import type { Ctx, OutCol } from "./scope.js"
import { validateSetExpr } from "./select.js"
import { expectNode } from "./ast.js"

/** A statement that passed validation, and what rendering it needs. */
export interface ValidatedStatement {
  /** The parsed statement, unchanged by validation. */
  readonly statement: unknown
  /** Changes the render step applies, in order. */
  readonly rewrites: Rewrites
  readonly tables: ReadonlyArray<{ readonly schema: string; readonly table: string }>
  readonly columns: ReadonlyArray<{
    readonly schema: string
    readonly table: string
    readonly column: string
  }>
  /** Result columns in order (stars expanded). */
  readonly outputs: ReadonlyArray<OutCol>
  readonly functions: ReadonlyArray<string>
  /** `type:value` of every literal, in order. */
  readonly literals: ReadonlyArray<string>
  readonly limit: RowLimit
}

/** Validates `statement` (throws `Reject`); the tree is left as parsed. */
export const validateStatement = (
  statement: unknown,
  datasource: MysqlAllowlist["datasources"][string],
  maxRows: number
): ValidatedStatement => {
  const rewrites: Rewrites = []
  const ctx: Ctx = {
    datasource,
    tables: new Map(),
    columns: new Map(),
    info: new WeakMap<object, ExprInfo>(),
    functions: [],
    literals: [],
    rewrites,
    validateSubquery: (ast, outer, ctes) => validateSetExpr(ast, ctx, outer, ctes),
    depth: 0
  }
  const out = validateSetExpr(statement, ctx, undefined, new Map())
  const limit = planLimit(expectNode(statement), maxRows, rewrites)
  return {
    statement,
    rewrites,
    tables: [...ctx.tables.values()],
    columns: [...ctx.columns.values()],
    outputs: out.columns,
    functions: ctx.functions,
    literals: ctx.literals,
    limit
  }
}
