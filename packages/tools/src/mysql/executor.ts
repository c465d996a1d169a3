import { Context, Effect, Layer } from "effect"
import mysql from "mysql2/promise"
import { MysqlExecutionError, type MysqlExecutionErrorCode } from "./errors.js"
import { checkGrants } from "./grants.js"
import type { MysqlColumnOrigin } from "./provenance.js"
import { isIssuedMysqlQueryPlan, type MysqlQueryPlan } from "./validator.js"

/** Configuration of the read-only executor (connection and limits). */
export interface MysqlReadOnlyExecutorConfig {
  /** mysql://user:password@host:port — production should use a SELECT-only user. */
  readonly url: string
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

const errorInfo = (e: unknown): { code?: string; errno?: number; message: string; fatal?: boolean } => {
  if (e && typeof e === "object") {
    const o = e as { code?: unknown; errno?: unknown; message?: unknown; fatal?: unknown }
    return {
      ...(typeof o.code === "string" ? { code: o.code } : {}),
      ...(typeof o.errno === "number" ? { errno: o.errno } : {}),
      ...(typeof o.fatal === "boolean" ? { fatal: o.fatal } : {}),
      message: typeof o.message === "string" ? o.message : String(e)
    }
  }
  return { message: String(e) }
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "PROTOCOL_CONNECTION_LOST",
  "ER_ACCESS_DENIED_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "ER_CON_COUNT_ERROR",
  "ER_HOST_IS_BLOCKED",
  "ER_HOST_NOT_PRIVILEGED"
])
const TIMEOUT_CODES = new Set(["ER_STATEMENT_TIMEOUT", "ER_QUERY_TIMEOUT", "PROTOCOL_SEQUENCE_TIMEOUT"])
// 1969: MariaDB max_statement_time exceeded; 3024: MySQL MAX_EXECUTION_TIME exceeded.
const TIMEOUT_ERRNOS = new Set([1969, 3024])

const toExecutionError = (e: unknown, phase: "connect" | "query"): MysqlExecutionError => {
  const info = errorInfo(e)
  let code: MysqlExecutionErrorCode
  if (
    (info.code && TIMEOUT_CODES.has(info.code)) ||
    (info.errno !== undefined && TIMEOUT_ERRNOS.has(info.errno))
  ) {
    code = "TIMEOUT"
  } else if (phase === "connect" || (info.code && CONNECTION_CODES.has(info.code)) || info.fatal === true) {
    code = "CONNECTION_FAILED"
  } else {
    code = "SERVER_ERROR"
  }
  return new MysqlExecutionError({
    code,
    serverCode: info.code,
    serverErrno: info.errno,
    internalMessage: info.message
  })
}

const quoteIdentifier = (name: string) => "`" + name.replaceAll("`", "``") + "`"

