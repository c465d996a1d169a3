import {
  type CircuitBreakerConfig,
  CircuitOpen,
  type CircuitSnapshot,
  type CircuitState,
  type CircuitTransition,
  makeCircuitBreaker
} from "@aiops-harness/core"
import { Config, Context, Effect, type Exit, Layer, Redacted, type Scope } from "effect"
import mysql from "mysql2/promise"
import { classifyDriverError, connectionReusableAfter, MysqlError } from "./errors.js"

/** mysql2 pool options a caller may add (charset, typeCast, date handling...); the client owns the rest. */
export type MysqlDriverOptions = Omit<
  mysql.PoolOptions,
  "uri" | "host" | "port" | "user" | "password" | "connectTimeout" | "connectionLimit" | "queueLimit"
>

/** The plain-data part of {@link MysqlClientOptions} (what `layerConfig` reads from a `Config`). */
export interface MysqlClientConfig {
  /** `mysql://user:password@host:port[/database]` (`mariadb://` is accepted too). */
  readonly url: string | Redacted.Redacted<string>
  /** Names the client's breaker in errors, logs and metrics (default `mysql`). */
  readonly name?: string
  /** Pool size (default 10). */
  readonly connectionLimit?: number
  /** Callers allowed to wait for a pooled connection; one more fails at once with `CONNECT` (default 0: no bound). */
  readonly queueLimit?: number
  /** TCP connect and handshake limit (default 5000 ms). */
  readonly connectTimeoutMs?: number
  /** Driver limit of one statement; the connection is destroyed when it passes (default 5000 ms). */
  readonly queryTimeoutMs?: number
}

/** Options of {@link make}: connection, limits, breaker and hooks. */
export interface MysqlClientOptions extends MysqlClientConfig {
  /** The circuit breaker of every call (defaults: core's `defaultCircuitBreakerConfig`). */
  readonly breaker?: Omit<CircuitBreakerConfig, "name">
  /** Runs after every breaker state change (log it, export it, repair after it). */
  readonly onBreakerTransition?: (transition: CircuitTransition) => Effect.Effect<void>
  /** Observability hook: called with every statement `query` sends. */
  readonly onStatement?: (sql: string) => void
  /** Extra mysql2 pool options. */
  readonly driver?: MysqlDriverOptions
}

/** Defaults of the numeric {@link MysqlClientConfig} settings. */
export const defaultMysqlClientConfig = {
  name: "mysql",
  connectionLimit: 10,
  queueLimit: 0,
  connectTimeoutMs: 5000,
  queryTimeoutMs: 5000
} as const

/** Options of one `query`. */
export interface MysqlQueryOptions {
  /**
   * Limit of the whole call, waiting for a pooled connection included (default
   * `connectTimeoutMs + queryTimeoutMs`). The driver limit is the smaller of this and `queryTimeoutMs`.
   */
  readonly timeoutMs?: number
  /** May this call be the breaker's half-open probe (default true)? Pass false on a latency-sensitive path. */
  readonly probe?: boolean
}

/** One pooled connection, lent to `withConnection`'s `use`. */
export interface MysqlConnection {
  /** The mysql2 connection, for what `query` does not cover (streaming). Never release or destroy it. */
  readonly raw: mysql.PoolConnection
  /** One statement on this connection (driver limit: `timeoutMs`, default `queryTimeoutMs`). */
  readonly query: <A = unknown>(
    sql: string,
    values?: ReadonlyArray<unknown>,
    options?: { readonly timeoutMs?: number }
  ) => Effect.Effect<A, MysqlError>
}

/** Options of `withConnection`. */
export interface WithConnectionOptions {
  /** Runs before a reusable connection goes back to the pool (e.g. `ROLLBACK`); its failure destroys the connection. */
  readonly reset?: (connection: MysqlConnection) => Effect.Effect<void, MysqlError>
  /** May this call be the breaker's half-open probe (default true)? */
  readonly probe?: boolean
}

