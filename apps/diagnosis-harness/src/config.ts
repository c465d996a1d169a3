import { type AuditSettings, auditConfig } from "@aiops-harness/audit"
import {
  EnvConfig,
  InvalidConfig,
  REDACTED_TEXT,
  readEnvConfigSync,
  rejectConfig,
  revealed
} from "@aiops-harness/core"
import { type CanonicalStoreSettings, canonicalStoreConfig } from "@aiops-harness/stores"
import { Config, ConfigProvider, Effect, Redacted } from "effect"
import { DEFAULT_SCENARIO, SCENARIO_IDS, type ScenarioId } from "./demo/logs.js"
import { type TelemetryConfig, telemetryConfig } from "./telemetry.js"

export { InvalidConfig }

export type ModelConfig =
  | { readonly kind: "offline" }
  | {
      readonly kind: "openai-compatible"
      readonly baseUrl: string
      /** `OPENAI_API_KEY`: `Redacted`, revealed only into the request header. */
      readonly apiKey: Redacted.Redacted<string>
      readonly model: string
      readonly timeoutMs: number
      readonly maxRetries: number
      /** `MODEL_STREAM`: ask for streamed completions (deltas joined by the provider client). */
      readonly stream: boolean
      /** `MODEL_API_KEY_HEADER`: header carrying the key instead of `Authorization: Bearer` (Azure: `api-key`). */
      readonly apiKeyHeader: string | null
      /** `MODEL_QUERY`: query parameters of every model request (Azure: `api-version=2024-10-21`). */
      readonly query: Readonly<Record<string, string>> | null
    }

export interface AppConfig {
  /** The canonical store the environment chose (`REDIS_URL` and `CANONICAL_STORE_*`, `REDIS_*`). */
  readonly store: CanonicalStoreSettings
  /** The audit the environment chose (`MYSQL_URL` and `AUDIT_*`). */
  readonly audit: AuditSettings
  /** `REDIS_URL` (`Redacted`): canonical store in Redis; absent -> in-memory store. */
  readonly redisUrl: Redacted.Redacted<string> | null
  /**
   * `MYSQL_URL` (`Redacted`, names a database): durable audit + demo business schema
   * (administrator); absent -> in-memory audit, no `query_mysql`.
   */
  readonly mysqlUrl: Redacted.Redacted<string> | null
  /**
   * `MYSQL_QUERY_URL` (`Redacted`): the SELECT-only user `query_mysql` runs as (same server as
   * `MYSQL_URL`; `migrate` and startup create it with SELECT on the demo schema). Absent -> no `query_mysql`.
   */
  readonly mysqlQueryUrl: Redacted.Redacted<string> | null
  readonly model: ModelConfig
  /** `SCENARIO` / `--scenario`: the demo incident of the embedded log world. */
  readonly scenario: ScenarioId
  /** Minutes of demo logs before "now" (`DEMO_LOG_MINUTES`, default 60). */
  readonly logMinutes: number
  /** Seed of the demo log generator (`DEMO_SEED`). */
  readonly seed: number
  /** Agent step budget (`MAX_STEPS`, default 8). */
  readonly maxSteps: number
  /** HTTP port (`PORT` / `--port`, default 8787). */
  readonly port: number
  /** HTTP bind address (`HOST`, default 127.0.0.1). */
  readonly host: string
  /**
   * `serve`: how long a shutdown waits for the interrupted runs' streams to close before it
   * closes the remaining connections (`SHUTDOWN_GRACE_MS`, default 10000).
   */
  readonly shutdownGraceMs: number
  /** OTLP span export (`OTEL_EXPORTER_OTLP_ENDPOINT`, ...; see `telemetry.ts`); `null`: none. */
  readonly telemetry: TelemetryConfig | null
  /**
   * HTTP: the largest request body accepted (`HTTP_MAX_BODY_BYTES`, default 65536). A bigger one
   * is refused with 413 before it is read whole (declared length, or counted while streaming).
   */
  readonly maxBodyBytes: number
  /** `LOG_LEVEL` (`debug`, `info`, `warn`, `error`; default `info`): JSON logs on stderr. */
  readonly logLevel: "Debug" | "Info" | "Warn" | "Error"
  /**
   * `MCP_SERVERS_CONFIG`: path of the JSON file listing external MCP servers whose allowed tools
   * join the agent's tool list (behind the ToolBoundary); absent -> none.
   */
  readonly mcpServersConfig: string | null
  /** Tool calls one MCP session (one run) may make (`MCP_MAX_TOOL_CALLS`, default 32). */
  readonly mcpMaxToolCalls: number
}

