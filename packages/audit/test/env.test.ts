import { AuditSink, InvalidConfig, readEnvConfigSync, revealed } from "@aiops-harness/core"
import { invalidConfigOf } from "@aiops-harness/core/testing"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { type AuditSettings, auditConfig, auditLayerConfig, auditLayerFromEnv } from "../src/index.js"

type Env = Record<string, string | undefined>

const settings = (env: Env): AuditSettings => readEnvConfigSync(auditConfig, env)

const invalid = (env: Env): InvalidConfig => invalidConfigOf(auditConfig, env)

const URL_WITH_PASSWORD = "mysql://audit:s3cret-pw@127.0.0.1:3306/audit_db"

describe("auditConfig", () => {
  it("without MYSQL_URL (or blank): the in-memory audit", () => {
    expect(settings({})).toEqual({ _tag: "InMemory" })
    expect(settings({ MYSQL_URL: "  ", AUDIT_BREAKER_FAILURES: "2" })).toEqual({ _tag: "InMemory" })
  })

  it("reads MYSQL_URL as Redacted and the pool, breaker and stale-run settings", () => {
    const s = settings({
      MYSQL_URL: URL_WITH_PASSWORD,
      AUDIT_MYSQL_CONNECTION_LIMIT: "4",
      AUDIT_MYSQL_CONNECT_TIMEOUT_MS: "1500",
      AUDIT_MYSQL_QUERY_TIMEOUT_MS: "2500",
      AUDIT_MYSQL_WRITE_TIMEOUT_MS: "300",
      AUDIT_MYSQL_QUEUE_LIMIT: "7",
      AUDIT_BREAKER_FAILURES: "5",
      AUDIT_BREAKER_RESET_MS: "250",
      AUDIT_STALE_RUN_MS: "60000"
    })
    if (s._tag !== "Mysql") throw new Error("expected MySQL")
    expect(Redacted.isRedacted(s.mysql.url)).toBe(true)
    expect(revealed(s.mysql.url)).toBe(URL_WITH_PASSWORD)
    expect(JSON.stringify(s)).not.toContain("s3cret-pw")
    expect(s.mysql).toMatchObject({
      connectionLimit: 4,
      connectTimeoutMs: 1500,
      queryTimeoutMs: 2500,
      writeTimeoutMs: 300,
      queueLimit: 7,
      breaker: { failureThreshold: 5, resetAfterMs: 250 },
      staleRunMs: 60000
    })
    const defaults = settings({ MYSQL_URL: "mariadb://root@h/db" })
    expect(defaults._tag === "Mysql" && defaults.mysql).toEqual({ url: expect.anything(), breaker: {} })
  })

  it("MYSQL_URL must be a mysql:/mariadb: URL naming a database; never shown", () => {
    for (const url of [
      "mysql://root:pw@127.0.0.1:3306",
      "mysql://root:pw@127.0.0.1:3306/",
      "postgres://root:pw@h/db",
      "::"
    ]) {
      const error = invalid({ MYSQL_URL: url })
      expect(error.message).toBe(
        'MYSQL_URL: expected a mysql: or mariadb: URL naming a database (mysql://user@host:3306/db), got "<redacted>"'
      )
    }
  })

  it.each([
    ["AUDIT_MYSQL_CONNECTION_LIMIT", "ten"],
    ["AUDIT_MYSQL_CONNECTION_LIMIT", "0"],
    ["AUDIT_MYSQL_CONNECT_TIMEOUT_MS", "12abc"],
    ["AUDIT_MYSQL_QUERY_TIMEOUT_MS", "2147483648"],
    ["AUDIT_MYSQL_WRITE_TIMEOUT_MS", "1e3"],
    ["AUDIT_MYSQL_QUEUE_LIMIT", "-1"],
    ["AUDIT_BREAKER_FAILURES", "3.5"],
    ["AUDIT_BREAKER_RESET_MS", "NaN"],
    ["AUDIT_STALE_RUN_MS", "soon"]
  ])("%s=%s is refused with InvalidConfig (no silent NaN)", (name, text) => {
    const error = invalid({ MYSQL_URL: URL_WITH_PASSWORD, [name]: text })
    expect(error.variable).toBe(name)
    expect(error.message).toMatch(
      new RegExp(`^${name}: expected an integer (>= 1|in 1\\.\\.2147483647), got "${text}"$`)
    )
  })

  it("auditLayerFromEnv throws InvalidConfig at once", () => {
    expect(() => auditLayerFromEnv({ MYSQL_URL: URL_WITH_PASSWORD, AUDIT_STALE_RUN_MS: "x" })).toThrow(
      InvalidConfig
    )
  })

  it("auditLayerConfig reads the ambient ConfigProvider when built; a bad value fails the layer", async () => {
    const provider = (env: Env) => ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))
    const ok = await Effect.runPromise(
      Effect.provide(
        Effect.as(Effect.service(AuditSink), "ok"),
        auditLayerConfig().pipe(Layer.provide(provider({})))
      )
    )
    expect(ok).toBe("ok")
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.provide(
          Effect.service(AuditSink),
          auditLayerConfig().pipe(Layer.provide(provider({ MYSQL_URL: "mysql://h" })))
        )
      )
    )
    expect(error._tag).toBe("InvalidConfig")
  })
})
