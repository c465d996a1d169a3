import { fromPool, make as makeMysqlClient, type MysqlConnection, MysqlError } from "@aiops-harness/mysql"
import { Effect, Redacted } from "effect"
import type mysql from "mysql2/promise"
import { MigrationError } from "../errors.js"

/** One schema version: its statements run in order, once, then the version is recorded. */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

const TABLE_OPTIONS = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

/**
 * The audit schema, oldest first. Never edit an applied migration: add a new version.
 * Column sizes match `AUDIT_LIMITS` (bounds are enforced in code before any write).
 * Portable across MySQL 8 and MariaDB 10.11 (`JSON` is `LONGTEXT` + `JSON_VALID` on MariaDB).
 */
export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "audit_tables",
    statements: [
      `CREATE TABLE IF NOT EXISTS diagnosis_run (
        run_id VARCHAR(128) NOT NULL,
        session_id VARCHAR(128) NOT NULL,
        \`query\` VARCHAR(2000) NULL,
        status VARCHAR(16) NOT NULL,
        intent VARCHAR(128) NULL,
        release_result VARCHAR(128) NULL,
        latency_ms BIGINT NULL,
        total_token_count BIGINT NULL,
        usage_complete TINYINT(1) NULL,
        final_content TEXT NULL,
        started_at BIGINT NULL,
        finished_at BIGINT NULL,
        expected_timeline_events INT NULL,
        expected_agent_steps INT NULL,
        expected_tool_invocations INT NULL,
        expected_token_usages INT NULL,
        failed_writes INT NULL,
        PRIMARY KEY (run_id),
        KEY idx_diagnosis_run_session_run (session_id, run_id),
        KEY idx_diagnosis_run_started_at (started_at)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS run_timeline_event (
        run_id VARCHAR(128) NOT NULL,
        seq INT NOT NULL,
        session_id VARCHAR(128) NOT NULL,
        type VARCHAR(32) NOT NULL,
        at BIGINT NOT NULL,
        payload JSON NOT NULL,
        PRIMARY KEY (run_id, seq),
        KEY idx_run_timeline_event_session_run (session_id, run_id)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS agent_step (
        id BIGINT NOT NULL AUTO_INCREMENT,
        run_id VARCHAR(128) NOT NULL,
        session_id VARCHAR(128) NOT NULL,
        step_id VARCHAR(128) NOT NULL,
        step_index INT NOT NULL,
        started_at BIGINT NOT NULL,
        latency_ms BIGINT NOT NULL,
        outcome VARCHAR(128) NOT NULL,
        tool_call_ids JSON NOT NULL,
        usage_available TINYINT(1) NOT NULL,
        total_tokens BIGINT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_agent_step_run_step (run_id, step_id),
        KEY idx_agent_step_session_run (session_id, run_id)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS tool_invocation (
        id BIGINT NOT NULL AUTO_INCREMENT,
        run_id VARCHAR(128) NOT NULL,
        session_id VARCHAR(128) NOT NULL,
        tool_call_id VARCHAR(128) NOT NULL,
        tool_name VARCHAR(128) NOT NULL,
        step_id VARCHAR(128) NULL,
        status VARCHAR(16) NULL,
        evidence_status VARCHAR(16) NULL,
        error_code VARCHAR(32) NULL,
        latency_ms BIGINT NOT NULL,
        request_bytes BIGINT NOT NULL,
        raw_bytes BIGINT NOT NULL,
        projection_bytes BIGINT NOT NULL,
        truncated TINYINT(1) NOT NULL,
        returned_count INT NULL,
        started_at BIGINT NOT NULL,
        metadata JSON NOT NULL,
        PRIMARY KEY (id),
        UNIQUE KEY uq_tool_invocation_run_call (run_id, tool_call_id),
        KEY idx_tool_invocation_session_run (session_id, run_id)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS model_token_usage (
        run_id VARCHAR(128) NOT NULL,
        seq INT NOT NULL,
        session_id VARCHAR(128) NOT NULL,
        component VARCHAR(32) NOT NULL,
        component_index INT NOT NULL,
        model VARCHAR(128) NOT NULL,
        usage_available TINYINT(1) NOT NULL,
        prompt_tokens BIGINT NULL,
        completion_tokens BIGINT NULL,
        total_tokens BIGINT NULL,
        at BIGINT NOT NULL,
        PRIMARY KEY (run_id, seq),
        KEY idx_model_token_usage_session_run (session_id, run_id)
      ) ${TABLE_OPTIONS}`
    ]
  },
  {
    // A run whose model calls reported no usage has an unknown total: NULL, never 0.
    // Re-applying the MODIFY is a no-op (idempotent), on MySQL 8 and MariaDB alike.
    version: 2,
    name: "run_total_tokens_nullable",
    statements: ["ALTER TABLE diagnosis_run MODIFY COLUMN total_token_count BIGINT NULL"]
  }
]

/** The audit tables, in the order a reader may dump them. */
export const AUDIT_TABLES = [
  "diagnosis_run",
  "run_timeline_event",
  "agent_step",
  "tool_invocation",
  "model_token_usage"
] as const

/** What `migrate` did: versions applied now and versions already recorded. */
export interface MigrationReport {
  /** Versions applied by this call, in order. */
  readonly applied: ReadonlyArray<number>
  /** Versions that were already recorded in `schema_migrations`. */
  readonly alreadyApplied: ReadonlyArray<number>
}