/** Default HTTP request body limit: a question is at most 2000 characters, 64 KB is ample. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024

export type Env = Readonly<Record<string, string | undefined>>

/** `a=1&b=2` (a leading `?` allowed); `undefined`: not name=value pairs. */
const queryOf = (text: string): Readonly<Record<string, string>> | undefined => {
  const out: Record<string, string> = {}
  for (const [k, value] of new URLSearchParams(text.replace(/^\?/, ""))) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(k)) return undefined
    out[k] = value
  }
  return Object.keys(out).length > 0 ? out : undefined
}

const HTTP = { protocols: ["http:", "https:"] }

const modelDetails = (baseUrl: string, apiKey: Redacted.Redacted<string>): Config.Config<ModelConfig> =>
  Config.all({
    model: EnvConfig.string("MODEL"),
    timeoutMs: EnvConfig.int("MODEL_TIMEOUT_MS", 60_000, { min: 1000, max: 600_000 }),
    maxRetries: EnvConfig.int("MODEL_MAX_RETRIES", 2, { min: 0, max: 10 }),
    stream: EnvConfig.boolean("MODEL_STREAM", false),
    apiKeyHeader: EnvConfig.parsed("MODEL_API_KEY_HEADER", {
      expected: "an HTTP header name",
      parse: (text) => (/^[A-Za-z0-9-]{1,64}$/.test(text) ? text.toLowerCase() : undefined)
    }),
    // Query values may carry a token: never shown.
    query: EnvConfig.parsed("MODEL_QUERY", { expected: "name=value pairs", parse: queryOf, secret: true })
  }).pipe(
    Config.mapEffect((m) =>
      m.model === undefined
        ? rejectConfig({
            variable: "MODEL",
            expected: "a model name (required with OPENAI_BASE_URL)",
            got: ""
          })
        : Effect.succeed<ModelConfig>({
            kind: "openai-compatible",
            baseUrl,
            apiKey,
            model: m.model,
            timeoutMs: m.timeoutMs,
            maxRetries: m.maxRetries,
            stream: m.stream,
            apiKeyHeader: m.apiKeyHeader ?? null,
            query: m.query ?? null
          })
    )
  )

/**
 * `OPENAI_BASE_URL` + `OPENAI_API_KEY` + `MODEL`: an OpenAI-compatible model (the `MODEL_*`
 * settings are read only then); none of them: offline.
 */
const modelConfig: Config.Config<ModelConfig> = Config.all({
  baseUrl: EnvConfig.url("OPENAI_BASE_URL", HTTP),
  apiKey: EnvConfig.secret("OPENAI_API_KEY")
}).pipe(
  Config.flatMap(({ baseUrl, apiKey }): Config.Config<ModelConfig> => {
    if (baseUrl === undefined && apiKey === undefined) return Config.succeed({ kind: "offline" })
    if (baseUrl === undefined)
      return missing("OPENAI_BASE_URL", "an http: or https: URL (required with OPENAI_API_KEY)")
    if (apiKey === undefined) return missing("OPENAI_API_KEY", "an API key (required with OPENAI_BASE_URL)")
    return modelDetails(baseUrl, apiKey)
  })
)

const missing = (variable: string, expected: string): Config.Config<never> =>
  Config.succeed(undefined).pipe(Config.mapEffect(() => rejectConfig({ variable, expected, got: "" })))

const userOf = (url: Redacted.Redacted<string>): string => decodeURIComponent(new URL(revealed(url)).username)

/** `MYSQL_QUERY_URL`: requires `MYSQL_URL`, names a user other than its administrator. */
const mysqlQueryUrlConfig = (
  mysqlUrl: Redacted.Redacted<string> | null
): Config.Config<Redacted.Redacted<string> | null> =>
  EnvConfig.secretUrl("MYSQL_QUERY_URL", { protocols: ["mysql:", "mariadb:"] }).pipe(
    Config.mapEffect((queryUrl) => {
      if (queryUrl === undefined) return Effect.succeed(null)
      const reject = (expected: string) =>
        rejectConfig({ variable: "MYSQL_QUERY_URL", expected, got: REDACTED_TEXT })
      if (mysqlUrl === null) return reject("MYSQL_URL to be set too (the demo schema lives there)")
      const user = userOf(queryUrl)
      if (user === "") return reject("a URL naming a SELECT-only user")
      if (user === userOf(mysqlUrl)) return reject("a SELECT-only user, not the MYSQL_URL administrator")
      return Effect.succeed(queryUrl)
    })
  )

