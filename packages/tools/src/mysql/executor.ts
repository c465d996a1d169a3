import { jsonBytes, utf8Bytes } from "@aiops-harness/core"
import {
  classifyDriverError,
  make as makeMysqlClient,
  type MysqlBreakerView,
  type MysqlConnection,
  MysqlError
} from "@aiops-harness/mysql"
import { Context, Effect, Layer, type Redacted } from "effect"
import mysql from "mysql2/promise"
import { MysqlExecutionError, type MysqlExecutionErrorCode } from "./errors.js"
import { checkGrants } from "./grants.js"
import type { MysqlColumnOrigin } from "./provenance.js"
import { isIssuedMysqlQueryPlan, type MysqlQueryPlan } from "./validator.js"

/** Configuration of the read-only executor (connection and limits). */
export interface MysqlReadOnlyExecutorConfig {
  /** mysql://user:password@host:port (plain or `Redacted`) — production should use a SELECT-only user. */
  readonly url: string | Redacted.Redacted<string>
  readonly connectTimeoutMs: number
  /** Server-side statement time limit (MariaDB max_statement_time / MySQL MAX_EXECUTION_TIME). */
  readonly statementTimeoutMs: number
  /** Hard cap on returned rows, applied on top of the plan's LIMIT. */
  readonly maxRows: number
  /** datasource name (as in the allowlist) -> database to `USE` before running a plan. */
  readonly databases: Readonly<Record<string, string>>
  /** Pool size, default 4. */
  readonly connectionLimit?: number
  /** Observability hook: called with every statement sent to the server (including session setup). */
  readonly onStatement?: (sql: string) => void
  /**
   * Cap on the bytes of one result (sum of cell sizes as received). Above it the executor stops
   * reading, drops the connection and fails with `RESULT_TOO_LARGE`. Default 1 MiB.
   */
  readonly maxResultBytes?: number
  /**
   * Default false: at startup the executor reads `SHOW GRANTS` and refuses (`UNSAFE_PRIVILEGES`) a
   * user that can write, has FILE or any global privilege, or can read the `mysql` schema.
   * Set true only for tests that must run as an administrator.
   */
  readonly allowPrivilegedUser?: boolean
  /**
   * Circuit breaker of the executor's connections (default: opens after 3 consecutive connection
   * failures or timeouts, probes after 1000 ms). While open, `execute` fails at once with
   * `CIRCUIT_OPEN`; a server error (`SERVER_ERROR`) does not count against the server.
   */
  readonly breaker?: {
    readonly failureThreshold?: number
    readonly resetAfterMs?: number
    readonly openAfterQuietMs?: number
  }
}

/** Default {@link MysqlReadOnlyExecutorConfig.maxResultBytes}. */
export const DEFAULT_MAX_RESULT_BYTES = 1_048_576

/** `group_concat_max_len` pinned per session (MariaDB's default is 1 MiB per group). */
export const PINNED_GROUP_CONCAT_MAX_LEN = 16_384

/** One cell value of a query result. */
export type MysqlCell = number | string | boolean | null

/** One column of a query result. */
export interface MysqlResultColumn {
  /** Key of this column in each row (duplicate names get a `_2`, `_3`, ... suffix). */
  readonly name: string
  /** mysql2 wire type name, e.g. LONG, LONGLONG, NEWDECIMAL, VAR_STRING, DATETIME, TINY. */
  readonly type: string
  /**
   * Provenance from the validated plan: `table` cells are table data, `mixed` combine it with
   * statement literals, `literal` cells were written by the statement. Only `table` is evidence.
   */
  readonly origin: MysqlColumnOrigin
}

/** Result of one read-only query: columns, rows and whether the row cap was hit. */
export interface MysqlQueryResult {
  readonly columns: Array<MysqlResultColumn>
  readonly rows: Array<Record<string, MysqlCell>>
  readonly rowCount: number
  /** True when the row cap was hit: more rows may exist. */
  readonly truncated: boolean
}

/** Operations of the `MysqlReadOnlyExecutor` service. */
export interface MysqlReadOnlyExecutorShape {
  /** Runs one validated query plan read-only. */
  readonly execute: (plan: MysqlQueryPlan) => Effect.Effect<MysqlQueryResult, MysqlExecutionError>
  /**
   * The circuit breaker of the executor's connections (named `query-mysql`), read-only: its
   * state and counters, e.g. for metrics. `makeMysqlReadOnlyExecutor` always sets it;
   * an executor without a breaker (a test double) leaves it out.
   */
  readonly breaker?: MysqlBreakerView
}

