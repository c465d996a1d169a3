/** LIMIT: literal non-negative integers only; the row limit the plan enforces. */
import { type AstNode, field, isNode, reject, typeOf } from "./ast.js"
import { type Rewrites, setField } from "./rewrites.js"

export const limitNumber = (v: unknown): number => {
  if (typeOf(v) === "origin" && field(v, "value") === "?")
    reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported")
  if (typeOf(v) !== "number") reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  const value = field(v, "value")
  const num = typeof value === "number" ? value : Number(value)
  if (!Number.isSafeInteger(num) || num < 0)
    reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  return num
}

/** A LIMIT clause's values (each checked) and which of them is the row count. */
export interface LimitValues {
  readonly countIndex: number
  readonly values: ReadonlyArray<unknown>
}

/** Checks every value of a LIMIT clause; undefined when there is none. */
export const limitValues = (limit: unknown): LimitValues | undefined => {
  const values = field(limit, "value")
  if (!Array.isArray(values) || values.length === 0) return undefined
  if (values.length > 2) reject("INVALID_LIMIT", "unsupported LIMIT")
  for (const v of values) limitNumber(v)
  const sep = field(limit, "seperator")
  const countIndex = values.length === 2 && sep === "," ? 1 : 0
  return { countIndex, values }
}

/** The row limit of a statement and whether the plan lowers or adds it. */
export interface RowLimit {
  readonly rowLimit: number
  readonly enforced: boolean
}

/**
 * Decides the LIMIT the plan renders (min(existing, maxRows), or maxRows when there is none) and
 * records the rewrite that writes it: on the statement, or on the last branch of a set operation
 * that is not parenthesized (where the parser keeps a trailing LIMIT).
 */
export const planLimit = (head: AstNode, maxRows: number, rewrites: Rewrites): RowLimit => {
  let last: AstNode = head
  for (let next = last._next; next; next = last._next) {
    if (!isNode(next)) return reject("UNSUPPORTED_SYNTAX", "statement uses unsupported syntax")
    last = next
  }
  let target: AstNode
  let key: "limit" | "_limit"
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
    setField(rewrites, target, key, { seperator: "", value: [{ type: "number", value: maxRows }] })
    return { rowLimit: maxRows, enforced: true }
  }
  const existing = limitNumber(current.values[current.countIndex])
  const rowLimit = Math.min(existing, maxRows)
  setField(rewrites, current.values, current.countIndex, { type: "number", value: rowLimit })
  return { rowLimit, enforced: existing > maxRows }
}
