import { ProjectionError } from "@aiops-harness/core"
import { parseStrict } from "./common.js"
import { type LogEntryRaw, type LogsResultRaw, LogsResultRawSchema } from "./schemas.js"

/**
 * Fast acceptance of a raw `query_logs` result: the common, well-formed shape is checked in one
 * loop (types, exact keys, timestamps parsed by hand) without building a copy of the entries.
 * Anything the fast path is not sure of goes to the zod schema, which gives the same verdict and
 * the same error detail as before. The fast path only accepts what the schema accepts.
 */

const TOP_KEYS = new Set(["source_kind", "scope", "entries", "total_matched"])
const ENTRY_KEYS = new Set(["timestamp", "level", "service", "message", "fields"])
const SCOPE_KEYS = new Set(["topic", "query", "service", "start_time", "end_time"])
const TOPICS = new Set(["application", "database_slow_query", "system_events", "system_metrics"])

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const hasOnlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean => {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}

/** A JSON value as `z.json()` accepts it (finite numbers, plain objects and arrays). */
const isJson = (value: unknown, depth: number): boolean => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true
  if (typeof value === "number") return Number.isFinite(value)
  if (depth > 64 || typeof value !== "object") return false
  if (Array.isArray(value)) {
    for (const item of value) if (!isJson(item, depth + 1)) return false
    return true
  }
  for (const key in value) if (!isJson((value as Record<string, unknown>)[key], depth + 1)) return false
  return true
}

const digit = (text: string, i: number): number => {
  const c = text.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : -100_000
}
const two = (text: string, i: number): number => digit(text, i) * 10 + digit(text, i + 1)

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm). */
const daysFromCivil = (y: number, m: number, d: number): number => {
  const yy = m <= 2 ? y - 1 : y
  const era = Math.floor(yy / 400)
  const yoe = yy - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/**
 * Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)` with a valid calendar date, or
 * NaN for anything else (the caller then asks the schema and `Date.parse`).
 */
export const parseIsoMillis = (text: string): number => {
  const n = text.length
  if (n < 20 || n > 35) return Number.NaN
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return Number.NaN
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return Number.NaN
  const year = two(text, 0) * 100 + two(text, 2)
  const month = two(text, 5)
  const day = two(text, 8)
  const hour = two(text, 11)
  const minute = two(text, 14)
  const second = two(text, 17)
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return Number.NaN
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return Number.NaN
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day > (month === 2 && leap ? 29 : DAYS[month - 1]!)) return Number.NaN
  let i = 19
  let millis = 0
  if (text.charCodeAt(i) === 46) {
    i++
    const start = i
    let scale = 100
    while (i < n && digit(text, i) >= 0) {
      millis += digit(text, i) * scale
      scale /= 10
      i++
    }
    if (i === start || i - start > 9) return Number.NaN
    millis = Math.floor(millis)
  }
  let offset = 0
  const z = text.charCodeAt(i)
  if (z === 90 && i + 1 === n) offset = 0
  else if ((z === 43 || z === 45) && i + 6 === n && text.charCodeAt(i + 3) === 58) {
    const oh = two(text, i + 1)
    const om = two(text, i + 4)
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return Number.NaN
    offset = (z === 43 ? 1 : -1) * (oh * 60 + om)
  } else return Number.NaN
  const days = daysFromCivil(year, month, day)
  return ((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + millis
}

const fastScope = (scope: unknown): boolean =>
  isPlainObject(scope) &&
  hasOnlyKeys(scope, SCOPE_KEYS) &&
  typeof scope.topic === "string" &&
  TOPICS.has(scope.topic) &&
  typeof scope.query === "string" &&
  (scope.service === null || typeof scope.service === "string") &&
  typeof scope.start_time === "string" &&
  !Number.isNaN(parseIsoMillis(scope.start_time)) &&
  typeof scope.end_time === "string" &&
  !Number.isNaN(parseIsoMillis(scope.end_time))

const fastEntry = (entry: unknown): entry is LogEntryRaw =>
  isPlainObject(entry) &&
  hasOnlyKeys(entry, ENTRY_KEYS) &&
  typeof entry.timestamp === "string" &&
  typeof entry.level === "string" &&
  typeof entry.service === "string" &&
  typeof entry.message === "string" &&
  (entry.fields === undefined || (isPlainObject(entry.fields) && isJson(entry.fields, 0)))

/** The accepted result and each entry's epoch milliseconds (time order comes from them). */
export interface AcceptedLogs {
  readonly raw: LogsResultRaw
  readonly millis: Float64Array
}

/**
 * Accepts a raw result: fast path, else the schema. A timestamp the schema accepts but
 * `Date.parse` cannot read fails as `entries.<i>.timestamp: invalid_date`.
 */
export const acceptLogs = (
  input: unknown,
  invalidDate: (index: number) => ProjectionError
): AcceptedLogs | ProjectionError => {
  const fast =
    isPlainObject(input) &&
    hasOnlyKeys(input, TOP_KEYS) &&
    typeof input.source_kind === "string" &&
    Number.isSafeInteger(input.total_matched) &&
    (input.total_matched as number) >= 0 &&
    fastScope(input.scope) &&
    Array.isArray(input.entries)
  let raw: LogsResultRaw | null = null
  let millis: Float64Array | null = null
  if (fast) {
    const entries = input.entries as unknown[]
    millis = new Float64Array(entries.length)
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]
      if (!fastEntry(entry)) {
        millis = null
        break
      }
      const t = parseIsoMillis(entry.timestamp)
      if (Number.isNaN(t)) {
        millis = null
        break
      }
      millis[i] = t
    }
    if (millis !== null) raw = input as unknown as LogsResultRaw
  }
  if (raw === null || millis === null) {
    const parsed = parseStrict(LogsResultRawSchema, input)
    if (parsed instanceof ProjectionError) return parsed
    raw = parsed
    millis = new Float64Array(parsed.entries.length)
    for (let i = 0; i < parsed.entries.length; i++) {
      const timestamp = parsed.entries[i]!.timestamp
      const fastT = parseIsoMillis(timestamp)
      const t = Number.isNaN(fastT) ? Date.parse(timestamp) : fastT
      if (Number.isNaN(t)) return invalidDate(i)
      millis[i] = t
    }
  }
  return { raw, millis }
}
