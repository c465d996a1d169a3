/** What validation learned about each expression node (provenance and size), by node identity. */
import { type ExprInfo, MAX_EXPRESSION_AMPLIFICATION, MAX_EXPRESSION_CHARS, NEUTRAL } from "../provenance.js"
import { reject } from "./ast.js"
import type { Ctx } from "./scope.js"
import type { Walked } from "./rewrites.js"

export const infoOf = (ctx: Ctx, n: unknown): ExprInfo =>
  n !== null && typeof n === "object" ? (ctx.info.get(n) ?? NEUTRAL) : NEUTRAL

/** Records `info` for `n` after checking the static size bound. */
export const withInfo = (ctx: Ctx, n: unknown, info: ExprInfo): void => {
  if (
    info.k > MAX_EXPRESSION_AMPLIFICATION ||
    info.c > MAX_EXPRESSION_CHARS ||
    !Number.isFinite(info.k + info.c)
  ) {
    reject("RESOURCE_LIMIT", "expression could produce too much output (size-amplifying functions)")
  }
  if (n !== null && typeof n === "object") ctx.info.set(n, info)
}

/** `n` validated in place (not replaced), with its info recorded. */
export const validated = (ctx: Ctx, n: unknown, info: ExprInfo): Walked => {
  withInfo(ctx, n, info)
  return { node: n, inlined: false }
}
