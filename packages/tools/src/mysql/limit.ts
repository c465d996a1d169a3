/** LIMIT: literal non-negative integers only; the enforced row limit. */
import { type Node, reject } from "./ast.js"

// ---------------------------------------------------------------------------------------------
// LIMIT

export const limitNumber = (v: Node): number => {
  if (v?.type === "origin" && v.value === "?")
    reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported")
  if (v?.type !== "number") reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  const num = typeof v.value === "number" ? v.value : Number(v.value)
  if (!Number.isSafeInteger(num) || num < 0)
    reject("INVALID_LIMIT", "LIMIT must be a non-negative integer literal")
  return num
}

/** Returns the [count node index] and checks every value. */
export const limitValues = (limit: Node): { countIndex: number; values: Array<Node> } | undefined => {
  const values = limit?.value
  if (!Array.isArray(values) || values.length === 0) return undefined
  if (values.length > 2) reject("INVALID_LIMIT", "unsupported LIMIT")
  for (const v of values) limitNumber(v)
  const sep = limit.seperator
  const countIndex = values.length === 2 && sep === "," ? 1 : 0
  return { countIndex, values }
}

export const enforceLimit = (head: Node, maxRows: number): { rowLimit: number; enforced: boolean } => {
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
