import { Data } from "effect"

/**
 * Why a MySQL call failed. `CONNECT`: no usable connection (refused, unreachable, reset, lost,
 * pool closed or full). `ACCESS_DENIED`: the server refused the credentials or the database.
 * `TIMEOUT`: no answer in time (client limit or server statement limit). `QUERY`: the server
 * refused the statement (syntax, unknown table, duplicate key); the connection is fine.
 * `CIRCUIT_OPEN`: the client's breaker refused the call without trying it. `INVALID_CONFIG`:
 * the options cannot make a client.
 */
export type MysqlErrorReason =
  | "CONNECT"
  | "ACCESS_DENIED"
  | "TIMEOUT"
  | "QUERY"
  | "CIRCUIT_OPEN"
  | "INVALID_CONFIG"

/** Where a driver error happened: getting a connection, or running a statement on one. */
export type MysqlErrorPhase = "connect" | "query"

/**
 * The one error of `@aiops-harness/mysql`. `message` is driver or server text: it may echo SQL
 * or data, so it is for logs only and never for a model.
 */
export class MysqlError extends Data.TaggedError("MysqlError")<{
  readonly reason: MysqlErrorReason
  readonly message: string
  /** Driver or server error code name (e.g. `ER_NO_SUCH_TABLE`, `ECONNREFUSED`) when supplied. */
  readonly code?: string | undefined
  /** Server error number (e.g. 1969, MariaDB statement timeout) when supplied. */
  readonly errno?: number | undefined
  /** SQLSTATE of a server error when supplied. */
  readonly sqlState?: string | undefined
  /** `CIRCUIT_OPEN`: when the breaker lets a probe through, in ms (0 while a probe is in flight). */
  readonly retryAfterMs?: number | undefined
  readonly cause?: unknown
}> {
  /** Whether the same call may succeed later: a down, slow or guarded server, not a wrong statement or config. */
  get isRetryable(): boolean {
    return this.reason === "CONNECT" || this.reason === "TIMEOUT" || this.reason === "CIRCUIT_OPEN"
  }
}

/** Whether a value is a `MysqlError`. */
export const isMysqlError = (u: unknown): u is MysqlError => u instanceof MysqlError

const ACCESS_DENIED_CODES: ReadonlySet<string> = new Set([
  "ER_ACCESS_DENIED_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "ER_ACCESS_DENIED_NO_PASSWORD_ERROR",
  "ER_HOST_NOT_PRIVILEGED"
])
const CONNECT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  // A TCP-level timeout (connect or socket) is an unreachable server, not a slow statement.
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "PROTOCOL_CONNECTION_LOST",
  "ER_CON_COUNT_ERROR",
  "ER_HOST_IS_BLOCKED"
])
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "ER_STATEMENT_TIMEOUT",
  "ER_QUERY_TIMEOUT",
  "PROTOCOL_SEQUENCE_TIMEOUT"
])
// 1969: MariaDB max_statement_time exceeded; 3024: MySQL MAX_EXECUTION_TIME exceeded.
const TIMEOUT_ERRNOS: ReadonlySet<number> = new Set([1969, 3024])

interface DriverErrorInfo {
  readonly code?: string
  readonly errno?: number
  readonly sqlState?: string
  readonly fatal?: boolean
  readonly message: string
}

const driverErrorInfo = (e: unknown): DriverErrorInfo => {
  if (e === null || typeof e !== "object") return { message: String(e) }
  const o = e as { code?: unknown; errno?: unknown; sqlState?: unknown; fatal?: unknown; message?: unknown }
  return {
    ...(typeof o.code === "string" ? { code: o.code } : {}),
    ...(typeof o.errno === "number" ? { errno: o.errno } : {}),
    ...(typeof o.sqlState === "string" ? { sqlState: o.sqlState } : {}),
    ...(typeof o.fatal === "boolean" ? { fatal: o.fatal } : {}),
    message: typeof o.message === "string" ? o.message : String(e)
  }
}

const reasonOf = (info: DriverErrorInfo, phase: MysqlErrorPhase): MysqlErrorReason => {
  if (
    (info.code !== undefined && TIMEOUT_CODES.has(info.code)) ||
    (info.errno !== undefined && TIMEOUT_ERRNOS.has(info.errno))
  )
    return "TIMEOUT"
  if (info.code !== undefined && ACCESS_DENIED_CODES.has(info.code)) return "ACCESS_DENIED"
  if (phase === "connect" || info.fatal === true) return "CONNECT"
  if (info.code !== undefined && CONNECT_CODES.has(info.code)) return "CONNECT"
  return "QUERY"
}

/**
 * The one classification of mysql2 errors: timeouts first (driver or server), then refused
 * credentials, then anything while connecting or that broke the connection (`fatal`) is
 * `CONNECT`; what remains is the server refusing the statement (`QUERY`). A `MysqlError` is
 * returned unchanged.
 */
export const classifyDriverError = (error: unknown, phase: MysqlErrorPhase): MysqlError => {
  if (error instanceof MysqlError) return error
  const info = driverErrorInfo(error)
  return new MysqlError({
    reason: reasonOf(info, phase),
    message: info.message,
    code: info.code,
    errno: info.errno,
    sqlState: info.sqlState,
    cause: error
  })
}

/**
 * The one connection-destroy rule: a connection goes back to the pool only after a success or
 * a `QUERY` error (the server answered, the connection is idle). A timed-out connection may
 * still be running its statement and a broken one is useless: they are destroyed.
 */
export const connectionReusableAfter = (error: unknown): boolean =>
  error instanceof MysqlError && error.reason === "QUERY"
