import { deflateRawSync, inflateRawSync } from "node:zlib"

/**
 * How a record is laid out in Redis. A record's JSON text is stored as is, unless it is a terminal
 * record (READY/ERROR) whose JSON is larger than the compression threshold: then it is stored as
 *
 *   `\0Z1:<STATUS>\n` + raw DEFLATE (node:zlib, level 1) of the UTF-8 JSON
 *
 * The header starts with a NUL byte, which no JSON text does, so a reader tells the two apart
 * from the first byte; the status in clear lets the transition script refuse a second transition
 * without inflating anything. PROJECTING records (small: request only) are never compressed, so
 * the script only ever JSON-decodes a small value.
 */
export const COMPRESSED_MAGIC = "\u0000Z1:"

/** DEFLATE level: 1 (fastest). Large raw responses are JSON logs and rows: they shrink well even so. */
export const COMPRESSION_LEVEL = 1

/**
 * The value to store for a record's JSON text (or its UTF-8 bytes). `status` is the record's status; `bytes` its UTF-8
 * length when the caller already counted it (counted here otherwise).
 */
export const encodeStored = (
  json: string | Buffer,
  options: { readonly status: string; readonly compressAboveBytes: number; readonly bytes?: number }
): string | Buffer => {
  const { status, compressAboveBytes } = options
  if (status === "PROJECTING" || (options.bytes ?? Buffer.byteLength(json, "utf8")) <= compressAboveBytes) {
    return json
  }
  const header = Buffer.from(`${COMPRESSED_MAGIC}${status}\n`, "latin1")
  return Buffer.concat([header, deflateRawSync(json, { level: COMPRESSION_LEVEL })])
}

/** The JSON text of a stored value, or `null` when a compressed value is damaged. */
export const decodeStored = (stored: Buffer): string | null => {
  if (stored.length === 0 || stored[0] !== 0) return stored.toString("utf8")
  const magic = Buffer.from(COMPRESSED_MAGIC, "latin1")
  if (stored.length < magic.length || !stored.subarray(0, magic.length).equals(magic)) return null
  const end = stored.indexOf(0x0a, magic.length)
  if (end < 0) return null
  try {
    return inflateRawSync(stored.subarray(end + 1)).toString("utf8")
  } catch {
    return null
  }
}