/**
 * Runs validated {@link MysqlQueryPlan}s (and nothing else) inside `START TRANSACTION READ ONLY`
 * with a server-side statement timeout, a pinned sql_mode, and an unconditional ROLLBACK.
 */
export class MysqlReadOnlyExecutor extends Context.Service<
  MysqlReadOnlyExecutor,
  MysqlReadOnlyExecutorShape
>()("@aiops-harness/tools/MysqlReadOnlyExecutor") {
  /** The executor over a pool built from the config (see `makeMysqlReadOnlyExecutor`), as a layer. */
  static readonly layer = (
    config: MysqlReadOnlyExecutorConfig
  ): Layer.Layer<MysqlReadOnlyExecutor, MysqlExecutionError> =>
    Layer.effect(MysqlReadOnlyExecutor, makeMysqlReadOnlyExecutor(config))
}

/**
 * sql_mode pinned for every plan: the validator's normalized SQL assumes default MySQL lexing
 * (double quotes are strings, backslash escapes in strings), so ANSI_QUOTES and
 * NO_BACKSLASH_ESCAPES must be off.
 */
export const PINNED_SQL_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

const TYPE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(mysql.Types as unknown as Record<string, number>).map(([name, code]) => [code, name])
)

const MAX_SAFE_DECIMAL_DIGITS = 15

/** DECIMAL text -> number when it round-trips without precision loss, else the exact string. */
const decimalValue = (s: string): number | string => {
  let digits = 0
  for (const c of s) if (c >= "0" && c <= "9") digits++
  const n = Number(s)
  return Number.isFinite(n) && digits <= MAX_SAFE_DECIMAL_DIGITS ? n : s
}

const integerValue = (s: string): number | string => {
  const n = Number(s)
  return Number.isSafeInteger(n) ? n : s
}

/** 'YYYY-MM-DD HH:MM:SS[.ffffff]' -> ISO 8601; TIMESTAMPs are UTC (session time_zone is +00:00). */
const isoDateTime = (s: string, utc: boolean): string => {
  if (s.startsWith("0000-00-00")) return s
  return s.replace(" ", "T") + (utc ? "Z" : "")
}

const typeCast = (field: any, next: () => unknown): unknown => {
  switch (field.type) {
    case "DECIMAL":
    case "NEWDECIMAL": {
      const s = field.string("ascii")
      return s === null ? null : decimalValue(s)
    }
    case "LONGLONG": {
      const s = field.string("ascii")
      return s === null ? null : integerValue(s)
    }
    case "DATETIME":
    case "DATETIME2":
    case "TIMESTAMP":
    case "TIMESTAMP2": {
      const s = field.string("ascii")
      return s === null ? null : isoDateTime(s, field.type.startsWith("TIMESTAMP"))
    }
    case "DATE":
    case "NEWDATE":
    case "TIME":
    case "TIME2":
    case "YEAR": {
      const s = field.string("ascii")
      if (s === null) return null
      return field.type === "YEAR" ? Number(s) : s
    }
    case "JSON":
      return field.string("utf8")
    case "BIT": {
      const b: Buffer | null = field.buffer()
      if (b === null) return null
      let v = 0n
      for (const byte of b) v = (v << 8n) | BigInt(byte)
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()
    }
    case "GEOMETRY": {
      const b: Buffer | null = field.buffer()
      return b === null ? null : `0x${b.toString("hex")}`
    }
    default:
      return next()
  }
}

const toCell = (v: unknown): MysqlCell => {
  if (v === null || v === undefined) return null
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v)
  if (typeof v === "string" || typeof v === "boolean") return v
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (Buffer.isBuffer(v)) return `0x${v.toString("hex")}`
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString()
  return JSON.stringify(v)
}

const EXECUTION_CODES: Record<MysqlError["reason"], MysqlExecutionErrorCode> = {
  CONNECT: "CONNECTION_FAILED",
  ACCESS_DENIED: "CONNECTION_FAILED",
  TIMEOUT: "TIMEOUT",
  QUERY: "SERVER_ERROR",
  CIRCUIT_OPEN: "CIRCUIT_OPEN",
  INVALID_CONFIG: "INVALID_CONFIG"
}

/** The executor's stable code for a client error (`@aiops-harness/mysql` classifies the driver's). */
const toExecutionError = (error: MysqlError): MysqlExecutionError =>
  new MysqlExecutionError({
    code: EXECUTION_CODES[error.reason],
    serverCode: error.code,
    serverErrno: error.errno,
    internalMessage: error.message
  })