const asRedacted = (url: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(url) ? url : Redacted.make(url)

const LOG_LEVELS = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

export interface ConfigOverrides {
  readonly scenario?: string
  readonly port?: string | number
}

/** `config(variable)`, or `config(option)` read from the CLI's value when one was given. */
const overridable = <T>(
  config: (name: string) => Config.Config<T>,
  variable: string,
  option: string,
  value: string | number | undefined
): Config.Config<T> =>
  value === undefined
    ? config(variable)
    : Config.succeed(undefined).pipe(
        Config.mapEffect(() =>
          config(option).parse(ConfigProvider.fromEnvRecord({ [option]: String(value) }))
        )
      )

/**
 * The whole app configuration, read once at startup: every package's settings (store, audit,
 * model, telemetry) and the app's own. Secrets (`REDIS_URL`, `MYSQL_URL`, `MYSQL_QUERY_URL`,
 * `OPENAI_API_KEY`, OTLP headers) are `Redacted`. A bad value fails with `InvalidConfig`
 * naming the variable (or the CLI option).
 */
export const appConfig = (overrides: ConfigOverrides = {}): Config.Config<AppConfig> =>
  Config.all({
    store: canonicalStoreConfig,
    audit: auditConfig,
    model: modelConfig,
    scenario: overridable(
      (name) => EnvConfig.oneOf(name, SCENARIO_IDS, DEFAULT_SCENARIO),
      "SCENARIO",
      "--scenario",
      overrides.scenario
    ),
    logMinutes: EnvConfig.int("DEMO_LOG_MINUTES", 60, { min: 5, max: 1440 }),
    seed: EnvConfig.int("DEMO_SEED", 20260315, { min: 0, max: 2 ** 31 - 1 }),
    maxSteps: EnvConfig.int("MAX_STEPS", 8, { min: 1, max: 50 }),
    port: overridable(
      (name) => EnvConfig.int(name, 8787, { min: 0, max: 65535 }),
      "PORT",
      "--port",
      overrides.port
    ),
    host: EnvConfig.string("HOST", "127.0.0.1"),
    shutdownGraceMs: EnvConfig.int("SHUTDOWN_GRACE_MS", 10_000, { min: 0, max: 600_000 }),
    telemetry: telemetryConfig,
    maxBodyBytes: EnvConfig.int("HTTP_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, {
      min: 256,
      max: 16 * 1024 * 1024
    }),
    logLevel: EnvConfig.oneOf("LOG_LEVEL", ["debug", "info", "warn", "error"], "info").pipe(
      Config.map((level) => LOG_LEVELS[level])
    ),
    mcpServersConfig: EnvConfig.string("MCP_SERVERS_CONFIG"),
    mcpMaxToolCalls: EnvConfig.int("MCP_MAX_TOOL_CALLS", 32, { min: 1, max: 1000 })
  }).pipe(
    Config.flatMap((c) => {
      const mysqlUrl = c.audit._tag === "Mysql" ? c.audit.mysql.url : null
      return Config.map(
        mysqlQueryUrlConfig(mysqlUrl),
        (mysqlQueryUrl): AppConfig => ({
          ...c,
          redisUrl: c.store._tag === "Redis" ? asRedacted(c.store.redis.url) : null,
          mysqlUrl,
          mysqlQueryUrl,
          mcpServersConfig: c.mcpServersConfig ?? null
        })
      )
    })
  )

/** Reads the app configuration from `env` (and CLI overrides). Throws `InvalidConfig`. */
export const loadConfig = (env: Env = process.env, overrides: ConfigOverrides = {}): AppConfig =>
  readEnvConfigSync(appConfig(overrides), env)

/** The one line a configuration error is reported with, at startup and anywhere after. */
export const describeInvalidConfig = (error: InvalidConfig): string => `configuration error: ${error.message}`

/** The database name of a MySQL URL (`test` in `mysql://root@127.0.0.1:3306/test`). */
export const mysqlDatabaseOf = (mysqlUrl: string | Redacted.Redacted<string>): string =>
  decodeURIComponent(new URL(revealed(mysqlUrl)).pathname.replace(/^\//, ""))

/** Where each backend lives, without credentials (for banners and `/healthz`). */
export const describeBackends = (config: AppConfig) => ({
  canonical_store: config.store._tag === "Redis" ? "redis" : "in-memory",
  audit: config.mysqlUrl ? "mysql" : "in-memory",
  business_datasource: config.mysqlUrl && config.mysqlQueryUrl ? "mysql" : "disabled",
  model: config.model.kind === "offline" ? "offline" : `openai-compatible:${config.model.model}`,
  scenario: config.scenario
})
