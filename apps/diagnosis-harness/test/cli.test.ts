import { describe, expect, it } from "vitest"
import { ConfigError, describeBackends, loadConfig, mysqlDatabaseOf } from "../src/config.js"
import { main, parseArgs, UsageError } from "../src/main.js"
import { captureIo } from "./helpers.js"

describe("argument parsing", () => {
  it("splits command, positionals and options", () => {
    expect(parseArgs(["diagnose", "why", "is", "it", "--scenario", "oom-killed", "--session=s1"])).toEqual({
      command: "diagnose",
      positional: ["why", "is", "it"],
      options: { scenario: "oom-killed", session: "s1" }
    })
    expect(parseArgs(["diagnose", "--", "--not-an-option"]).positional).toEqual(["--not-an-option"])
  })

  it("rejects options without a value and unknown options", () => {
    expect(() => parseArgs(["diagnose", "q", "--scenario"])).toThrow(UsageError)
    expect(() => parseArgs(["serve", "--verbose", "1"])).toThrow("unknown option --verbose for serve")
  })
})

describe("exit codes", () => {
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    const { io, out, err } = captureIo(env)
    const code = await main(argv, io)
    return { code, out: out.join("\n"), err: err.join("\n") }
  }

  it("2 for usage errors, with the usage text", async () => {
    for (const argv of [
      [],
      ["frobnicate"],
      ["diagnose"],
      ["diagnose", "q", "--nope", "x"],
      ["migrate", "extra"]
    ]) {
      const r = await run(argv)
      expect(r.code, argv.join(" ")).toBe(2)
      expect(r.err).toContain("usage: diagnosis-harness")
    }
  })

  it("2 for an unknown --scenario or a malformed --session", async () => {
    const scenario = await run(["diagnose", "why?", "--scenario", "volcano"])
    expect(scenario.code).toBe(2)
    expect(scenario.err).toContain('--scenario: unknown scenario "volcano"')
    const session = await run(["diagnose", "why?", "--session", "a:b"])
    expect(session.code).toBe(2)
    expect(session.err).toContain("--session")
  })

  it("0 for help", async () => {
    const r = await run(["help"])
    expect(r.code).toBe(0)
    expect(r.out).toContain("usage:")
  })

  it("1 with a clear message for a bad environment, never echoing the value", async () => {
    const r = await run(["diagnose", "why?"], { MYSQL_URL: "not a url with password hunter2" })
    expect(r.code).toBe(1)
    expect(r.err).toContain("configuration error: MYSQL_URL: not a valid URL")
    expect(r.err).not.toContain("hunter2")
  })

  it("1 with the failing backend named when a backend does not answer", async () => {
    const redis = await run(["diagnose", "why is checkout failing?"], { REDIS_URL: "redis://127.0.0.1:1" })
    expect(redis.code).toBe(1)
    expect(redis.err).toContain("error: cannot start: canonical_store: StoreError UNAVAILABLE")
    const mysql = await run(["diagnose", "why is checkout failing?"], {
      MYSQL_URL: "mysql://root@127.0.0.1:1/test"
    })
    expect(mysql.code).toBe(1)
    expect(mysql.err).toContain("error: cannot start: audit: MigrationError UNAVAILABLE")
  })

  it("1 for migrate without MYSQL_URL", async () => {
    const r = await run(["migrate"])
    expect(r.code).toBe(1)
    expect(r.err).toContain("MYSQL_URL is not set")
  })

  it("1 for migrate when MySQL does not answer", async () => {
    const r = await run(["migrate"], { MYSQL_URL: "mysql://root@127.0.0.1:1/test" })
    expect(r.code).toBe(1)
    expect(r.err).toContain("cannot start: migrate: UNAVAILABLE")
  })
})

describe("configuration", () => {
  it("defaults to embedded backends, the offline model and the pool-exhaustion scenario", () => {
    const config = loadConfig({})
    expect(config.redisUrl).toBeNull()
    expect(config.mysqlUrl).toBeNull()
    expect(config.model).toEqual({ kind: "offline" })
    expect(config.scenario).toBe("db-pool-exhaustion")
    expect(describeBackends(config)).toEqual({
      canonical_store: "in-memory",
      audit: "in-memory",
      business_datasource: "disabled",
      model: "offline",
      scenario: "db-pool-exhaustion"
    })
  })

  it("selects Redis, MySQL and an OpenAI-compatible model from the environment", () => {
    const config = loadConfig({
      REDIS_URL: "redis://127.0.0.1:6379",
      MYSQL_URL: "mysql://root@127.0.0.1:3306/test",
      OPENAI_BASE_URL: "https://llm.example/v1",
      OPENAI_API_KEY: "k",
      MODEL: "m",
      SCENARIO: "calm"
    })
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379")
    expect(config.mysqlUrl).toBe("mysql://root@127.0.0.1:3306/test")
    expect(config.model).toMatchObject({
      kind: "openai-compatible",
      baseUrl: "https://llm.example/v1",
      model: "m"
    })
    expect(config.scenario).toBe("calm")
    expect(describeBackends(config).model).toBe("openai-compatible:m")
    expect(JSON.stringify(describeBackends(config))).not.toContain('k"')
  })

  it("the --scenario override wins over SCENARIO", () => {
    expect(loadConfig({ SCENARIO: "calm" }, { scenario: "oom-killed" }).scenario).toBe("oom-killed")
  })

  it("rejects incomplete model settings and malformed numbers with the variable's name", () => {
    expect(() => loadConfig({ OPENAI_API_KEY: "k" })).toThrow(
      new ConfigError({ field: "OPENAI_BASE_URL", reason: "required with OPENAI_API_KEY" })
    )
    expect(() => loadConfig({ OPENAI_BASE_URL: "https://x", OPENAI_API_KEY: "k" })).toThrow("MODEL")
    expect(() => loadConfig({ PORT: "http" })).toThrow("PORT")
    expect(() => loadConfig({ REDIS_URL: "http://x" })).toThrow("REDIS_URL: expected a redis: or rediss: URL")
    expect(() => loadConfig({ SCENARIO: "x" })).toThrow('SCENARIO: unknown scenario "x"')
  })

  it("reads the database of a MySQL URL", () => {
    expect(mysqlDatabaseOf("mysql://root@127.0.0.1:3306/test")).toBe("test")
    expect(() => mysqlDatabaseOf("mysql://root@127.0.0.1:3306/")).toThrow("MYSQL_URL")
  })
})