/** The client's circuit breaker, read-only. */
export interface MysqlBreakerView {
  readonly name: string
  readonly state: Effect.Effect<CircuitState>
  readonly snapshot: Effect.Effect<CircuitSnapshot>
  /** True when an open breaker's reset time has passed (a background probe is due). */
  readonly probeDue: Effect.Effect<boolean>
}

/** Operations of the `MysqlClient` service. */
export interface MysqlClientShape {
  /** The mysql2 pool (for tools that need it, e.g. `migrate`). */
  readonly pool: mysql.Pool
  /** One statement on a pooled connection, through the breaker; resolves to mysql2's result (rows or `ResultSetHeader`). */
  readonly query: <A = unknown>(
    sql: string,
    values?: ReadonlyArray<unknown>,
    options?: MysqlQueryOptions
  ) => Effect.Effect<A, MysqlError>
  /**
   * Lends one pooled connection to `use`, through the breaker. After a success or a `QUERY`
   * error it is `reset` and released; after anything else (timeout, broken connection, another
   * error, interruption) it is destroyed, never returned to the pool.
   */
  readonly withConnection: <A, E, R>(
    use: (connection: MysqlConnection) => Effect.Effect<A, E, R>,
    options?: WithConnectionOptions
  ) => Effect.Effect<A, E | MysqlError, R>
  /** `SELECT 1` through the breaker (may be its probe), within `connectTimeoutMs`. */
  readonly ping: Effect.Effect<void, MysqlError>
  readonly breaker: MysqlBreakerView
}

/** A MySQL/MariaDB client: one mysql2 pool, one error type, one destroy rule, one breaker. */
export class MysqlClient extends Context.Service<MysqlClient, MysqlClientShape>()(
  "@aiops-harness/mysql/MysqlClient"
) {}

const invalid = (message: string) => new MysqlError({ reason: "INVALID_CONFIG", message })

const positiveInt = (field: string, value: number, min = 1): Effect.Effect<number, MysqlError> =>
  Number.isSafeInteger(value) && value >= min
    ? Effect.succeed(value)
    : Effect.fail(invalid(`${field} must be an integer >= ${min}`))

/**
 * What is wrong with a client URL (`"url is not a URL"`, `"url must be mysql:// or mariadb://"`),
 * or `null` when the client takes it. Never echoes the URL (it holds a password). For packages
 * that validate their settings before building a client.
 */
export const mysqlUrlProblem = (url: string | Redacted.Redacted<string>): string | null => {
  let protocol: string
  try {
    protocol = new URL(Redacted.isRedacted(url) ? Redacted.value(url) : url).protocol
  } catch {
    return "url is not a URL"
  }
  return protocol === "mysql:" || protocol === "mariadb:" ? null : "url must be mysql:// or mariadb://"
}

/** The URL as mysql2 takes it (`mariadb:` becomes `mysql:`). */
const resolveUrl = (url: string | Redacted.Redacted<string>): Effect.Effect<string, MysqlError> => {
  const problem = mysqlUrlProblem(url)
  if (problem !== null) return Effect.fail(invalid(problem))
  const text = Redacted.isRedacted(url) ? Redacted.value(url) : url
  // Schemes are case-insensitive (`MariaDB://` is valid): the checked one decides, not the text.
  const colon = text.indexOf(":")
  const mariadb = text.slice(0, colon).trim().toLowerCase() === "mariadb"
  return Effect.succeed(mariadb ? `mysql:${text.slice(colon + 1)}` : text)
}

interface Limits {
  readonly connectTimeoutMs: number
  readonly queryTimeoutMs: number
}

const resolveLimits = (options: Partial<Limits>) =>
  Effect.all({
    connectTimeoutMs: positiveInt(
      "connectTimeoutMs",
      options.connectTimeoutMs ?? defaultMysqlClientConfig.connectTimeoutMs
    ),
    queryTimeoutMs: positiveInt(
      "queryTimeoutMs",
      options.queryTimeoutMs ?? defaultMysqlClientConfig.queryTimeoutMs
    )
  })

