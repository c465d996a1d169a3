import { Cause, Config, ConfigProvider, Data, Effect, Option, Redacted } from "effect"

/**
 * A configuration value is unusable. `got` is what was read, shortened, with credentials masked,
 * or `<redacted>` for a secret; an absent required value reads `""`. One message format for
 * every variable: `NAME: expected <expected>, got "<got>"`.
 */
export class InvalidConfig extends Data.TaggedError("InvalidConfig")<{
  /** The environment variable (or CLI option, e.g. `--port`). */
  readonly variable: string
  /** What a valid value looks like. */
  readonly expected: string
  readonly got: string
}> {
  override get message() {
    return `${this.variable}: expected ${this.expected}, got "${this.got}"`
  }
}

/** Shown instead of a secret's value. */
export const REDACTED_TEXT = "<redacted>"

/** The largest delay Node's timers accept (2^31 - 1 ms); larger ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647

const GOT_MAX_CHARS = 64

/** `scheme://user:pw@host` -> `scheme://<redacted>@host`, shortened: safe to show. */
const shown = (raw: string): string => {
  const masked = raw.replace(/\/\/[^/@\s]*@/g, `//${REDACTED_TEXT}@`)
  return masked.length > GOT_MAX_CHARS ? `${masked.slice(0, GOT_MAX_CHARS)}…` : masked
}

/**
 * Fails a `Config` with `InvalidConfig` (carried inside Effect's `ConfigError` until
 * `readEnvConfig` unwraps it). For checks across variables inside `Config.mapEffect`.
 */
export const rejectConfig = (
  invalid: InvalidConfig | ConstructorParameters<typeof InvalidConfig>[0]
): Effect.Effect<never, Config.ConfigError> => {
  const error = invalid instanceof InvalidConfig ? invalid : new InvalidConfig(invalid)
  return Effect.fail(
    new Config.ConfigError(new ConfigProvider.SourceError({ message: error.message, cause: error }))
  )
}

/** The trimmed value of `name`, `undefined` when absent or blank. */
const raw = (name: string): Config.Config<string | undefined> =>
  Config.String(name).pipe(
    Config.option,
    Config.map((o) => {
      const v = Option.getOrUndefined(o)?.trim()
      return v ? v : undefined
    })
  )

interface Parser<T> {
  /** What a valid value looks like (`an integer in 1..50`). */
  readonly expected: string
  /** The value, or `undefined` when `text` is not valid. */
  readonly parse: (text: string) => T | undefined
  /** Never show the value in an error. */
  readonly secret?: boolean
}

/** `name` parsed by `parse`; absent -> `undefined`; invalid -> `InvalidConfig`. */
const parsed = <T>(name: string, parser: Parser<T>): Config.Config<T | undefined> =>
  raw(name).pipe(
    Config.mapEffect((text) => {
      if (text === undefined) return Effect.succeed(undefined)
      const value = parser.parse(text)
      if (value !== undefined) return Effect.succeed(value)
      return rejectConfig({
        variable: name,
        expected: parser.expected,
        got: parser.secret === true ? REDACTED_TEXT : shown(text)
      })
    })
  )

const withFallback =
  <T>(fallback: T | undefined) =>
  (self: Config.Config<T | undefined>): Config.Config<T> =>
    Config.map(self, (v) => (v === undefined ? (fallback as T) : v))

function stringConfig(name: string): Config.Config<string | undefined>
function stringConfig(name: string, fallback: string): Config.Config<string>
function stringConfig(name: string, fallback?: string): Config.Config<string | undefined> {
  return raw(name).pipe(withFallback(fallback))
}

/** Bounds of an integer setting ({@link EnvConfig.int}). */
export interface IntOptions {
  /** Default `Number.MIN_SAFE_INTEGER`. */
  readonly min?: number
  /** Default `Number.MAX_SAFE_INTEGER`; milliseconds use {@link MAX_TIMER_MS}. */
  readonly max?: number
}

const intParser = (options: IntOptions): Parser<number> => {
  const min = options.min ?? Number.MIN_SAFE_INTEGER
  const max = options.max ?? Number.MAX_SAFE_INTEGER
  const expected =
    options.min === undefined && options.max === undefined
      ? "an integer"
      : options.max === undefined
        ? `an integer >= ${min}`
        : `an integer in ${min}..${max}`
  return {
    expected,
    // Strict: decimal digits only ("12abc", "1e3", "0x10", "1.0" are refused).
    parse: (text) => {
      if (!/^-?\d+$/.test(text)) return undefined
      const n = Number(text)
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined
    }
  }
}

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, "1": true, false: false, "0": false }

/** What a URL setting must be ({@link EnvConfig.url}, {@link EnvConfig.secretUrl}). */
export interface UrlOptions {
  /** Accepted schemes with their colon (`["redis:", "rediss:"]`). */
  readonly protocols: ReadonlyArray<string>
  /** A further rule (e.g. "names a database"), described by `expected`. */
  readonly check?: (url: URL) => boolean
  /** Replaces the generated description (`a redis: or rediss: URL`). */
  readonly expected?: string
}

