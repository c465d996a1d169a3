/** JSON values: everything the canonical store, projections and audit carry must be one. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
/** A JSON object (string keys, JSON values). */
export type JsonObject = { readonly [key: string]: Json }

/**
 * UTF-8 byte length of a string (what budgets and limits count), lone surrogates counted as the
 * 3-byte replacement character as `TextEncoder` writes them. Counted without encoding: a
 * multi-megabyte raw response is not copied into a buffer just to be measured.
 */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * JSON texts already computed for objects, so that the text of a large value (a raw backend
 * response the ToolBoundary serialized to measure it) is reused by the store that writes it,
 * instead of serializing the value again. Weak: an entry lives as long as its object.
 */
const jsonTexts = new WeakMap<object, string>()

/** Remembers `text` as the JSON text of `value` (only objects; the caller computed it). */
export const rememberJsonText = (value: unknown, text: string): void => {
  if (value !== null && typeof value === "object") jsonTexts.set(value, text)
}

/** The JSON text remembered for `value`, if any. */
export const rememberedJsonText = (value: unknown): string | undefined =>
  value !== null && typeof value === "object" ? jsonTexts.get(value) : undefined

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
