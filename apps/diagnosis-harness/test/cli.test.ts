import { readFile } from "node:fs/promises"
import { describe, expect, it } from "vitest"
import { revealed } from "@aiops-harness/core"
import { describeBackends, InvalidConfig, loadConfig, mysqlDatabaseOf } from "../src/config.js"
import { main, parseArgs, USAGE, UsageError } from "../src/main.js"
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
    expect(() => parseArgs(["diagnose", "q", "--scenario", "--session", "s"])).toThrow(
      "option --scenario needs a value"
    )
    expect(() => parseArgs(["serve", "--verbose", "1"])).toThrow("unknown option --verbose for serve")
  })

  it.each([
    ["with a value", ["diagnose", "q", "--x", "v"], "--x"],
    ["without a value", ["diagnose", "q", "--x"], "--x"],
    ["as --x=v", ["diagnose", "q", "--x=v"], "--x"],
    ["before the question", ["diagnose", "--x", "q"], "--x"],
    ["short", ["diagnose", "q", "-x"], "-x"],
    ["on serve, without a value", ["serve", "--verbose"], "--verbose"]
  ])("an unknown option is named as such %s", (_name, argv, option) => {
    expect(() => parseArgs(argv)).toThrow(`unknown option ${option} for ${argv[0]}`)
  })

  it("--help / -h anywhere before -- means help; after -- it is an argument", () => {
    expect(parseArgs(["diagnose", "--help"]).command).toBe("help")
    expect(parseArgs(["diagnose", "q", "-h"]).command).toBe("help")
    expect(parseArgs(["-h"]).command).toBe("help")
    expect(parseArgs(["diagnose", "--", "-h"]).positional).toEqual(["-h"])
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
    expect(scenario.err).toContain("--scenario: expected one of ")
    expect(scenario.err).toContain('got "volcano"')
    const session = await run(["diagnose", "why?", "--session", "a:b"])
    expect(session.code).toBe(2)
    expect(session.err).toContain("--session")
  })

  it.each([
    [["help"]],
    [["--help"]],
    [["-h"]],
    [["diagnose", "--help"]],
    [["diagnose", "-h"]],
    [["diagnose", "why?", "--nope", "--help"]],
    [["serve", "--help"]]
  ])("0 for help (%j): the usage on stdout", async (argv) => {
    const r = await run(argv)
    expect(r.code).toBe(0)
    expect(r.out).toContain("usage: diagnosis-harness")
    expect(r.err).toBe("")
  })

  it("2 for a question over 2000 characters, like the HTTP API (nothing runs)", async () => {
    const r = await run(["diagnose", `why ${"x".repeat(2000)}`])
    expect(r.code).toBe(2)
    expect(r.err).toContain("question is limited to 2000 characters")
    expect(r.err).toContain("usage: diagnosis-harness")
    expect(r.err).not.toContain("diagnosis-harness: store=")
    // Surrounding blanks do not count, as in the API (the question is trimmed first).
    const ok = await run(["diagnose", `  ${"x".repeat(2000)}  `])
    expect(ok.err).not.toContain("question is limited")
    expect(ok.code).toBe(0)
  })

  it.each([
    ["with a value", ["diagnose", "why?", "--x", "v"], "--x"],
    ["without a value", ["diagnose", "why?", "--x"], "--x"],
    ["short", ["diagnose", "why?", "-x"], "-x"]
  ])("2 for an unknown option %s, named, with the usage", async (_name, argv, option) => {
    const r = await run(argv)
    expect(r.code).toBe(2)
    expect(r.err).toContain(`unknown option ${option}`)
    expect(r.err).not.toContain("needs a value")
    expect(r.err).toContain("usage: diagnosis-harness")
  })

  it("2 for a malformed --session, with the error and the usage", async () => {
    const r = await run(["diagnose", "why?", "--session", "a:b"])
    expect(r.code).toBe(2)
    expect(r.err).toContain(
      "--session: expected 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit"
    )
    expect(r.err).toContain("usage: diagnosis-harness")
  })

  it("2 for extra positional arguments: one question, quoted", async () => {
    const r = await run(["diagnose", "why", "is", "checkout", "failing?"])
    expect(r.code).toBe(2)
    expect(r.err).toContain("diagnose takes one question; quote it")
    expect(r.err).toContain("usage: diagnosis-harness")
    const quoted = await run(["diagnose", "--", "-5 errors: why?", "more"])
    expect(quoted.code).toBe(2)
    expect(quoted.err).toContain("diagnose takes one question; quote it")
  })

  it("the usage lists every variable the configuration reads", async () => {
    const source = await readFile(new URL("../src/config.ts", import.meta.url), "utf8")
    // Every variable is named by a string literal of its own (`EnvConfig.int("DEMO_SEED", ...)`).
    const names = new Set([...source.matchAll(/"([A-Z][A-Z0-9_]{2,})"/g)].map((m) => m[1]!))
    expect(names).toContain("SHUTDOWN_GRACE_MS")
    expect(names).toContain("DEMO_SEED")
    expect(names.size).toBeGreaterThan(12)
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8")
    for (const name of names) {
      expect(USAGE, name).toMatch(new RegExp(`\\b${name}\\b`))
      expect(readme, name).toMatch(new RegExp(`\\b${name}\\b`))
    }
    // The packages' variables the app hands through (stores, audit).
    for (const name of [
      "CANONICAL_STORE_KEY_PREFIX",
      "REDIS_CLUSTER_NODES",
      "AUDIT_MYSQL_CONNECT_TIMEOUT_MS"
    ])
      expect(USAGE).toContain(name)
  })

  it("1 with a clear message for a bad environment, never echoing the value", async () => {
    const r = await run(["diagnose", "why?"], { MYSQL_URL: "not a url with password hunter2" })
    expect(r.code).toBe(1)
    expect(r.err).toContain(
      'configuration error: MYSQL_URL: expected a mysql: or mariadb: URL naming a database (mysql://user@host:3306/db), got "<redacted>"'
    )
    expect(r.err).not.toContain("hunter2")
  })

  it("1 with the failing backend named when a backend does not answer", async () => {
    const redis = await run(["diagnose", "why is checkout failing?"], { REDIS_URL: "redis://127.0.0.1:1" })
    expect(redis.code).toBe(1)
    expect(redis.err).toContain(
      "error: cannot start: canonical store: Redis at 127.0.0.1:1 is unreachable (connection refused)"
    )
    const mysql = await run(["diagnose", "why is checkout failing?"], {
      MYSQL_URL: "mysql://root@127.0.0.1:1/test"
    })
    expect(mysql.code).toBe(1)
    expect(mysql.err).toContain(
      "error: cannot start: audit: MySQL at 127.0.0.1:1 is unreachable (connection refused)"
    )
  })

  it("1 for migrate without MYSQL_URL", async () => {
    const r = await run(["migrate"])
    expect(r.code).toBe(1)
    expect(r.err).toContain("MYSQL_URL is not set")
  })

  it("1 for migrate when MySQL does not answer", async () => {
    const r = await run(["migrate"], { MYSQL_URL: "mysql://root@127.0.0.1:1/test" })
    expect(r.code).toBe(1)
    expect(r.err).toContain("error: migration: MySQL at 127.0.0.1:1 is unreachable (connection refused)")
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
    expect(revealed(config.redisUrl!)).toBe("redis://127.0.0.1:6379")
    expect(revealed(config.mysqlUrl!)).toBe("mysql://root@127.0.0.1:3306/test")
    expect(config.model.kind === "openai-compatible" && String(config.model.apiKey)).toBe(
      "<redacted:OPENAI_API_KEY>"
    )
    expect(config.model).toMatchObject({
      kind: "openai-compatible",
      baseUrl: "https://llm.example/v1",
      model: "m"
    })
    expect(config.scenario).toBe("calm")
    expect(describeBackends(config).model).toBe("openai-compatible:m")
    expect(JSON.stringify(describeBackends(config))).not.toContain('k"')
  })

  it("reads the provider settings: streaming, the key header and query parameters (Azure OpenAI)", () => {
    const base = {
      OPENAI_BASE_URL: "https://r.openai.azure.com/openai/deployments/d",
      OPENAI_API_KEY: "k",
      MODEL: "m"
    }
    expect(loadConfig(base).model).toMatchObject({ stream: false, apiKeyHeader: null, query: null })
    expect(
      loadConfig({
        ...base,
        MODEL_STREAM: "true",
        MODEL_API_KEY_HEADER: "api-key",
        MODEL_QUERY: "?api-version=2024-10-21"
      }).model
    ).toMatchObject({ stream: true, apiKeyHeader: "api-key", query: { "api-version": "2024-10-21" } })
    expect(() => loadConfig({ ...base, MODEL_STREAM: "yes" })).toThrow("MODEL_STREAM")
    expect(() => loadConfig({ ...base, MODEL_API_KEY_HEADER: "api key: x" })).toThrow("MODEL_API_KEY_HEADER")
    expect(() => loadConfig({ ...base, MODEL_QUERY: "=" })).toThrow("MODEL_QUERY")
  })

  it("the --scenario override wins over SCENARIO", () => {
    expect(loadConfig({ SCENARIO: "calm" }, { scenario: "oom-killed" }).scenario).toBe("oom-killed")
  })

  it("the --port override wins over PORT and is reported under its own name", async () => {
    expect(loadConfig({ PORT: "9000" }, { port: "9100" }).port).toBe(9100)
    expect(loadConfig({ PORT: "9000" }).port).toBe(9000)
    expect(() => loadConfig({ PORT: "9000" }, { port: "99999" })).toThrow(
      '--port: expected an integer in 0..65535, got "99999"'
    )
    const { io, err } = captureIo()
    expect(await main(["serve", "--port", "12abc"], io)).toBe(2)
    expect(err.join("\n")).toContain('--port: expected an integer in 0..65535, got "12abc"')
  })

  it("rejects incomplete model settings and malformed numbers with the variable's name", () => {
    expect(() => loadConfig({ OPENAI_API_KEY: "k" })).toThrow(
      new InvalidConfig({
        variable: "OPENAI_BASE_URL",
        expected: "an http: or https: URL (required with OPENAI_API_KEY)",
        got: ""
      })
    )
    expect(() => loadConfig({ OPENAI_BASE_URL: "https://x", OPENAI_API_KEY: "k" })).toThrow("MODEL")
    expect(() => loadConfig({ PORT: "http" })).toThrow("PORT")
    expect(() => loadConfig({ REDIS_URL: "http://x" })).toThrow("REDIS_URL: expected a redis: or rediss: URL")
    expect(() => loadConfig({ SCENARIO: "x" })).toThrow(/^SCENARIO: expected one of .*, got "x"$/)
    expect(() => loadConfig({ DEMO_SEED: "12abc" })).toThrow(
      'DEMO_SEED: expected an integer in 0..2147483647, got "12abc"'
    )
    expect(() => loadConfig({ OPENAI_BASE_URL: "https://x" })).toThrow(
      'OPENAI_API_KEY: expected an API key (required with OPENAI_BASE_URL), got ""'
    )
  })

  it("reads the database of a MySQL URL", () => {
    expect(mysqlDatabaseOf("mysql://root@127.0.0.1:3306/test")).toBe("test")
    // A MYSQL_URL without a database is refused when the configuration is read.
    expect(() => loadConfig({ MYSQL_URL: "mysql://root:pw@127.0.0.1:3306/" })).toThrow(
      'MYSQL_URL: expected a mysql: or mariadb: URL naming a database (mysql://user@host:3306/db), got "<redacted>"'
    )
  })
})
