import { Data } from "effect"
import { type TelemetryConfig, telemetryConfigFromEnv } from "./telemetry.js"
import { DEFAULT_SCENARIO, isScenarioId, SCENARIO_IDS, type ScenarioId } from "./demo/logs.js"

/** The configuration is unusable: `field` names the variable or option, `reason` says why. */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly field: string
  readonly reason: string
}> {
  override get message() {
    return `${this.field}: ${this.reason}`
  }
}

export type ModelConfig =
  | { readonly kind: "offline" }
  | {
      readonly kind: "openai-compatible"
      readonly baseUrl: string
      readonly apiKey: string
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
  /** `REDIS_URL`: canonical store in Redis; absent -> in-memory store. */
  readonly redisUrl: string | null
  /** `MYSQL_URL`: durable audit + demo business schema (administrator); absent -> in-memory audit, no `query_mysql`. */
  readonly mysqlUrl: string | null
  /**
   * `MYSQL_QUERY_URL`: the SELECT-only user `query_mysql` runs as (same server as `MYSQL_URL`;
   * `migrate` and startup create it with SELECT on the demo schema). Absent -> no `query_mysql`.
   */
  readonly mysqlQueryUrl: string | null
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
  /** The whole environment, handed to the packages' `*FromEnv` helpers. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** Default HTTP request body limit: a question is at most 2000 characters, 64 KB is ample. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024

export type Env = Readonly<Record<string, string | undefined>>

const nonEmpty = (value: string | undefined): string | null => {
  const v = value?.trim()
  return v ? v : null
}

const intIn = (
  field: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number
): number => {
  const v = nonEmpty(raw)
  if (v === null) return fallback
  const n = Number(v)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError({ field, reason: `expected an integer in ${min}..${max}, got "${v}"` })
  }
  return n
}

const bool = (field: string, raw: string | undefined, fallback: boolean): boolean => {
  const v = nonEmpty(raw)?.toLowerCase() ?? null
  if (v === null) return fallback
  if (v === "true" || v === "1") return true
  if (v === "false" || v === "0") return false
  throw new ConfigError({ field, reason: `expected true or false, got "${v.slice(0, 20)}"` })
}

const headerName = (field: string, raw: string | undefined): string | null => {
  const v = nonEmpty(raw)
  if (v === null) return null
  if (!/^[A-Za-z0-9-]{1,64}$/.test(v))
    throw new ConfigError({ field, reason: "expected an HTTP header name" })
  return v.toLowerCase()
}

/** `a=1&b=2` (a leading `?` allowed); values are not echoed in errors. */
const queryOf = (field: string, raw: string | undefined): Readonly<Record<string, string>> | null => {
  const v = nonEmpty(raw)
  if (v === null) return null
  const params = new URLSearchParams(v.replace(/^\?/, ""))
  const out: Record<string, string> = {}
  for (const [k, value] of params) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(k))
      throw new ConfigError({ field, reason: "expected name=value pairs" })
    out[k] = value
  }
  if (Object.keys(out).length === 0) throw new ConfigError({ field, reason: "expected name=value pairs" })
  return out
}

const url = (field: string, raw: string | undefined, protocols: ReadonlyArray<string>): string | null => {
  const v = nonEmpty(raw)
  if (v === null) return null
  let parsed: URL
  try {
    parsed = new URL(v)
  } catch {
    // Never echo the value: a URL may carry a password.
    throw new ConfigError({ field, reason: "not a valid URL" })
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError({ field, reason: `expected a ${protocols.join(" or ")} URL` })
  }
  return v
}

const LOG_LEVELS: Record<string, AppConfig["logLevel"] | undefined> = {
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error"
}

export interface ConfigOverrides {
  readonly scenario?: string
  readonly port?: string | number
}

/**
 * Reads the app configuration from the environment (and CLI overrides). Throws `ConfigError`
 * with the offending variable's name; values that may hold secrets are never echoed.
 */
