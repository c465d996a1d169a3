import { Config, ConfigProvider, Effect, Exit, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  layer,
  layerConfig,
  make,
  MysqlClient,
  type MysqlClientOptions,
  type MysqlClientShape,
  MysqlError,
  mysqlUrlProblem
} from "../src/index.js"
import { admin, describeMysql, MYSQL_URL, uniqueName, urlWith } from "./helpers.js"

/** Runs `body` with a client made from `options` in its own scope. */
const withClient = <A, E>(
  options: MysqlClientOptions,
  body: (client: MysqlClientShape) => Effect.Effect<A, E>
) => Effect.runPromise(Effect.scoped(Effect.flatMap(make(options), body)))

/** The failure of `effect`, which must fail with a MysqlError. */
const failure = async <A>(effect: Effect.Effect<A, MysqlError>): Promise<MysqlError> => {
  const exit = await Effect.runPromise(Effect.exit(effect))
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason?._tag !== "Fail") throw new Error("expected a Fail reason")
  expect(reason.error).toBeInstanceOf(MysqlError)
  return reason.error
}

const connectionId = (client: MysqlClientShape) =>
  client
    .withConnection((c) => c.query<Array<{ id: number }>>("SELECT CONNECTION_ID() AS id"))
    .pipe(Effect.map((rows) => Number(rows[0]!.id)))

describe("INVALID_CONFIG", () => {
  it.each([
    [{ url: "not a url" }, "url is not a URL"],
    [{ url: "http://127.0.0.1/test" }, "url must be mysql:// or mariadb://"],
    [{ url: "mysql://127.0.0.1/test", connectionLimit: 0 }, "connectionLimit"],
    [{ url: "mysql://127.0.0.1/test", queueLimit: -1 }, "queueLimit"],
    [{ url: "mysql://127.0.0.1/test", queryTimeoutMs: 1.5 }, "queryTimeoutMs"],
    [{ url: "mysql://127.0.0.1/test", breaker: { failureThreshold: 0 } }, "failureThreshold"]
  ])("%o is refused before any connection", async (options, message) => {
    const error = await failure(Effect.scoped(make(options)))
    expect(error.reason).toBe("INVALID_CONFIG")
    expect(error.message).toContain(message)
    expect(error.isRetryable).toBe(false)
  })

  it("mysqlUrlProblem: null for mysql:// and mariadb://, the same reasons as the client otherwise", () => {
    expect(mysqlUrlProblem("mysql://u:p@127.0.0.1:3306/test")).toBeNull()
    expect(mysqlUrlProblem(Redacted.make("mariadb://u:p@127.0.0.1/test"))).toBeNull()
    expect(mysqlUrlProblem("not a url")).toBe("url is not a URL")
    expect(mysqlUrlProblem(Redacted.make("ftp://u:s3cret@h/db"))).toBe("url must be mysql:// or mariadb://")
  })

  it("never echoes the URL (it holds a password)", async () => {
    const error = await failure(Effect.scoped(make({ url: Redacted.make("ftp://u:s3cret@h/db") })))
    expect(error.reason).toBe("INVALID_CONFIG")
    expect(JSON.stringify(error)).not.toContain("s3cret")
  })

  it("layerConfig: a missing setting is INVALID_CONFIG", async () => {
    const program = Effect.asVoid(
      Effect.gen(function* () {
        return yield* MysqlClient
      })
    ).pipe(
      Effect.provide(layerConfig({ url: Config.Redacted("MYSQL_URL") })),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))
    )
    const error = await failure(program)
    expect(error.reason).toBe("INVALID_CONFIG")
    expect(error.message).toContain("MYSQL_URL")
  })
})

describe("CONNECT and CIRCUIT_OPEN (nothing listens)", () => {
  const closedPort = { url: urlWith({ port: "1" }), connectTimeoutMs: 1000 }

  it("a refused connection is CONNECT, retryable", async () => {
    const error = await withClient(closedPort, (client) => Effect.flip(client.query("SELECT 1")))
    expect(error).toMatchObject({ reason: "CONNECT", code: "ECONNREFUSED" })
    expect(error.isRetryable).toBe(true)
  })

  it("withConnection and ping fail the same way", async () => {
    const errors = await withClient(closedPort, (client) =>
      Effect.all([Effect.flip(client.withConnection(() => Effect.void)), Effect.flip(client.ping)])
    )
    expect(errors.map((e) => e.reason)).toEqual(["CONNECT", "CONNECT"])
  })

  it("the breaker opens after failureThreshold failures and then refuses with CIRCUIT_OPEN", async () => {
    const { first, second, snapshot } = await withClient(
      { ...closedPort, name: "test-breaker", breaker: { failureThreshold: 1, resetAfterMs: 60_000 } },
      (client) =>
        Effect.gen(function* () {
          const first = yield* Effect.flip(client.query("SELECT 1"))
          const second = yield* Effect.flip(client.withConnection(() => Effect.void))
          return { first, second, snapshot: yield* client.breaker.snapshot }
        })
    )
    expect(first.reason).toBe("CONNECT")
    expect(second.reason).toBe("CIRCUIT_OPEN")
    expect(second.retryAfterMs).toBeGreaterThan(0)
    expect(second.isRetryable).toBe(true)
    expect(snapshot).toMatchObject({ name: "test-breaker", state: "OPEN", opened: 1, rejected: 1 })
  })
})