const timeoutError = (ms: number) =>
  new MysqlError({ reason: "TIMEOUT", message: `no answer within ${ms} ms` })

/** Options of {@link fromPool}: the client settings that do not build a pool. */
export type FromPoolOptions = Pick<
  MysqlClientOptions,
  "name" | "connectTimeoutMs" | "queryTimeoutMs" | "breaker" | "onBreakerTransition" | "onStatement"
>

/**
 * A client over a pool the caller owns (it is not ended with the client). Bad breaker or
 * limit settings are `INVALID_CONFIG`.
 */
export const fromPool = (
  pool: mysql.Pool,
  options: FromPoolOptions = {}
): Effect.Effect<MysqlClientShape, MysqlError> =>
  Effect.gen(function* () {
    const limits = yield* resolveLimits(options)
    const name = options.name ?? defaultMysqlClientConfig.name
    const breaker = yield* makeCircuitBreaker(
      { ...options.breaker, name },
      options.onBreakerTransition ? { onTransition: options.onBreakerTransition } : {}
    ).pipe(
      Effect.catchDefect((defect) =>
        Effect.fail(invalid(defect instanceof Error ? defect.message : String(defect)))
      )
    )
    const guarded = <A, E, R>(effect: Effect.Effect<A, E, R>, probe: boolean | undefined) =>
      breaker
        .call(effect, {
          // The server answered a refused statement: that says nothing against its health.
          isFailure: (error) => error instanceof MysqlError && error.reason !== "QUERY",
          probe: probe ?? true
        })
        .pipe(
          Effect.catchIf(
            (error): error is CircuitOpen => error instanceof CircuitOpen,
            (open) =>
              Effect.fail(
                new MysqlError({
                  reason: "CIRCUIT_OPEN",
                  message: `circuit breaker ${open.name} is open`,
                  retryAfterMs: open.retryAfterMs
                })
              )
          )
        )

    const connectionOf = (raw: mysql.PoolConnection): MysqlConnection => ({
      raw,
      query: <A>(
        sql: string,
        values: ReadonlyArray<unknown> = [],
        queryOptions: { timeoutMs?: number } = {}
      ) =>
        Effect.tryPromise({
          try: async () => {
            options.onStatement?.(sql)
            const [result] = await raw.query({
              sql,
              values: values as Array<unknown>,
              timeout: queryOptions.timeoutMs ?? limits.queryTimeoutMs
            })
            return result as A
          },
          catch: (e) => classifyDriverError(e, "query")
        })
    })

    const query = <A = unknown>(
      sql: string,
      values: ReadonlyArray<unknown> = [],
      queryOptions: MysqlQueryOptions = {}
    ): Effect.Effect<A, MysqlError> => {
      const limitMs = queryOptions.timeoutMs ?? limits.connectTimeoutMs + limits.queryTimeoutMs
      const driverMs = Math.min(limitMs, limits.queryTimeoutMs)
      const attempt = Effect.tryPromise({
        try: async (signal) => {
          let conn: mysql.PoolConnection
          try {
            conn = await pool.getConnection()
          } catch (e) {
            throw classifyDriverError(e, "connect")
          }
          // Given up while waiting for the connection: never send the statement late.
          if (signal.aborted) {
            conn.release()
            throw timeoutError(limitMs)
          }
          try {
            options.onStatement?.(sql)
            const [result] = await conn.query({ sql, values: values as Array<unknown>, timeout: driverMs })
            conn.release()
            return result as A
          } catch (e) {
            const error = classifyDriverError(e, "query")
            if (connectionReusableAfter(error)) conn.release()
            else conn.destroy()
            throw error
          }
        },
        catch: (e) => classifyDriverError(e, "query")
      }).pipe(Effect.timeoutOrElse({ duration: limitMs, orElse: () => Effect.fail(timeoutError(limitMs)) }))
      return guarded(attempt, queryOptions.probe)
    }

    const release = (
      raw: mysql.PoolConnection,
      exit: Exit.Exit<unknown, unknown>,
      reset: WithConnectionOptions["reset"]
    ): Effect.Effect<void> => {
      const reusable =
        exit._tag === "Success" ||
        (exit.cause.reasons.length === 1 &&
          exit.cause.reasons[0]!._tag === "Fail" &&
          connectionReusableAfter(exit.cause.reasons[0]!.error))
      if (!reusable) return Effect.sync(() => raw.destroy())
      const resetting = reset ? reset(connectionOf(raw)) : Effect.void
      return resetting.pipe(
        Effect.matchEffect({
          onSuccess: () => Effect.sync(() => raw.release()),
          onFailure: () => Effect.sync(() => raw.destroy())
        })
      )
    }

    const withConnection = <A, E, R>(
      use: (connection: MysqlConnection) => Effect.Effect<A, E, R>,
      connectionOptions: WithConnectionOptions = {}
    ): Effect.Effect<A, E | MysqlError, R> =>
      guarded(
        Effect.acquireUseRelease(
          Effect.tryPromise({
            try: () => pool.getConnection(),
            catch: (e) => classifyDriverError(e, "connect")
          }),
          (raw) => use(connectionOf(raw)),
          (raw, exit) => release(raw, exit, connectionOptions.reset)
        ),
        connectionOptions.probe
      )

    return {
      pool,
      query,
      withConnection,
      ping: Effect.asVoid(query("SELECT 1", [], { timeoutMs: limits.connectTimeoutMs })),
      breaker: { name, state: breaker.state, snapshot: breaker.snapshot, probeDue: breaker.probeDue }
    }
  })