const urlParser = (options: UrlOptions, secret: boolean): Parser<string> => ({
  expected: options.expected ?? `a ${options.protocols.join(" or ")} URL`,
  secret,
  parse: (text) => {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return undefined
    }
    if (!options.protocols.includes(url.protocol)) return undefined
    if (options.check !== undefined && !options.check(url)) return undefined
    return text
  }
})

/**
 * Environment variables as Effect `Config`s with one error type (`InvalidConfig`). Values are
 * trimmed; an empty or blank value counts as absent. Compose them with `Config.all` and read
 * the result once with {@link readEnvConfig} / {@link readEnvConfigSync}.
 */
export const EnvConfig = {
  /** A string; absent -> `fallback` (or `undefined`). */
  string: stringConfig,
  /** A strict decimal integer in `[min, max]`; absent -> `fallback`. */
  int: (name: string, fallback: number, options: IntOptions = {}): Config.Config<number> =>
    parsed(name, intParser(options)).pipe(withFallback(fallback)),
  /** A strict decimal integer in `[min, max]`; absent -> `undefined`. */
  optionalInt: (name: string, options: IntOptions = {}): Config.Config<number | undefined> =>
    parsed(name, intParser(options)),
  /** `true`/`1` or `false`/`0` (any case); absent -> `fallback`. */
  boolean: (name: string, fallback: boolean): Config.Config<boolean> =>
    parsed(name, {
      expected: "true or false",
      parse: (text) => BOOLEANS[text.toLowerCase()]
    }).pipe(withFallback(fallback)),
  /** One of `values` (compared lower-cased); absent -> `fallback`. */
  oneOf: <const V extends string>(name: string, values: ReadonlyArray<V>, fallback: V): Config.Config<V> =>
    parsed(name, {
      expected: `one of ${values.join(", ")}`,
      parse: (text) => values.find((v) => v.toLowerCase() === text.toLowerCase())
    }).pipe(withFallback(fallback)),
  /** A URL of one of `options.protocols` (credentials in it are masked in errors); absent -> `undefined`. */
  url: (name: string, options: UrlOptions): Config.Config<string | undefined> =>
    parsed(name, urlParser(options, false)),
  /** Like `url`, for URLs that may carry a password: `Redacted`, never shown in errors. */
  secretUrl: (name: string, options: UrlOptions): Config.Config<Redacted.Redacted<string> | undefined> =>
    parsed(name, urlParser(options, true)).pipe(
      Config.map((v) => (v === undefined ? undefined : Redacted.make(v, { label: name })))
    ),
  /** A secret (API key, token): `Redacted`; absent -> `undefined`. */
  secret: (name: string): Config.Config<Redacted.Redacted<string> | undefined> =>
    raw(name).pipe(Config.map((v) => (v === undefined ? undefined : Redacted.make(v, { label: name })))),
  /** `name` through `parser.parse` (`undefined`: invalid); absent -> `undefined`. */
  parsed
} as const

const unwrapError = (error: Config.ConfigError): InvalidConfig => {
  const cause = error.cause
  if (cause._tag === "SourceError" && cause.cause instanceof InvalidConfig) return cause.cause
  // Not built by EnvConfig (a plain `Config.Int(...)`): Effect's own text, which names the path.
  return new InvalidConfig({
    variable: "configuration",
    expected: "a valid value",
    got: shown(error.message)
  })
}

/**
 * Reads `config` from `env` (default: the ambient `ConfigProvider`, i.e. `process.env`),
 * failing with `InvalidConfig`.
 */
export const readEnvConfig = <A>(
  config: Config.Config<A>,
  env?: Readonly<Record<string, string | undefined>>
): Effect.Effect<A, InvalidConfig> =>
  (env === undefined ? config : config.parse(ConfigProvider.fromEnvRecord({ ...env }))).pipe(
    Effect.mapError(unwrapError)
  )

/** `readEnvConfig` run synchronously: returns the value or throws `InvalidConfig`. */
export const readEnvConfigSync = <A>(
  config: Config.Config<A>,
  env: Readonly<Record<string, string | undefined>> = process.env
): A => {
  const exit = Effect.runSyncExit(readEnvConfig(config, env))
  if (exit._tag === "Success") return exit.value
  throw Cause.squash(exit.cause)
}

/**
 * The plain value of a secret or of a string that is not one: for the one call that hands it to
 * a client library (ioredis, mysql2, fetch headers). Never log the result.
 */
export const revealed = <T>(value: T | Redacted.Redacted<T>): T =>
  Redacted.isRedacted(value) ? Redacted.value(value as Redacted.Redacted<T>) : (value as T)
