import { Config, Effect, Exit, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import {
  EnvConfig,
  InvalidConfig,
  MAX_TIMER_MS,
  readEnvConfig,
  readEnvConfigSync,
  rejectConfig,
  revealed
} from "../src/index.js"
import { invalidConfigOf } from "../src/testing/index.js"

type Env = Record<string, string | undefined>

const read = <A>(config: Config.Config<A>, env: Env): A => readEnvConfigSync(config, env)

const failure = invalidConfigOf

describe("EnvConfig.int / optionalInt", () => {
  const port = EnvConfig.int("PORT", 8787, { min: 0, max: 65535 })

  it("reads a strict decimal integer, trimmed; absent or blank -> fallback", () => {
    expect(read(port, { PORT: " 9000 " })).toBe(9000)
    expect(read(port, {})).toBe(8787)
    expect(read(port, { PORT: "" })).toBe(8787)
    expect(read(port, { PORT: "   " })).toBe(8787)
    expect(read(EnvConfig.optionalInt("N"), {})).toBeUndefined()
    expect(read(EnvConfig.optionalInt("N"), { N: "-3" })).toBe(-3)
  })

  it.each(["12abc", "1e3", "0x10", "1.0", "1.5", "NaN", "Infinity", "abc", "+-1"])(
    "refuses %s with one message format",
    (text) => {
      const error = failure(port, { PORT: text })
      expect(error.variable).toBe("PORT")
      expect(error.expected).toBe("an integer in 0..65535")
      expect(error.message).toBe(`PORT: expected an integer in 0..65535, got "${text}"`)
    }
  )

  it("refuses values out of range, and unsafe integers", () => {
    expect(failure(port, { PORT: "65536" }).got).toBe("65536")
    expect(failure(port, { PORT: "-1" }).got).toBe("-1")
    expect(failure(EnvConfig.optionalInt("N"), { N: "9007199254740993" }).expected).toBe("an integer")
    expect(failure(EnvConfig.optionalInt("N", { min: 1 }), { N: "0" }).expected).toBe("an integer >= 1")
  })

  it("caps milliseconds at MAX_TIMER_MS when asked", () => {
    const ms = EnvConfig.optionalInt("T_MS", { min: 1, max: MAX_TIMER_MS })
    expect(read(ms, { T_MS: String(MAX_TIMER_MS) })).toBe(MAX_TIMER_MS)
    expect(failure(ms, { T_MS: String(MAX_TIMER_MS + 1) }).message).toBe(
      `T_MS: expected an integer in 1..${MAX_TIMER_MS}, got "${MAX_TIMER_MS + 1}"`
    )
  })

  it("shortens a long value in the error", () => {
    const got = failure(port, { PORT: "9".repeat(200) }).got
    expect(got).toBe(`${"9".repeat(64)}…`)
  })
})

describe("EnvConfig.boolean / oneOf / string", () => {
  it("reads true/1/false/0 in any case; refuses anything else", () => {
    const b = EnvConfig.boolean("FLAG", false)
    expect(read(b, { FLAG: "TRUE" })).toBe(true)
    expect(read(b, { FLAG: "1" })).toBe(true)
    expect(read(b, { FLAG: "False" })).toBe(false)
    expect(read(b, { FLAG: "0" })).toBe(false)
    expect(read(b, {})).toBe(false)
    expect(failure(b, { FLAG: "yes" }).message).toBe('FLAG: expected true or false, got "yes"')
  })

  it("oneOf matches case-insensitively and returns the listed spelling", () => {
    const level = EnvConfig.oneOf("LOG_LEVEL", ["debug", "info"], "info")
    expect(read(level, { LOG_LEVEL: "DEBUG" })).toBe("debug")
    expect(read(level, {})).toBe("info")
    expect(failure(level, { LOG_LEVEL: "loud" }).message).toBe(
      'LOG_LEVEL: expected one of debug, info, got "loud"'
    )
  })

  it("string trims and falls back", () => {
    expect(read(EnvConfig.string("HOST", "127.0.0.1"), { HOST: " ::1 " })).toBe("::1")
    expect(read(EnvConfig.string("HOST", "127.0.0.1"), {})).toBe("127.0.0.1")
    expect(read(EnvConfig.string("HOST"), {})).toBeUndefined()
  })
})

describe("EnvConfig.url / secretUrl / secret", () => {
  const redis = { protocols: ["redis:", "rediss:"] }

  it("url returns the text of a URL of an accepted scheme", () => {
    expect(read(EnvConfig.url("U", redis), { U: "redis://h:1" })).toBe("redis://h:1")
    expect(read(EnvConfig.url("U", redis), {})).toBeUndefined()
  })

  it("url masks credentials in the error", () => {
    const error = failure(EnvConfig.url("U", redis), { U: "http://user:hunter2@h:1" })
    expect(error.message).toBe('U: expected a redis: or rediss: URL, got "http://<redacted>@h:1"')
    expect(error.message).not.toContain("hunter2")
    expect(failure(EnvConfig.url("U", redis), { U: "not a url" }).got).toBe("not a url")
  })

  it("url applies a further check with its own description", () => {
    const mysql = EnvConfig.url("M", {
      protocols: ["mysql:"],
      check: (u) => u.pathname.length > 1,
      expected: "a mysql: URL naming a database"
    })
    expect(read(mysql, { M: "mysql://root@h/db" })).toBe("mysql://root@h/db")
    expect(failure(mysql, { M: "mysql://root@h" }).message).toBe(
      'M: expected a mysql: URL naming a database, got "mysql://<redacted>@h"'
    )
  })

  it("secretUrl is Redacted and never shown in an error", () => {
    const value = read(EnvConfig.secretUrl("U", redis), { U: "redis://:pw@h:1" })
    expect(Redacted.isRedacted(value)).toBe(true)
    expect(String(value)).not.toContain("pw")
    expect(JSON.stringify({ value })).not.toContain("pw")
    expect(revealed(value!)).toBe("redis://:pw@h:1")
    const error = failure(EnvConfig.secretUrl("U", redis), { U: "http://:pw@h:1" })
    expect(error.message).toBe('U: expected a redis: or rediss: URL, got "<redacted>"')
    expect(JSON.stringify(error)).not.toContain("pw")
  })

  it("secret is Redacted; absent -> undefined", () => {
    const key = read(EnvConfig.secret("KEY"), { KEY: " sk-1 " })
    expect(String(key)).toBe("<redacted:KEY>")
    expect(revealed(key!)).toBe("sk-1")
    expect(read(EnvConfig.secret("KEY"), {})).toBeUndefined()
  })

  it("revealed passes a plain value through", () => {
    expect(revealed("plain")).toBe("plain")
  })
})

describe("EnvConfig.parsed, rejectConfig, readEnvConfig", () => {
  const pairs = EnvConfig.parsed("PAIRS", {
    expected: "k=v pairs",
    parse: (text) => (/^\w+=\w+$/.test(text) ? text.split("=") : undefined)
  })

  it("parsed uses the parser and its description", () => {
    expect(read(pairs, { PAIRS: "a=b" })).toEqual(["a", "b"])
    expect(failure(pairs, { PAIRS: "ab" }).message).toBe('PAIRS: expected k=v pairs, got "ab"')
    const secretPairs = EnvConfig.parsed("P", { expected: "x", parse: () => undefined, secret: true })
    expect(failure(secretPairs, { P: "token" }).got).toBe("<redacted>")
  })

  it("rejectConfig fails a cross-variable check with InvalidConfig", () => {
    const both = Config.all({ a: EnvConfig.string("A"), b: EnvConfig.string("B") }).pipe(
      Config.mapEffect((v) =>
        v.a !== undefined && v.b === undefined
          ? rejectConfig({ variable: "B", expected: "a value (required with A)", got: "" })
          : Effect.succeed(v)
      )
    )
    expect(read(both, { A: "1", B: "2" })).toEqual({ a: "1", b: "2" })
    expect(failure(both, { A: "1" }).message).toBe('B: expected a value (required with A), got ""')
    const instance = new InvalidConfig({ variable: "X", expected: "y", got: "z" })
    expect(failure(Config.succeed(1).pipe(Config.mapEffect(() => rejectConfig(instance))), {})).toBe(instance)
  })

  it("readEnvConfig fails in the error channel; reads the ambient provider without env", async () => {
    const exit = await Effect.runPromiseExit(readEnvConfig(EnvConfig.int("N", 1), { N: "x" }))
    expect(Exit.isFailure(exit)).toBe(true)
    const error = await Effect.runPromise(Effect.flip(readEnvConfig(EnvConfig.int("N", 1), { N: "x" })))
    expect(error._tag).toBe("InvalidConfig")
    process.env.AIOPS_CONFIG_TEST_N = "41"
    try {
      expect(await Effect.runPromise(readEnvConfig(EnvConfig.int("AIOPS_CONFIG_TEST_N", 1)))).toBe(41)
    } finally {
      delete process.env.AIOPS_CONFIG_TEST_N
    }
  })

  it("invalidConfigOf (testing) throws when the config reads fine or fails otherwise", () => {
    expect(() => invalidConfigOf(EnvConfig.int("N", 1), {})).toThrow("expected InvalidConfig, read 1")
    const dies = Config.succeed(1).pipe(Config.mapEffect(() => Effect.die(new RangeError("boom"))))
    expect(() => invalidConfigOf(dies, {})).toThrow(RangeError)
  })

  it("a plain Effect Config failure becomes InvalidConfig too", () => {
    const error = failure(Config.Int("N"), { N: "x" })
    expect(error.variable).toBe("configuration")
    expect(error.message).toMatch(/^configuration: expected a valid value, got "/)
  })
})
