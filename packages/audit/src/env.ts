import type { AuditSink } from "@aiops-harness/core"
import { Layer } from "effect"
import type { AuditConfigError, MigrationError } from "./errors.js"
import { AuditHealth, type AuditObserver } from "./health.js"
import { InMemoryAudit } from "./memory.js"
import { MysqlAudit } from "./mysql/audit.js"
import type { TraceQuery } from "./trace.js"

const positive = (text: string | undefined): number | undefined => {
  if (text === undefined || text.trim() === "") return undefined
  const n = Number(text)
  return Number.isFinite(n) ? n : Number.NaN
}

/**
 * `MYSQL_URL` set: MySQL (schema migrated when the layer is built; optional
 * `AUDIT_MYSQL_CONNECTION_LIMIT`, `AUDIT_MYSQL_CONNECT_TIMEOUT_MS`, `AUDIT_MYSQL_QUERY_TIMEOUT_MS`,
 * `AUDIT_MYSQL_WRITE_TIMEOUT_MS`, `AUDIT_MYSQL_QUEUE_LIMIT`, `AUDIT_BREAKER_FAILURES`,
 * `AUDIT_BREAKER_RESET_MS`, `AUDIT_STALE_RUN_MS`).
 * Otherwise the in-memory audit. Both provide `AuditHealth`.
 */
export const auditLayerFromEnv = (
  env: Record<string, string | undefined> = process.env,
  options: { readonly observer?: AuditObserver } = {}
): Layer.Layer<AuditSink | TraceQuery | AuditHealth, AuditConfigError | MigrationError> => {
  const url = env.MYSQL_URL?.trim()
  if (!url) return Layer.merge(InMemoryAudit.layer, AuditHealth.inMemory)
  const failureThreshold = positive(env.AUDIT_BREAKER_FAILURES)
  const resetAfterMs = positive(env.AUDIT_BREAKER_RESET_MS)
  return MysqlAudit.layer({
    ...(options.observer ? { observer: options.observer } : {}),
    breaker: {
      ...(failureThreshold !== undefined ? { failureThreshold } : {}),
      ...(resetAfterMs !== undefined ? { resetAfterMs } : {})
    },
    staleRunMs: positive(env.AUDIT_STALE_RUN_MS),
    url,
    migrate: true,
    connectionLimit: positive(env.AUDIT_MYSQL_CONNECTION_LIMIT),
    connectTimeoutMs: positive(env.AUDIT_MYSQL_CONNECT_TIMEOUT_MS),
    queryTimeoutMs: positive(env.AUDIT_MYSQL_QUERY_TIMEOUT_MS),
    writeTimeoutMs: positive(env.AUDIT_MYSQL_WRITE_TIMEOUT_MS),
    queueLimit: positive(env.AUDIT_MYSQL_QUEUE_LIMIT)
  })
}