export const loadConfig = (env: Env = process.env, overrides: ConfigOverrides = {}): AppConfig => {
  const scenarioRaw = overrides.scenario ?? nonEmpty(env.SCENARIO) ?? DEFAULT_SCENARIO
  if (!isScenarioId(scenarioRaw)) {
    throw new ConfigError({
      field: overrides.scenario !== undefined ? "--scenario" : "SCENARIO",
      reason: `unknown scenario "${scenarioRaw}" (one of: ${SCENARIO_IDS.join(", ")})`
    })
  }
  const baseUrl = url("OPENAI_BASE_URL", env.OPENAI_BASE_URL, ["http:", "https:"])
  const apiKey = nonEmpty(env.OPENAI_API_KEY)
  const modelName = nonEmpty(env.MODEL)
  let model: ModelConfig = { kind: "offline" }
  if (baseUrl !== null || apiKey !== null) {
    if (baseUrl === null)
      throw new ConfigError({ field: "OPENAI_BASE_URL", reason: "required with OPENAI_API_KEY" })
    if (apiKey === null)
      throw new ConfigError({ field: "OPENAI_API_KEY", reason: "required with OPENAI_BASE_URL" })
    if (modelName === null) throw new ConfigError({ field: "MODEL", reason: "required with OPENAI_BASE_URL" })
    model = {
      kind: "openai-compatible",
      baseUrl,
      apiKey,
      model: modelName,
      timeoutMs: intIn("MODEL_TIMEOUT_MS", env.MODEL_TIMEOUT_MS, 60_000, 1000, 600_000),
      maxRetries: intIn("MODEL_MAX_RETRIES", env.MODEL_MAX_RETRIES, 2, 0, 10),
      stream: bool("MODEL_STREAM", env.MODEL_STREAM, false),
      apiKeyHeader: headerName("MODEL_API_KEY_HEADER", env.MODEL_API_KEY_HEADER),
      query: queryOf("MODEL_QUERY", env.MODEL_QUERY)
    }
  }
  const portRaw = overrides.port !== undefined ? String(overrides.port) : env.PORT
  const mysqlUrl = url("MYSQL_URL", env.MYSQL_URL, ["mysql:", "mariadb:"])
  const mysqlQueryUrl = url("MYSQL_QUERY_URL", env.MYSQL_QUERY_URL, ["mysql:", "mariadb:"])
  if (mysqlQueryUrl !== null) {
    if (mysqlUrl === null)
      throw new ConfigError({
        field: "MYSQL_QUERY_URL",
        reason: "requires MYSQL_URL (the demo schema lives there)"
      })
    const queryUser = decodeURIComponent(new URL(mysqlQueryUrl).username)
    if (queryUser === "")
      throw new ConfigError({ field: "MYSQL_QUERY_URL", reason: "must name a SELECT-only user" })
    if (queryUser === decodeURIComponent(new URL(mysqlUrl).username))
      throw new ConfigError({
        field: "MYSQL_QUERY_URL",
        reason: "must use a SELECT-only user, not the MYSQL_URL administrator"
      })
  }
  const levelRaw = (nonEmpty(env.LOG_LEVEL) ?? "info").toLowerCase()
  const logLevel = LOG_LEVELS[levelRaw]
  if (logLevel === undefined) {
    throw new ConfigError({
      field: "LOG_LEVEL",
      reason: `expected one of ${Object.keys(LOG_LEVELS).join(", ")}, got "${levelRaw}"`
    })
  }
  return {
    redisUrl: url("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]),
    mysqlUrl,
    mysqlQueryUrl,
    model,
    scenario: scenarioRaw,
    logMinutes: intIn("DEMO_LOG_MINUTES", env.DEMO_LOG_MINUTES, 60, 5, 1440),
    seed: intIn("DEMO_SEED", env.DEMO_SEED, 20260315, 0, 2 ** 31 - 1),
    maxSteps: intIn("MAX_STEPS", env.MAX_STEPS, 8, 1, 50),
    port: intIn(overrides.port !== undefined ? "--port" : "PORT", portRaw, 8787, 0, 65535),
    host: nonEmpty(env.HOST) ?? "127.0.0.1",
    shutdownGraceMs: intIn("SHUTDOWN_GRACE_MS", env.SHUTDOWN_GRACE_MS, 10_000, 0, 600_000),
    telemetry: telemetryConfigFromEnv(env),
    maxBodyBytes: intIn(
      "HTTP_MAX_BODY_BYTES",
      env.HTTP_MAX_BODY_BYTES,
      DEFAULT_MAX_BODY_BYTES,
      256,
      16 * 1024 * 1024
    ),
    logLevel,
    mcpServersConfig: nonEmpty(env.MCP_SERVERS_CONFIG),
    mcpMaxToolCalls: intIn("MCP_MAX_TOOL_CALLS", env.MCP_MAX_TOOL_CALLS, 32, 1, 1000),
    env
  }
}

/** The database name of a MySQL URL (`test` in `mysql://root@127.0.0.1:3306/test`). */
export const mysqlDatabaseOf = (mysqlUrl: string): string => {
  const name = decodeURIComponent(new URL(mysqlUrl).pathname.replace(/^\//, ""))
  if (!name)
    throw new ConfigError({ field: "MYSQL_URL", reason: "must name a database (mysql://user@host:3306/db)" })
  return name
}

/** Where each backend lives, without credentials (for banners and `/healthz`). */
export const describeBackends = (config: AppConfig) => ({
  canonical_store: config.redisUrl ? "redis" : "in-memory",
  audit: config.mysqlUrl ? "mysql" : "in-memory",
  business_datasource: config.mysqlUrl && config.mysqlQueryUrl ? "mysql" : "disabled",
  model: config.model.kind === "offline" ? "offline" : `openai-compatible:${config.model.model}`,
  scenario: config.scenario
})