describeMysql("MysqlClient against a server", () => {
  const database = uniqueName("aiops_mysql")
  const user = uniqueName("aiops_mysql_u").slice(0, 32)
  const password = `pw-${Math.random().toString(36).slice(2)}`
  const url = urlWith({ database })

  beforeAll(async () => {
    await admin([
      [`CREATE DATABASE \`${database}\``],
      [`CREATE TABLE \`${database}\`.t (id INT PRIMARY KEY)`],
      ["CREATE USER ?@'%' IDENTIFIED BY ?", [user, password]],
      ["CREATE USER ?@'localhost' IDENTIFIED BY ?", [user, password]],
      [`GRANT SELECT ON \`${database}\`.* TO ?@'%'`, [user]],
      [`GRANT SELECT ON \`${database}\`.* TO ?@'localhost'`, [user]]
    ])
  })
  afterAll(async () => {
    await admin([
      [`DROP DATABASE IF EXISTS \`${database}\``],
      ["DROP USER IF EXISTS ?@'%'", [user]],
      ["DROP USER IF EXISTS ?@'localhost'", [user]]
    ])
  })

  it("query, ping and withConnection answer; the breaker stays closed", async () => {
    const result = await withClient({ url, connectionLimit: 2 }, (client) =>
      Effect.gen(function* () {
        yield* client.ping
        yield* client.query("INSERT INTO t (id) VALUES (?), (?)", [1, 2])
        const rows = yield* client.query<Array<{ id: number }>>("SELECT id FROM t ORDER BY id")
        const viaConnection = yield* client.withConnection((c) =>
          c.query<Array<{ n: number }>>("SELECT 2 AS n")
        )
        return { rows, viaConnection, state: yield* client.breaker.state }
      })
    )
    expect(result.rows.map((r) => r.id)).toEqual([1, 2])
    expect(result.viaConnection[0]!.n).toBe(2)
    expect(result.state).toBe("CLOSED")
  })

  it("a wrong password is ACCESS_DENIED, not retryable", async () => {
    const error = await withClient({ url: urlWith({ user, password: "wrong", database }) }, (client) =>
      Effect.flip(client.query("SELECT 1"))
    )
    expect(error).toMatchObject({ reason: "ACCESS_DENIED", code: "ER_ACCESS_DENIED_ERROR" })
    expect(error.isRetryable).toBe(false)
  })

  it("a database the user may not use is ACCESS_DENIED", async () => {
    const error = await withClient({ url: urlWith({ user, password, database: "mysql" }) }, (client) =>
      Effect.flip(client.query("SELECT 1"))
    )
    expect(error.reason).toBe("ACCESS_DENIED")
  })

  it("an SQL error is QUERY; the connection goes back to the pool and the breaker stays closed", async () => {
    const result = await withClient({ url, connectionLimit: 1, breaker: { failureThreshold: 1 } }, (client) =>
      Effect.gen(function* () {
        const before = yield* connectionId(client)
        const error = yield* Effect.flip(client.query("SELECT * FROM no_such_table"))
        const inside = yield* Effect.flip(client.withConnection((c) => c.query("SELEC 1")))
        return {
          before,
          error,
          inside,
          after: yield* connectionId(client),
          state: yield* client.breaker.state
        }
      })
    )
    expect(result.error).toMatchObject({ reason: "QUERY", code: "ER_NO_SUCH_TABLE", sqlState: "42S02" })
    expect(result.error.isRetryable).toBe(false)
    expect(result.inside).toMatchObject({ reason: "QUERY", code: "ER_PARSE_ERROR" })
    expect(result.after).toBe(result.before)
    expect(result.state).toBe("CLOSED")
  })

  it("a slow query is TIMEOUT and its connection is destroyed, never reused", async () => {
    const result = await withClient({ url, connectionLimit: 1, queryTimeoutMs: 300 }, (client) =>
      Effect.gen(function* () {
        const before = yield* connectionId(client)
        const started = Date.now()
        const error = yield* Effect.flip(client.query("SELECT SLEEP(5)", [], { timeoutMs: 300 }))
        const elapsed = Date.now() - started
        return { before, error, elapsed, after: yield* connectionId(client) }
      })
    )
    expect(result.error.reason).toBe("TIMEOUT")
    expect(result.error.isRetryable).toBe(true)
    expect(result.elapsed).toBeLessThan(2000)
    expect(result.after).not.toBe(result.before)
  })

  it("a server statement timeout (MariaDB 1969 / MySQL 3024) is TIMEOUT and destroys the connection", async () => {
    const result = await withClient({ url, connectionLimit: 1 }, (client) =>
      Effect.gen(function* () {
        const before = yield* connectionId(client)
        const flavor = yield* client.query<Array<{ v: string }>>("SELECT VERSION() AS v")
        const sql = flavor[0]!.v.includes("MariaDB")
          ? "SET STATEMENT max_statement_time = 0.1 FOR SELECT SLEEP(2)"
          : "SELECT /*+ MAX_EXECUTION_TIME(100) */ SLEEP(2) FROM t"
        const error = yield* Effect.flip(client.withConnection((c) => c.query(sql)))
        return { before, error, after: yield* connectionId(client) }
      })
    )
    expect(result.error.reason).toBe("TIMEOUT")
    expect(result.after).not.toBe(result.before)
  })

  it("withConnection: reset runs before release; a failed reset or another error destroys the connection", async () => {
    const statements: Array<string> = []
    const result = await withClient(
      { url, connectionLimit: 1, onStatement: (s) => statements.push(s) },
      (client) =>
        Effect.gen(function* () {
          const reset = {
            reset: (c: { query: (sql: string) => Effect.Effect<unknown, MysqlError> }) =>
              Effect.asVoid(c.query("ROLLBACK"))
          }
          const first = yield* client.withConnection(
            (c) => c.query<Array<{ id: number }>>("SELECT CONNECTION_ID() AS id"),
            reset
          )
          const kept = yield* connectionId(client)
          const badReset = {
            reset: (c: { query: (sql: string) => Effect.Effect<unknown, MysqlError> }) =>
              Effect.asVoid(c.query("NOT SQL"))
          }
          yield* client.withConnection(() => Effect.void, badReset)
          const afterBadReset = yield* connectionId(client)
          yield* Effect.flip(client.withConnection(() => Effect.fail("not a MysqlError")))
          const afterOtherError = yield* connectionId(client)
          return { first: Number(first[0]!.id), kept, afterBadReset, afterOtherError }
        })
    )
    expect(statements).toContain("ROLLBACK")
    expect(result.kept).toBe(result.first)
    expect(result.afterBadReset).not.toBe(result.kept)
    expect(result.afterOtherError).not.toBe(result.afterBadReset)
  })

  it("layer and layerConfig provide the service; the pool ends with the scope", async () => {
    const viaLayer = await Effect.runPromise(
      MysqlClient.use((client) => client.query<Array<{ n: number }>>("SELECT 1 AS n")).pipe(
        Effect.provide(layer({ url }))
      )
    )
    expect(viaLayer[0]!.n).toBe(1)
    const viaConfig = await Effect.runPromise(
      MysqlClient.use((client) => Effect.as(client.ping, client.pool)).pipe(
        Effect.provide(layerConfig({ url: Config.Redacted("URL"), connectionLimit: Config.Int("POOL") })),
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ URL: url, POOL: "2" })))
      )
    )
    // Released with the layer's scope: the pool no longer hands out connections.
    await expect(viaConfig.getConnection()).rejects.toThrow()
  })

  it.each(["mariadb:", "MariaDB:", "MYSQL:"])(
    "a %s// URL is accepted (schemes are case-insensitive)",
    async (scheme) => {
      const rows = await withClient({ url: url.replace(/^mysql:/, scheme) }, (client) =>
        client.query<Array<unknown>>("SELECT 1")
      )
      expect(rows).toHaveLength(1)
    }
  )

  it("the test server is the one configured", () => {
    expect(MYSQL_URL).toMatch(/^mysql:/)
  })

  it("a layer built with a bad option fails with INVALID_CONFIG", async () => {
    const error = await failure(
      Effect.asVoid(Layer.build(layer({ url, connectionLimit: -1 })).pipe(Effect.scoped))
    )
    expect(error.reason).toBe("INVALID_CONFIG")
  })
})
