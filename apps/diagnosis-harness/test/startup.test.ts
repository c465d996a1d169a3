import { StoreError } from "@aiops-harness/core"
import { mysqlGate, mysqlUrl } from "@aiops-harness/core/testing"
import { Cause, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { main } from "../src/main.js"
import { backendAddress, describeBackendFailure } from "../src/startup-errors.js"
import { captureIo } from "./helpers.js"

const hasMysql = await mysqlGate()

const run = async (argv: string[], env: Record<string, string>) => {
  const { io, out, err } = captureIo(env)
  const code = await main(argv, io)
  return { code, out: out.join("\n"), err: err.join("\n") }
}

const QUESTION = "why is checkout returning 500s?"

/** `MYSQL_URL` with another user, password or database. */
const mysqlUrlWith = (change: { user?: string; password?: string; database?: string }) => {
  const url = new URL(mysqlUrl())
  if (change.user !== undefined) url.username = change.user
  if (change.password !== undefined) url.password = change.password
  if (change.database !== undefined) url.pathname = `/${change.database}`
  return url.toString()
}

const addressOf = (url: string) => {
  const u = new URL(url)
  return `${u.hostname}:${u.port || 3306}`
}

describe("startup errors say what failed and where, without credentials", () => {
  it("Redis on an unreachable loopback port", async () => {
    const r = await run(["diagnose", QUESTION], { REDIS_URL: "redis://app-user:s3cret-pw@127.0.0.1:1" })
    expect(r.code).toBe(1)
    expect(r.err).toContain(
      "error: cannot start: canonical store: Redis at 127.0.0.1:1 is unreachable (connection refused)"
    )
    expect(r.err).not.toContain("s3cret-pw")
    expect(r.err).not.toContain("app-user")
  })

  it("MySQL on an unreachable loopback port (audit)", async () => {
    const r = await run(["diagnose", QUESTION], { MYSQL_URL: "mysql://app-user:s3cret-pw@127.0.0.1:1/x" })
    expect(r.code).toBe(1)
    expect(r.err).toContain(
      "error: cannot start: audit: MySQL at 127.0.0.1:1 is unreachable (connection refused)"
    )
    expect(r.err).not.toContain("s3cret-pw")
    expect(r.err).not.toContain("app-user")
  })

  it("MySQL on an unreachable loopback port (serve)", async () => {
    const r = await run(["serve", "--port", "0"], { MYSQL_URL: "mysql://root@127.0.0.1:1/x" })
    expect(r.code).toBe(1)
    expect(r.err).toContain(
      "error: cannot start: audit: MySQL at 127.0.0.1:1 is unreachable (connection refused)"
    )
  })

  it("migrate on an unreachable loopback port", async () => {
    const r = await run(["migrate"], { MYSQL_URL: "mysql://root:s3cret-pw@127.0.0.1:1/x" })
    expect(r.code).toBe(1)
    expect(r.err).toBe("error: migration: MySQL at 127.0.0.1:1 is unreachable (connection refused)")
  })

  describe.runIf(hasMysql)("on the local MySQL/MariaDB", () => {
    it("an unknown database", async () => {
      const url = mysqlUrlWith({ database: "aiops_app_no_such_database" })
      const r = await run(["diagnose", QUESTION], { MYSQL_URL: url })
      expect(r.code).toBe(1)
      expect(r.err).toContain(
        `error: cannot start: audit: MySQL at ${addressOf(url)}: unknown database 'aiops_app_no_such_database'`
      )
    })

    it("a user the server refuses", async () => {
      const url = mysqlUrlWith({ user: "aiops_app_no_such_user", password: "s3cret-pw" })
      const r = await run(["diagnose", QUESTION], { MYSQL_URL: url })
      expect(r.code).toBe(1)
      expect(r.err).toContain(
        `error: cannot start: audit: MySQL at ${addressOf(url)}: access denied for the configured user`
      )
      expect(r.err).not.toContain("aiops_app_no_such_user")
      expect(r.err).not.toContain("s3cret-pw")
    })
  })
})

describe("describeBackendFailure", () => {
  const errno = (code: string) => Object.assign(new Error(`connect ${code} user@10.0.0.1`), { code })
  const wrapped = (cause: unknown) => ({ _tag: "MigrationError", reason: "UNAVAILABLE", cause })
  const describe_ = (cause: unknown, url = "mysql://u:p@db.internal:3307/shop") =>
    Effect.runPromise(describeBackendFailure({ kind: "MySQL", url, cause }))

  it.each([
    ["ECONNREFUSED", "is unreachable (connection refused)"],
    ["ETIMEDOUT", "is unreachable (connection timed out)"],
    ["ENOTFOUND", "is unreachable (host not found)"],
    ["EHOSTUNREACH", "is unreachable (host unreachable)"]
  ])("%s -> %s", async (code, text) => {
    expect(await describe_(wrapped(errno(code)))).toBe(`MySQL at db.internal:3307 ${text}`)
  })

  it("MySQL error names, through an Effect cause and an AggregateError", async () => {
    const badDb = Object.assign(new Error("Unknown database 'shop'"), { code: "ER_BAD_DB_ERROR" })
    expect(await describe_(Cause.fail(wrapped(badDb)))).toBe(
      "MySQL at db.internal:3307: unknown database 'shop'"
    )
    const denied = Object.assign(new Error("Access denied for user 'u'"), { code: "ER_ACCESS_DENIED_ERROR" })
    expect(await describe_(wrapped(new AggregateError([denied])))).toBe(
      "MySQL at db.internal:3307: access denied for the configured user"
    )
  })

  it("a Redis store timeout, a Redis auth reply, and an error without a known code", async () => {
    const redis = (cause: unknown) =>
      Effect.runPromise(describeBackendFailure({ kind: "Redis", url: "rediss://:pw@cache:6380", cause }))
    expect(await redis(new StoreError({ operation: "connect", reason: "TIMEOUT" }))).toBe(
      "Redis at cache:6380 is unreachable (connection timed out)"
    )
    expect(
      await redis(
        new StoreError({ operation: "connect", reason: "UNAVAILABLE", cause: new Error("WRONGPASS invalid") })
      )
    ).toBe("Redis at cache:6380: access denied for the configured user")
    expect(
      await describe_({ _tag: "MigrationError", reason: "VERSION_DRIFT", version: 3, cause: new Error("x") })
    ).toBe("MySQL at db.internal:3307: MigrationError VERSION_DRIFT (version 3)")
  })

  it("backendAddress: host and port only, default ports", () => {
    expect(backendAddress("MySQL", "mysql://root:pw@127.0.0.1/test")).toBe("127.0.0.1:3306")
    expect(backendAddress("Redis", "redis://user:pw@[::1]:7000/0")).toBe("[::1]:7000")
    expect(backendAddress("Redis", "redis://cache")).toBe("cache:6379")
    expect(backendAddress("MySQL", "not a url")).toBe("unknown host")
  })
})
