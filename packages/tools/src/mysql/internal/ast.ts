/**
 * The typed facade over node-sql-parser's AST (untyped upstream): nodes are `unknown` until a
 * guard or accessor below has checked their shape, and every unexpected shape fails closed with
 * a rejection. `reject` is typed `never`, so TypeScript narrows after it.
 */
import type { MysqlRejectionReason } from "../errors.js"

/** Thrown by {@link reject} inside a validation pass; turned into `MysqlQueryRejected` at the entry. */
export class Reject {
  constructor(
    readonly reason: MysqlRejectionReason,
    readonly detail: string
  ) {}
}

export function reject(reason: MysqlRejectionReason, detail: string): never {
  throw new Reject(reason, detail)
}

/** Detail of a shape the validator does not know (what a parser-produced node never looks like). */
export const UNSUPPORTED_DETAIL = "statement uses unsupported syntax"

/** An AST node: any object (node-sql-parser nodes, their arrays), read through the accessors below. */
export type AstNode = { readonly [key: string]: unknown }

export const isNode = (x: unknown): x is AstNode => typeof x === "object" && x !== null

/** The node itself, or an `UNSUPPORTED_SYNTAX` rejection when `x` is not an object. */
export const expectNode = (x: unknown): AstNode =>
  isNode(x) ? x : reject("UNSUPPORTED_SYNTAX", UNSUPPORTED_DETAIL)

/** `x?.[key]` */
export const field = (x: unknown, key: string): unknown => (isNode(x) ? x[key] : undefined)

/** `x?.type` */
export const typeOf = (x: unknown): unknown => field(x, "type")

/** `x?.[key]` when it is a node. */
export const child = (x: unknown, key: string): AstNode | undefined => {
  const v = field(x, key)
  return isNode(v) ? v : undefined
}

/** `x?.[key]` when it is an array. */
export const listOf = (x: unknown, key: string): ReadonlyArray<unknown> | undefined => {
  const v = field(x, key)
  return Array.isArray(v) ? v : undefined
}

/** The items `for (const v of x)` visits (a string's characters); anything else is unsupported syntax. */
export const iterate = (x: unknown): ReadonlyArray<unknown> =>
  Array.isArray(x) ? x : typeof x === "string" ? [...x] : reject("UNSUPPORTED_SYNTAX", UNSUPPORTED_DETAIL)

/** `x` as an array to map over; anything else is unsupported syntax. */
export const arrayOf = (x: unknown): ReadonlyArray<unknown> =>
  Array.isArray(x) ? x : reject("UNSUPPORTED_SYNTAX", UNSUPPORTED_DETAIL)

/** Truthy like JavaScript's `if (x)`. */
export const truthy = (x: unknown): boolean => Boolean(x)

/** Present: neither null nor undefined. */
export const present = (x: unknown): boolean => x !== null && x !== undefined

// ---------------------------------------------------------------------------------------------
// Name helpers

export const identValue = (x: unknown): string | undefined => {
  if (typeof x === "string") return x
  const value = field(x, "value")
  if (typeof value === "string") return value
  const inner = field(field(x, "expr"), "value")
  if (truthy(field(x, "expr")) && typeof inner === "string") return inner
  return undefined
}
export const lower = (s: string) => s.toLowerCase()

export const findCaseInsensitive = <T>(record: Record<string, T>, name: string): [string, T] | undefined => {
  if (Object.hasOwn(record, name)) return [name, record[name] as T]
  const l = lower(name)
  for (const [k, v] of Object.entries(record)) if (lower(k) === l) return [k, v]
  return undefined
}

/** Deepest accepted nesting of queries (expressions: four times this). */
export const MAX_DEPTH = 64
