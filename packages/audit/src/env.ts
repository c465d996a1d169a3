import {
  type AuditSink,
  EnvConfig,
  type InvalidConfig,
  MAX_TIMER_MS,
  readEnvConfig,
  readEnvConfigSync
} from "@aiops-harness/core"
import { Config, Effect, Layer, type Redacted } from "effect"
import type { AuditConfigError, MigrationError } from "./errors.js"
import { AuditHealth, type AuditObserver } from "./health.js"
import { InMemoryAudit } from "./memory.js"
import { MysqlAudit, type MysqlAuditConfig } from "./mysql/audit.js"
import type { TraceQuery } from "./trace.js"

/** The MySQL audit settings the environment can set; `url` stays `Redacted`. */
export type MysqlAuditSettings = Omit<MysqlAuditConfig, "url" | "observer" | "migrate"> & {
  readonly url: Redacted.Redacted<string>
}

/** Which audit the configuration chose, with its settings. */
export type AuditSettings =
  | { readonly _tag: "InMemory" }
  | { readonly _tag: "Mysql"; readonly mysql: MysqlAuditSettings }

/** `mysql://` or `mariadb://` naming a database (the audit tables live there). */
export const MYSQL_URL_OPTIONS = {
  protocols: ["mysql:", "mariadb:"],
  /** The URL names a database. */
  check: (url: URL) => url.pathname.replace(/^\//, "").length > 0,
  expected: "a mysql: or mariadb: URL naming a database (mysql://user@host:3306/db)"
} as const

const positive = (name: string) => EnvConfig.optionalInt(name, { min: 1 })
const millis = (name: string) => EnvConfig.optionalInt(name, { min: 1, max: MAX_TIMER_MS })

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>

/**
 * The audit the environment describes: MySQL with `MYSQL_URL` (`Redacted`; must name a
 * database), with the optional `AUDIT_MYSQL_CONNECTION_LIMIT`, `AUDIT_MYSQL_CONNECT_TIMEOUT_MS`,
 * `AUDIT_MYSQL_QUERY_TIMEOUT_MS`, `AUDIT_MYSQL_WRITE_TIMEOUT_MS`, `AUDIT_MYSQL_QUEUE_LIMIT`,
 * `AUDIT_BREAKER_FAILURES`, `AUDIT_BREAKER_RESET_MS`, `AUDIT_STALE_RUN_MS` (strict positive
 * integers, milliseconds at most 2147483647); the in-memory audit otherwise. A malformed value
 * fails with `InvalidConfig` naming the variable.
 */
export const auditConfig: Config.Config<AuditSettings> = Config.all({
  url: EnvConfig.secretUrl("MYSQL_URL", MYSQL_URL_OPTIONS),
  connectionLimit: positive("AUDIT_MYSQL_CONNECTION_LIMIT"),
  connectTimeoutMs: millis("AUDIT_MYSQL_CONNECT_TIMEOUT_MS"),
  queryTimeoutMs: millis("AUDIT_MYSQL_QUERY_TIMEOUT_MS"),
  writeTimeoutMs: millis("AUDIT_MYSQL_WRITE_TIMEOUT_MS"),
  queueLimit: positive("AUDIT_MYSQL_QUEUE_LIMIT"),
  failureThreshold: positive("AUDIT_BREAKER_FAILURES"),
  resetAfterMs: millis("AUDIT_BREAKER_RESET_MS"),
  staleRunMs: millis("AUDIT_STALE_RUN_MS")
}).pipe(
  Config.map(
    ({ url, failureThreshold, resetAfterMs, ...pool }): AuditSettings =>
      url === undefined
        ? { _tag: "InMemory" }
        : {
            _tag: "Mysql",
            mysql: { url, ...defined(pool), breaker: defined({ failureThreshold, resetAfterMs }) }
          }
  )
)

/** Options of {@link auditLayer}. */
export interface AuditLayerOptions {
  /** Told of breaker transitions, dropped writes and repairs (metrics, logs). */
  readonly observer?: AuditObserver
}

type AuditServices = AuditSink | TraceQuery | AuditHealth

/**
 * The audit the settings chose, both providing `AuditHealth`. MySQL: the schema is migrated when
 * the layer is built.
 */
export const auditLayer = (
  settings: AuditSettings,
  options: AuditLayerOptions = {}
): Layer.Layer<AuditServices, AuditConfigError | MigrationError> => {
  if (settings._tag === "InMemory") return Layer.merge(InMemoryAudit.layer, AuditHealth.inMemory)
  return MysqlAudit.layer({
    ...settings.mysql,
    ...(options.observer ? { observer: options.observer } : {}),
    url: settings.mysql.url,
    migrate: true
  })
}

/** Reads `config` (default {@link auditConfig}) when built, then the audit it chose. */
export const auditLayerConfig = (
  config: Config.Config<AuditSettings> = auditConfig,
  options: AuditLayerOptions = {}
): Layer.Layer<AuditServices, AuditConfigError | MigrationError | InvalidConfig> =>
  Layer.unwrap(Effect.map(readEnvConfig(config), (settings) => auditLayer(settings, options)))

/**
 * `auditLayer` of `env` read at once: throws `InvalidConfig` naming the variable on a malformed
 * value.
 */
export const auditLayerFromEnv = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: AuditLayerOptions = {}
): Layer.Layer<AuditServices, AuditConfigError | MigrationError> =>
  auditLayer(readEnvConfigSync(auditConfig, env), options)
