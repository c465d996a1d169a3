import type { AuditSink } from "@aiops-harness/core"
import type { Layer } from "effect"
import type { AuditConfigError, MigrationError } from "./errors.js"
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
 * `AUDIT_MYSQL_WRITE_TIMEOUT_MS`, `AUDIT_MYSQL_QUEUE_LIMIT`).
 * Otherwise the in-memory audit.
 */
export const auditLayerFromEnv = (
  env: Record<string, string | undefined> = process.env
): Layer.Layer<AuditSink | TraceQuery, AuditConfigError | MigrationError> => {
  const url = env.MYSQL_URL?.trim()
  if (!url) return InMemoryAudit.layer
  return MysqlAudit.layer({
    url,
    migrate: true,
    connectionLimit: positive(env.AUDIT_MYSQL_CONNECTION_LIMIT),
    connectTimeoutMs: positive(env.AUDIT_MYSQL_CONNECT_TIMEOUT_MS),
    queryTimeoutMs: positive(env.AUDIT_MYSQL_QUERY_TIMEOUT_MS),
    writeTimeoutMs: positive(env.AUDIT_MYSQL_WRITE_TIMEOUT_MS),
    queueLimit: positive(env.AUDIT_MYSQL_QUEUE_LIMIT)
  })
}
