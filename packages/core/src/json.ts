/** JSON values: everything the canonical store, projections and audit carry must be one. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = { readonly [key: string]: Json }

const encoder = new TextEncoder()

/** UTF-8 byte length of a string (what budgets and limits count). */
export const utf8Bytes = (text: string): number => encoder.encode(text).length

/** UTF-8 byte length of the JSON serialization of a value. */
export const jsonBytes = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? "")

/**
 * Serialization with sorted object keys: equal values give byte-identical text
 * (used for duplicate identity of normalized scopes).
 */
export const stableStringify = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`
}