const quoteIdentifier = (name: string) => "`" + name.replaceAll("`", "``") + "`"

/** Bytes one received cell counts against `maxResultBytes`. */
const cellBytes = (v: unknown): number => {
  if (v === null || v === undefined) return 4
  if (typeof v === "string") return utf8Bytes(v)
  if (Buffer.isBuffer(v)) return v.length * 2 + 2
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return 8
  return jsonBytes(v)
}

class ResultTooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`result exceeds the byte cap after ${bytes} bytes`)
  }
}

/**
 * Streams one statement's rows, counting bytes as they arrive; over `maxBytes` it stops reading
 * (the caller destroys the connection) and rejects with {@link ResultTooLarge}.
 */
const streamRows = (
  conn: mysql.PoolConnection,
  options: { sql: string; timeout: number; maxBytes: number }
): Promise<{ rows: Array<Array<unknown>>; fields: Array<mysql.FieldPacket> }> =>
  new Promise((resolve, reject) => {
    const rows: Array<Array<unknown>> = []
    let fields: Array<mysql.FieldPacket> = []
    let bytes = 0
    let done = false
    const core = (conn as unknown as { connection: any }).connection
    const query = core.query({ sql: options.sql, rowsAsArray: true, timeout: options.timeout })
    query.on("fields", (f: Array<mysql.FieldPacket>) => {
      fields = f
    })
    query.on("result", (row: Array<unknown>) => {
      if (done) return
      for (const v of row) bytes += cellBytes(v)
      if (bytes > options.maxBytes) {
        done = true
        // Stop reading: nothing more is buffered; the connection is destroyed by the caller.
        core.pause?.()
        reject(new ResultTooLarge(bytes))
        return
      }
      rows.push(row)
    })
    query.on("error", (e: unknown) => {
      if (done) return
      done = true
      reject(e)
    })
    query.on("end", () => {
      if (done) return
      done = true
      resolve({ rows, fields })
    })
  })

type Flavor = "mariadb" | "mysql"

