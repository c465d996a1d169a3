/**
 * The AST facade shared by the validator modules: node-sql-parser's untyped nodes, the
 * fail-closed `reject` (typed `never`, so TypeScript narrows after it) and name helpers.
 */
import type { MysqlRejectionReason } from "./errors.js"

/** Thrown by {@link reject} inside a validation pass; turned into `MysqlQueryRejected` at the entry. */
export class Reject {
  constructor(
    readonly reason: MysqlRejectionReason,
    readonly detail: string
  ) {}
}
export const reject = (reason: MysqlRejectionReason, detail: string): never => {
  throw new Reject(reason, detail)
}

/** node-sql-parser AST node (untyped upstream): every shape is checked before use, fail closed. */
export type Node = any

// ---------------------------------------------------------------------------------------------
// Name helpers

export const identValue = (x: unknown): string | undefined => {
  if (typeof x === "string") return x
  if (x && typeof x === "object" && typeof (x as any).value === "string") return (x as any).value
  if (x && typeof x === "object" && (x as any).expr && typeof (x as any).expr.value === "string") {
    return (x as any).expr.value
  }
  return undefined
}
export const lower = (s: string) => s.toLowerCase()

export const findCaseInsensitive = <T>(record: Record<string, T>, name: string): [string, T] | undefined => {
  if (Object.hasOwn(record, name)) return [name, record[name]!]
  const l = lower(name)
  for (const [k, v] of Object.entries(record)) if (lower(k) === l) return [k, v]
  return undefined
}

/** Deepest accepted nesting of queries (expressions: four times this). */
export const MAX_DEPTH = 64