/**
 * A client over a new pool, acquired in the current scope (`pool.end()` on release, bounded by
 * `connectTimeoutMs + queryTimeoutMs`). Options are checked first: bad ones are `INVALID_CONFIG`.
 * No connection is opened until the first call.
 */
export const make = (options: MysqlClientOptions): Effect.Effect<MysqlClientShape, MysqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const uri = yield* resolveUrl(options.url)
    const limits = yield* resolveLimits(options)
    const connectionLimit = yield* positiveInt(
      "connectionLimit",
      options.connectionLimit ?? defaultMysqlClientConfig.connectionLimit
    )
    const queueLimit = yield* positiveInt(
      "queueLimit",
      options.queueLimit ?? defaultMysqlClientConfig.queueLimit,
      0
    )
    const pool = yield* Effect.acquireRelease(
      Effect.try({
        try: () =>
          mysql.createPool({
            ...options.driver,
            uri,
            connectTimeout: limits.connectTimeoutMs,
            connectionLimit,
            queueLimit
          }),
        catch: (e) =>
          invalid(`mysql2 refused the pool options: ${e instanceof Error ? e.message : String(e)}`)
      }),
      (p) =>
        Effect.promise(() => p.end().catch(() => undefined)).pipe(
          Effect.timeout(limits.connectTimeoutMs + limits.queryTimeoutMs),
          Effect.ignore
        )
    )
    return yield* fromPool(pool, options)
  })

/** {@link make} as a layer of the `MysqlClient` service. */
export const layer = (options: MysqlClientOptions): Layer.Layer<MysqlClient, MysqlError> =>
  Layer.effect(MysqlClient, make(options))

/**
 * {@link make} from an Effect `Config` (e.g. `{ url: Config.Redacted("MYSQL_URL") }`): a
 * missing or malformed setting is `INVALID_CONFIG`, like a bad option. `extra` adds what a
 * `Config` cannot hold (hooks, driver options).
 */
export const layerConfig = (
  config: Config.Wrap<MysqlClientConfig>,
  extra: Omit<MysqlClientOptions, keyof MysqlClientConfig> = {}
): Layer.Layer<MysqlClient, MysqlError> =>
  Layer.effect(
    MysqlClient,
    Config.unwrap(config).pipe(
      Effect.mapError((error) => invalid(`configuration: ${error.message}`)),
      Effect.flatMap((resolved) => make({ ...resolved, ...extra }))
    )
  )