/** Options of `migrate`. */
export interface MigrateOptions {
  /** Defaults to the audit schema (`migrations`). */
  readonly migrations?: ReadonlyArray<Migration>
  /** How long to wait for another migrator's lock, in seconds (default 30). */
  readonly lockTimeoutSeconds?: number
  /** Connect timeout when given a URL (default 5000). */
  readonly connectTimeoutMs?: number
}

/** A migration's DDL may rebuild a table: its statements get a generous ceiling, not the client's 5 s. */
const MIGRATION_STATEMENT_TIMEOUT_MS = 10 * 60_000

/** What `migrate` runs on: a mysql2 pool, or a URL (plain or `Redacted`). */
export type MigrateTarget = mysql.Pool | string | Redacted.Redacted<string>

/** A client over the target: a new single-connection pool for a URL, the caller's pool otherwise. */
const clientOf = (target: MigrateTarget, connectTimeoutMs: number) => {
  const options = { name: "audit-migrate", connectTimeoutMs, queryTimeoutMs: MIGRATION_STATEMENT_TIMEOUT_MS }
  return typeof target === "string" || Redacted.isRedacted(target)
    ? makeMysqlClient({ ...options, url: target, connectionLimit: 1 })
    : fromPool(target, options)
}

const exec = (
  conn: MysqlConnection,
  sql: string,
  values: ReadonlyArray<unknown>,
  onError: (cause: unknown) => MigrationError
) => Effect.mapError(conn.query<unknown>(sql, values), onError)

/**
 * Applies the pending migrations, each version once, recorded in `schema_migrations`.
 * Idempotent and safe to run concurrently: migrators serialize on a server-side named lock
 * (per database), and every statement is itself idempotent (`IF NOT EXISTS`, a `MODIFY` to
 * the same definition). An applied version whose name differs from the code's is `VERSION_DRIFT`. Takes a mysql2 pool or a URL.
 */
export const migrate = (
  target: MigrateTarget,
  options: MigrateOptions = {}
): Effect.Effect<MigrationReport, MigrationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const list = [...(options.migrations ?? migrations)].sort((a, b) => a.version - b.version)
      const client = yield* clientOf(target, options.connectTimeoutMs ?? 5000)
      return yield* client.withConnection((conn) => migrateOn(conn, list, options.lockTimeoutSeconds ?? 30))
    })
  ).pipe(
    Effect.mapError((error) =>
      error instanceof MysqlError ? new MigrationError({ reason: "UNAVAILABLE", cause: error }) : error
    )
  )

/** Applies `list` on one connection, holding the per-database migration lock. */
const migrateOn = (conn: MysqlConnection, list: ReadonlyArray<Migration>, lockTimeoutSeconds: number) =>
  Effect.gen(function* () {
    const unavailable = (cause: unknown) => new MigrationError({ reason: "UNAVAILABLE", cause })
    yield* exec(
      conn,
      `CREATE TABLE IF NOT EXISTS schema_migrations (
          version INT NOT NULL,
          name VARCHAR(200) NOT NULL,
          applied_at BIGINT NOT NULL,
          PRIMARY KEY (version)
        ) ${TABLE_OPTIONS}`,
      [],
      (cause) => new MigrationError({ reason: "STATEMENT_FAILED", cause })
    )
    const lockName = "CONCAT('aiops_audit_migrate:', LEFT(SHA1(DATABASE()), 32))"
    const lockRows = yield* exec(
      conn,
      `SELECT GET_LOCK(${lockName}, ?) AS got`,
      [lockTimeoutSeconds],
      unavailable
    )
    const got = (lockRows as Array<{ got: number | null }>)[0]?.got
    if (Number(got) !== 1) return yield* new MigrationError({ reason: "LOCK_TIMEOUT" })
    return yield* applyPending(conn, list).pipe(
      Effect.ensuring(exec(conn, `SELECT RELEASE_LOCK(${lockName})`, [], unavailable).pipe(Effect.ignore))
    )
  })

/** Applies the versions `schema_migrations` does not record yet (the lock is held). */
const applyPending = (conn: MysqlConnection, list: ReadonlyArray<Migration>) =>
  Effect.gen(function* () {
    const unavailable = (cause: unknown) => new MigrationError({ reason: "UNAVAILABLE", cause })
    const rows = yield* exec(conn, "SELECT version, name FROM schema_migrations", [], unavailable)
    const recorded = new Map(
      (rows as Array<{ version: number; name: string }>).map((r) => [Number(r.version), r.name])
    )
    const applied: Array<number> = []
    const alreadyApplied: Array<number> = []
    for (const migration of list) {
      const name = recorded.get(migration.version)
      if (name !== undefined) {
        if (name !== migration.name) {
          return yield* new MigrationError({ reason: "VERSION_DRIFT", version: migration.version })
        }
        alreadyApplied.push(migration.version)
        continue
      }
      for (const statement of migration.statements) {
        yield* exec(
          conn,
          statement,
          [],
          (cause) => new MigrationError({ reason: "STATEMENT_FAILED", version: migration.version, cause })
        )
      }
      yield* exec(
        conn,
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
        [migration.version, migration.name, Date.now()],
        (cause) => new MigrationError({ reason: "STATEMENT_FAILED", version: migration.version, cause })
      )
      applied.push(migration.version)
    }
    return { applied, alreadyApplied } satisfies MigrationReport
  })