/** Bytes one received cell counts against `maxResultBytes`. */
const cellBytes = (v: unknown): number => {
  if (v === null || v === undefined) return 4
  if (typeof v === "string") return Buffer.byteLength(v, "utf8")
  if (Buffer.isBuffer(v)) return v.length * 2 + 2
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return 8
  return Buffer.byteLength(JSON.stringify(v) ?? "", "utf8")
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

  const pool = yield* Effect.acquireRelease(
    Effect.try({
      try: () =>
        mysql.createPool({
          uri: config.url,
          connectTimeout: config.connectTimeoutMs,
          connectionLimit: config.connectionLimit ?? 4,
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
        }),
      catch: (e) => new MysqlExecutionError({ code: "INVALID_CONFIG", internalMessage: errorInfo(e).message })
    }),
    (p) => Effect.promise(() => p.end().catch(() => undefined))
  )

  if (config.allowPrivilegedUser !== true) {
    // Least privilege is checked, not assumed: refuse to start with a user that could write or
    // read what the allowlist cannot see.
    yield* Effect.tryPromise({
      try: async () => {
        const conn = await pool.getConnection()
        try {
          config.onStatement?.("SHOW GRANTS")
          const [rows] = await conn.query<mysql.RowDataPacket[]>({ sql: "SHOW GRANTS", rowsAsArray: true })
          return (rows as unknown as Array<Array<unknown>>).map((r) => String(r[0] ?? ""))
        } finally {
          conn.release()
        }
      },
      catch: (e) => toExecutionError(e, "connect")
    }).pipe(
      Effect.flatMap((grants) => {
        const problems = checkGrants(grants)
        return problems.length === 0
          ? Effect.void
          : Effect.fail(
              new MysqlExecutionError({
                code: "UNSAFE_PRIVILEGES",
                internalMessage: `the query user must have only SELECT on the allowlisted schemas; refused: ${problems.join("; ")}`
              })
            )
      })
    )
  }

  let flavor: Flavor | undefined
  const statementSeconds = Math.max(config.statementTimeoutMs / 1000, 0.001)
  const send = (conn: mysql.PoolConnection, sql: string) => {
    config.onStatement?.(sql)
    return conn.query(sql)
  }

  /** `reusable` becomes true once the connection is known to be idle and healthy again. */
  const run = (
    conn: mysql.PoolConnection,
    plan: MysqlQueryPlan,
    database: string,
    state: { reusable: boolean }
  ) =>
    Effect.tryPromise({
      try: async () => {
        if (flavor === undefined) {
          config.onStatement?.("SELECT VERSION() AS v")
          const [rows] = await conn.query<mysql.RowDataPacket[]>("SELECT VERSION() AS v")
          flavor = String(rows[0]?.v ?? "").includes("MariaDB") ? "mariadb" : "mysql"
        }
        await send(
          conn,
          `SET SESSION sql_mode = '${PINNED_SQL_MODE}', time_zone = '+00:00', group_concat_max_len = ${PINNED_GROUP_CONCAT_MAX_LEN}`
        )
        if (flavor === "mariadb") {
          await send(conn, `SET SESSION max_statement_time = ${statementSeconds.toFixed(3)}`)
        } else {
          await send(
            conn,
            `SET SESSION max_execution_time = ${Math.max(1, Math.ceil(config.statementTimeoutMs))}`
          )
        }
        await send(conn, `USE ${quoteIdentifier(database)}`)
        await send(conn, "START TRANSACTION READ ONLY")
        config.onStatement?.(plan.sql)
        const { rows, fields } = await streamRows(conn, {
          sql: plan.sql,
          // Client-side backstop in case the server ignores the statement limit.
          timeout: config.statementTimeoutMs + 5000,
          maxBytes: maxResultBytes
        })
        state.reusable = true
        return { rows: rows as unknown, fields: fields as unknown }
      },
      catch: (e) => {
        if (e instanceof ResultTooLarge) {
          state.reusable = false
          return new MysqlExecutionError({ code: "RESULT_TOO_LARGE", internalMessage: e.message })
        }
        const error = toExecutionError(e, "query")
        state.reusable =
          error.code === "SERVER_ERROR" ||
          (error.code === "TIMEOUT" && error.serverCode !== "PROTOCOL_SEQUENCE_TIMEOUT")
        return error
      }
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
      const state = { reusable: false }
      const { rows, fields } = yield* Effect.acquireUseRelease(
        Effect.tryPromise({ try: () => pool.getConnection(), catch: (e) => toExecutionError(e, "connect") }),
        (conn) => run(conn, plan, database, state),
        (conn) =>
          Effect.promise(async () => {
            try {
              // Interrupted or timed-out connections may still be busy: never reuse them.
              if (!state.reusable) throw new Error("connection state unknown")
              config.onStatement?.("ROLLBACK")
              await conn.query("ROLLBACK")
              conn.release()
            } catch {
              conn.destroy()
            }
          })
      )
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

  return MysqlReadOnlyExecutor.of({ execute })
})