/** Builds the executor; the pool is a scoped resource closed with `pool.end()`. */
export const makeMysqlReadOnlyExecutor = Effect.fnUntraced(function* (config: MysqlReadOnlyExecutorConfig) {
  const invalid = (message: string) =>
    Effect.fail(new MysqlExecutionError({ code: "INVALID_CONFIG", internalMessage: message }))
  if (!Number.isSafeInteger(config.maxRows) || config.maxRows < 0)
    return yield* invalid("maxRows must be >= 0")
  if (!(config.statementTimeoutMs > 0)) return yield* invalid("statementTimeoutMs must be > 0")
  if (!(config.connectTimeoutMs > 0)) return yield* invalid("connectTimeoutMs must be > 0")
  const maxResultBytes = config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES
  if (!(Number.isSafeInteger(maxResultBytes) && maxResultBytes > 0))
    return yield* invalid("maxResultBytes must be a positive integer")

  const client = yield* makeMysqlClient({
    url: config.url,
    name: "query-mysql",
    connectTimeoutMs: config.connectTimeoutMs,
    // Session setup only: the plan itself has its own backstop below.
    queryTimeoutMs: config.statementTimeoutMs + 5000,
    connectionLimit: config.connectionLimit ?? 4,
    ...(config.breaker ? { breaker: config.breaker } : {}),
    ...(config.onStatement ? { onStatement: config.onStatement } : {}),
    driver: {
      waitForConnections: true,
      multipleStatements: false,
      supportBigNumbers: true,
      bigNumberStrings: false,
      decimalNumbers: false,
      dateStrings: true,
      jsonStrings: true,
      // Pinned: the validator's literal rules assume a charset without 0x5C trail bytes.
      charset: "UTF8MB4_UNICODE_CI",
      typeCast
    }
  }).pipe(Effect.mapError(toExecutionError))

  if (config.allowPrivilegedUser !== true) {
    // Least privilege is checked, not assumed: refuse to start with a user that could write or
    // read what the allowlist cannot see.
    const grants = yield* client
      .withConnection((c) => c.query<Array<Record<string, unknown>>>("SHOW GRANTS"))
      .pipe(
        Effect.map((rows) => rows.map((r) => String(Object.values(r)[0] ?? ""))),
        Effect.mapError(toExecutionError)
      )
    const problems = checkGrants(grants)
    if (problems.length > 0)
      return yield* Effect.fail(
        new MysqlExecutionError({
          code: "UNSAFE_PRIVILEGES",
          internalMessage: `the query user must have only SELECT on the allowlisted schemas; refused: ${problems.join("; ")}`
        })
      )
  }

  let flavor: Flavor | undefined
  const statementSeconds = Math.max(config.statementTimeoutMs / 1000, 0.001)

  /** Session setup, then the plan streamed under the byte cap, inside a read-only transaction. */
  const run = (conn: MysqlConnection, plan: MysqlQueryPlan, database: string) =>
    Effect.gen(function* () {
      if (flavor === undefined) {
        const rows = yield* conn.query<Array<{ v?: unknown }>>("SELECT VERSION() AS v")
        flavor = String(rows[0]?.v ?? "").includes("MariaDB") ? "mariadb" : "mysql"
      }
      yield* conn.query(
        `SET SESSION sql_mode = '${PINNED_SQL_MODE}', time_zone = '+00:00', group_concat_max_len = ${PINNED_GROUP_CONCAT_MAX_LEN}`
      )
      yield* conn.query(
        flavor === "mariadb"
          ? `SET SESSION max_statement_time = ${statementSeconds.toFixed(3)}`
          : `SET SESSION max_execution_time = ${Math.max(1, Math.ceil(config.statementTimeoutMs))}`
      )
      yield* conn.query(`USE ${quoteIdentifier(database)}`)
      yield* conn.query("START TRANSACTION READ ONLY")
      config.onStatement?.(plan.sql)
      return yield* Effect.tryPromise({
        try: () =>
          streamRows(conn.raw, {
            sql: plan.sql,
            // Client-side backstop in case the server ignores the statement limit.
            timeout: config.statementTimeoutMs + 5000,
            maxBytes: maxResultBytes
          }),
        // Too large: not a MysqlError, so the client destroys the half-read connection.
        catch: (e) =>
          e instanceof ResultTooLarge
            ? new MysqlExecutionError({ code: "RESULT_TOO_LARGE", internalMessage: e.message })
            : classifyDriverError(e, "query")
      })
    })

  const execute = (plan: MysqlQueryPlan): Effect.Effect<MysqlQueryResult, MysqlExecutionError> =>
    Effect.gen(function* () {
      if (!isIssuedMysqlQueryPlan(plan)) {
        return yield* Effect.fail(
          new MysqlExecutionError({
            code: "PLAN_NOT_VALIDATED",
            internalMessage: "plan was not produced by validateMysqlQuery (or was copied)"
          })
        )
      }
      const database = Object.hasOwn(config.databases, plan.datasource)
        ? config.databases[plan.datasource]
        : undefined
      if (database === undefined) {
        return yield* Effect.fail(
          new MysqlExecutionError({
            code: "UNKNOWN_DATASOURCE",
            internalMessage: "no database mapped for datasource"
          })
        )
      }
      // Released only after success or a server error, and after an unconditional ROLLBACK.
      const { rows, fields } = yield* client
        .withConnection((conn) => run(conn, plan, database), {
          reset: (conn) => Effect.asVoid(conn.query("ROLLBACK"))
        })
        .pipe(Effect.mapError((e) => (e instanceof MysqlError ? toExecutionError(e) : e)))
      const list = Array.isArray(rows) ? (rows as Array<Array<unknown>>) : []
      const fieldList = (Array.isArray(fields) ? fields : []) as Array<mysql.FieldPacket>
      const seen = new Map<string, number>()
      // The plan's output columns are the result's, in order; any mismatch -> nothing is evidence.
      const origins =
        plan.outputColumns.length === fieldList.length ? plan.outputColumns.map((o) => o.origin) : undefined
      const columns: Array<MysqlResultColumn> = fieldList.map((f, i) => {
        const count = (seen.get(f.name) ?? 0) + 1
        seen.set(f.name, count)
        const name = count === 1 ? f.name : `${f.name}_${count}`
        const code = f.columnType ?? f.type
        return {
          name,
          type: (code !== undefined ? TYPE_NAMES[code] : undefined) ?? "UNKNOWN",
          origin: origins?.[i] ?? "literal"
        }
      })
      const cap = Math.min(plan.rowLimit, config.maxRows)
      const truncated =
        list.length > cap || (plan.limitEnforced && list.length >= plan.rowLimit && list.length > 0)
      const out = list.slice(0, cap).map((values) => {
        const record: Record<string, MysqlCell> = {}
        columns.forEach((c, i) => {
          record[c.name] = toCell(values[i])
        })
        return record
      })
      return { columns, rows: out, rowCount: out.length, truncated }
    })

  return MysqlReadOnlyExecutor.of({ execute, breaker: client.breaker })
})
