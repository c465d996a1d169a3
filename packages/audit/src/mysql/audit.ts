import {
  AuditSink,
  type AuditSinkShape,
  AuditWriteError,
  type CircuitSnapshot,
  type CircuitTransition,
  type DiagnosisRunFinish
} from "@aiops-harness/core"
import { make as makeMysqlClient, MysqlError, mysqlUrlProblem } from "@aiops-harness/mysql"
import { Clock, Context, Effect, Layer, type Redacted, type Scope, Semaphore } from "effect"
import type mysql from "mysql2/promise"
import {
  agentStepRow,
  runFinishRow,
  runStartRow,
  timelineRow,
  tokenUsageRow,
  toolInvocationRow
} from "../bounds.js"
import { AuditConfigError, AuditReadError, type MigrationError } from "../errors.js"
import {
  AuditHealth,
  type AuditHealthShape,
  type AuditObserver,
  type AuditReadiness,
  type AuditStatus,
  type RepairReport
} from "../health.js"
import {
  type AgentStepRow,
  buildTrace,
  checkTraceIds,
  encodeRunCursor,
  resolveListRuns,
  type RUN_STATUSES,
  runListEntry,
  runSortAt,
  type RunSummary,
  type StoredTimelineRow,
  type TokenLedgerEntry,
  type ToolInvocationEntry,
  TraceQuery,
  type TraceQueryShape
} from "../trace.js"
import { migrate } from "./migrations.js"

/** The columns a run's finish writes besides `status` (a finish and a repaired finish alike). */
const FINISH_COLUMNS = [
  "intent",
  "release_result",
  "latency_ms",
  "total_token_count",
  "usage_complete",
  "final_content",
  "finished_at",
  "expected_timeline_events",
  "expected_agent_steps",
  "expected_tool_invocations",
  "expected_token_usages",
  "failed_writes"
] as const
const FINISH_SET = FINISH_COLUMNS.map((c) => `${c} = ?`).join(", ")

/** The values of {@link FINISH_COLUMNS}, in order; `lost` writes are added to the run's failed ones. */
const finishValues = (r: ReturnType<typeof runFinishRow>, lost: number) => [
  r.intent,
  r.release_result,
  r.latency_ms,
  r.total_token_count,
  r.usage_complete,
  r.final_content,
  r.finished_at,
  r.expected.timeline_events,
  r.expected.agent_steps,
  r.expected.tool_invocations,
  r.expected.token_usages,
  r.failed_writes + lost
]

/** When buffered Timeline events are flushed to MySQL. */
export interface TimelineBatchConfig {
  /** Flush when this many events are buffered. */
  readonly maxEvents: number
  /** Flush buffered events at least this often, in milliseconds. */
  readonly maxDelayMs: number
}

/** Configuration of the MySQL audit (connection, pool, timeouts, batching, breaker, repair). */
export interface MysqlAuditConfig {
  /** `mysql://user:password@host:port/database`; pass it `Redacted` so it cannot be logged by accident. */
  readonly url: string | Redacted.Redacted<string>
  /** Pool size (default 10). */
  readonly connectionLimit?: number
  /** TCP connect timeout (default 5000 ms). */
  readonly connectTimeoutMs?: number
  /** Per-query time limit; the connection is dropped when it passes (default 5000 ms). */
  readonly queryTimeoutMs?: number
  /**
   * Time limit of every audit write, waiting for a pooled connection included (default 2000 ms):
   * past it the write fails with `AuditWriteError` (the run counts it and goes on). Keeps a slow
   * or hung database off the tool call path. A timed-out write may still land later; it stays
   * counted as failed (`missing_writes` may then over-count, never under-count).
   */
  readonly writeTimeoutMs?: number
  /**
   * Callers allowed to wait for a pooled connection (default 100). One more fails at once
   * (writes: `AuditWriteError`, reads: `AuditReadError` `UNAVAILABLE`).
   */
  readonly queueLimit?: number
  /**
   * Buffer timeline events and write them in multi-row inserts. Buffers are flushed every
   * `maxEvents` events, every `maxDelayMs`, before a run's finish record, before a trace read
   * and when the layer is released. Events are acknowledged when buffered, so a failed flush
   * cannot fail the run's own write: the events it lost are counted per run and added to the
   * run's finish record (`failed_writes`, hence `missing_writes`); the in-process
   * `RecorderSummary.failedWrites` does not include them.
   * Default: off (one insert per event, every failure reported).
   */
  readonly timelineBatch?: TimelineBatchConfig | null
  /** Run `migrate` when the layer is built (default false: run it from the CLI). */
  readonly migrate?: boolean
  /**
   * Circuit breaker of every audit query (default: opens after 3 consecutive failures with no
   * success for 1000 ms, probes every 500 ms). While open, writes fail at once (`AuditWriteError`, counted as dropped) and
   * reads with `AuditReadError` `UNAVAILABLE`; a background ping is the half-open probe, so no
   * run waits on a database that is probably still down.
   */
  readonly breaker?: {
    readonly failureThreshold?: number
    readonly resetAfterMs?: number
    /** Open only when no query succeeded for this long too (default 1000 ms; 0: failures alone). */
    readonly openAfterQuietMs?: number
  }
  /**
   * A `RUNNING` run older than this is marked `AUDIT_INCOMPLETE` by the repair pass (at start
   * and each time the breaker closes). Default 15 minutes: longer than any run, so a run still
   * going in another process is never marked.
   */
  readonly staleRunMs?: number
  /** Run the repair pass when the audit is made (default true; bounded by `writeTimeoutMs`). */
  readonly repairOnStart?: boolean
  /** Latency and outcome callbacks (metrics). */
  readonly observer?: AuditObserver
}

/** Defaults of the numeric `MysqlAuditConfig` settings (pool, timeouts, queue, breaker, stale-run age). */
export const defaultMysqlAuditConfig = {
  connectionLimit: 10,
  connectTimeoutMs: 5000,
  queryTimeoutMs: 5000,
  writeTimeoutMs: 500,
  queueLimit: 100,
  failureThreshold: 3,
  resetAfterMs: 500,
  openAfterQuietMs: 1000,
  staleRunMs: 15 * 60_000
} as const

const positiveInt = (field: string, value: number): Effect.Effect<number, AuditConfigError> =>
  Number.isInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(new AuditConfigError({ field, reason: "must be a positive integer" }))

/** Validates a config and fills in the defaults. */
export const resolveMysqlAuditConfig = (config: MysqlAuditConfig) =>
  Effect.gen(function* () {
    const problem = mysqlUrlProblem(config.url)
    if (problem !== null) return yield* new AuditConfigError({ field: "url", reason: problem })
    const batch = config.timelineBatch ?? null
    return {
      // The client accepts mysql:// and mariadb://; the URL stays Redacted if it came so.
      url: config.url,
      connectionLimit: yield* positiveInt(
        "connectionLimit",
        config.connectionLimit ?? defaultMysqlAuditConfig.connectionLimit
      ),
      connectTimeoutMs: yield* positiveInt(
        "connectTimeoutMs",
        config.connectTimeoutMs ?? defaultMysqlAuditConfig.connectTimeoutMs
      ),
      queryTimeoutMs: yield* positiveInt(
        "queryTimeoutMs",
        config.queryTimeoutMs ?? defaultMysqlAuditConfig.queryTimeoutMs
      ),
      writeTimeoutMs: yield* positiveInt(
        "writeTimeoutMs",
        config.writeTimeoutMs ?? defaultMysqlAuditConfig.writeTimeoutMs
      ),
      queueLimit: yield* positiveInt("queueLimit", config.queueLimit ?? defaultMysqlAuditConfig.queueLimit),
      timelineBatch: batch
        ? {
            maxEvents: yield* positiveInt("timelineBatch.maxEvents", batch.maxEvents),
            maxDelayMs: yield* positiveInt("timelineBatch.maxDelayMs", batch.maxDelayMs)
          }
        : null,
      migrate: config.migrate === true,
      failureThreshold: yield* positiveInt(
        "breaker.failureThreshold",
        config.breaker?.failureThreshold ?? defaultMysqlAuditConfig.failureThreshold
      ),
      resetAfterMs: yield* positiveInt(
        "breaker.resetAfterMs",
        config.breaker?.resetAfterMs ?? defaultMysqlAuditConfig.resetAfterMs
      ),
      openAfterQuietMs: config.breaker?.openAfterQuietMs ?? defaultMysqlAuditConfig.openAfterQuietMs,
      staleRunMs: yield* positiveInt("staleRunMs", config.staleRunMs ?? defaultMysqlAuditConfig.staleRunMs),
      observer: config.observer ?? null,
      repairOnStart: config.repairOnStart !== false
    }
  })

/** A child record whose run's `diagnosis_run` record belongs to another session. */
class RunOfAnotherSession {
  readonly _tag = "RunOfAnotherSession"
  readonly message = "run belongs to another session"
}

/** The server refused this statement's data (duplicate key, constraint), not the connection. */
const isRowError = (cause: unknown): boolean => cause instanceof MysqlError && cause.reason === "QUERY"

const isTimeout = (cause: unknown): boolean => cause instanceof MysqlError && cause.reason === "TIMEOUT"

const toBool = (v: unknown): boolean => v === true || Number(v) === 1
const toNum = (v: unknown): number => Number(v)
const toNumOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const toJson = (v: unknown): any => (typeof v === "string" ? JSON.parse(v) : v)
const toStrOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

type Row = Record<string, unknown>

const decodeRun = (r: Row): RunSummary => {
  const finished = r.finished_at !== null
  return {
    run_id: String(r.run_id),
    session_id: String(r.session_id),
    query: toStrOrNull(r.query),
    status: String(r.status) as (typeof RUN_STATUSES)[number],
    intent: toStrOrNull(r.intent),
    release_result: toStrOrNull(r.release_result),
    latency_ms: toNumOrNull(r.latency_ms),
    total_token_count: toNumOrNull(r.total_token_count),
    usage_complete: r.usage_complete === null ? null : toBool(r.usage_complete),
    final_content: toStrOrNull(r.final_content),
    started_at: toNumOrNull(r.started_at),
    finished_at: toNumOrNull(r.finished_at),
    expected: finished
      ? {
          timeline_events: toNum(r.expected_timeline_events),
          agent_steps: toNum(r.expected_agent_steps),
          tool_invocations: toNum(r.expected_tool_invocations),
          token_usages: toNum(r.expected_token_usages)
        }
      : null,
    failed_writes: toNumOrNull(r.failed_writes)
  }
}

const decodeTimeline = (r: Row): StoredTimelineRow => ({
  seq: toNum(r.seq),
  type: String(r.type),
  at: toNum(r.at),
  payload: toJson(r.payload)
})

const decodeStep = (r: Row): AgentStepRow => ({
  step_id: String(r.step_id),
  step_index: toNum(r.step_index),
  started_at: toNum(r.started_at),
  latency_ms: toNum(r.latency_ms),
  outcome: String(r.outcome),
  tool_call_ids: toJson(r.tool_call_ids),
  usage_available: toBool(r.usage_available),
  total_tokens: toNumOrNull(r.total_tokens)
})

const decodeTool = (r: Row): ToolInvocationEntry => ({
  tool_call_id: String(r.tool_call_id),
  tool_name: String(r.tool_name),
  step_id: toStrOrNull(r.step_id),
  status: toStrOrNull(r.status) as ToolInvocationEntry["status"],
  evidence_status: toStrOrNull(r.evidence_status) as ToolInvocationEntry["evidence_status"],
  error_code: toStrOrNull(r.error_code) as ToolInvocationEntry["error_code"],
  latency_ms: toNum(r.latency_ms),
  request_bytes: toNum(r.request_bytes),
  raw_bytes: toNum(r.raw_bytes),
  projection_bytes: toNum(r.projection_bytes),
  truncated: toBool(r.truncated),
  returned_count: toNumOrNull(r.returned_count),
  started_at: toNum(r.started_at),
  metadata: toJson(r.metadata)
})

const decodeUsage = (r: Row): TokenLedgerEntry => ({
  seq: toNum(r.seq),
  component: String(r.component) as TokenLedgerEntry["component"],
  component_index: toNum(r.component_index),
  model: String(r.model),
  usage_available: toBool(r.usage_available),
  prompt_tokens: toNumOrNull(r.prompt_tokens),
  completion_tokens: toNumOrNull(r.completion_tokens),
  total_tokens: toNumOrNull(r.total_tokens),
  at: toNum(r.at)
})

type TimelineValues = [string, string, number, string, number, string]

const AGENT_STEP_COLUMNS = [
  "run_id",
  "session_id",
  "step_id",
  "step_index",
  "started_at",
  "latency_ms",
  "outcome",
  "tool_call_ids",
  "usage_available",
  "total_tokens"
] as const
const TOOL_INVOCATION_COLUMNS = [
  "run_id",
  "session_id",
  "tool_call_id",
  "tool_name",
  "step_id",
  "status",
  "evidence_status",
  "error_code",
  "latency_ms",
  "request_bytes",
  "raw_bytes",
  "projection_bytes",
  "truncated",
  "returned_count",
  "started_at",
  "metadata"
] as const
const TOKEN_USAGE_COLUMNS = [
  "run_id",
  "session_id",
  "seq",
  "component",
  "component_index",
  "model",
  "usage_available",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "at"
] as const

/** How many runs' lost batched events are remembered until their finish record. */
const MAX_TRACKED_RUNS = 10_000
/** How many lost finish records are remembered for the repair pass (more: counted, then forgotten). */
const MAX_PENDING_FINISHES = 1000

const callObserver = (f: (() => void) | undefined) => {
  try {
    f?.()
  } catch {
    // an observer never changes the audit
  }
}

/** The MySQL audit: its `AuditSink` and `TraceQuery` operations plus its pool, flushing, health and repair. */
export interface MysqlAuditHandle {
  readonly sink: AuditSinkShape
  readonly trace: TraceQueryShape
  /** Writes buffered timeline events now (no-op when unbatched). */
  readonly flush: Effect.Effect<void>
  readonly pool: mysql.Pool
  readonly status: Effect.Effect<AuditStatus & { readonly breaker: CircuitSnapshot }>
  readonly check: Effect.Effect<AuditReadiness>
  /** Runs a repair pass now (it also runs at start and when the breaker closes). */
  readonly repair: (trigger: RepairReport["trigger"]) => Effect.Effect<RepairReport, AuditWriteError>
  readonly lastRepair: Effect.Effect<RepairReport | null>
}

/**
 * MySQL/MariaDB audit over one pool, acquired in the current scope (`pool.end()` on release).
 * Run `migrate` first (or set `migrate: true`).
 */
export const makeMysqlAudit = (
  config: MysqlAuditConfig
): Effect.Effect<MysqlAuditHandle, AuditConfigError | MigrationError, Scope.Scope> =>
  Effect.gen(function* () {
    const cfg = yield* resolveMysqlAuditConfig(config)
    const client = yield* makeMysqlClient({
      url: cfg.url,
      name: "audit-mysql",
      connectionLimit: cfg.connectionLimit,
      queueLimit: cfg.queueLimit,
      connectTimeoutMs: cfg.connectTimeoutMs,
      queryTimeoutMs: cfg.queryTimeoutMs,
      breaker: {
        failureThreshold: cfg.failureThreshold,
        resetAfterMs: cfg.resetAfterMs,
        openAfterQuietMs: cfg.openAfterQuietMs
      },
      onBreakerTransition: (t) => logTransition(t),
      driver: {
        waitForConnections: true,
        enableKeepAlive: true,
        charset: "utf8mb4",
        supportBigNumbers: true,
        bigNumberStrings: false,
        jsonStrings: true
      }
    }).pipe(Effect.mapError((error) => new AuditConfigError({ field: "url", reason: error.message })))
    const pool = client.pool
    if (cfg.migrate) yield* migrate(pool, { connectTimeoutMs: cfg.connectTimeoutMs })

    /**
     * One query through the client's breaker, within `limitMs` (waiting for a pooled connection
     * included). No audit call may be the half-open probe: the background ping is.
     */
    const query = (sql: string, values: ReadonlyArray<unknown>, limitMs: number) =>
      client.query(sql, values, { timeoutMs: limitMs, probe: false })
    const breaker = client.breaker
    let inFlight = 0
    let droppedWrites = 0
    const timed = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (ms: number, ok: boolean) => void) =>
      Effect.suspend(() => {
        const started = performance.now()
        inFlight++
        return Effect.onExit(effect, (exit) =>
          Effect.sync(() => {
            inFlight--
            done(performance.now() - started, exit._tag === "Success")
          })
        )
      })
    const write = (record: string, sql: string, values: ReadonlyArray<unknown>) =>
      timed(query(sql, values, cfg.writeTimeoutMs), (durationMs, ok) =>
        callObserver(() => cfg.observer?.onWrite?.({ record, durationMs, ok }))
      ).pipe(Effect.mapError((cause) => new AuditWriteError({ record, cause })))
    const read = (sql: string, values: ReadonlyArray<unknown>) =>
      timed(query(sql, values, cfg.queryTimeoutMs + cfg.connectTimeoutMs), (durationMs, ok) =>
        callObserver(() => cfg.observer?.onRead?.({ durationMs, ok }))
      ).pipe(
        Effect.map((rows) => rows as Array<Row>),
        Effect.mapError(
          (cause) => new AuditReadError({ reason: isTimeout(cause) ? "TIMEOUT" : "UNAVAILABLE", cause })
        )
      )
    /** A sink write that, failing, is counted as a dropped audit record. */
    const counted = <A>(effect: Effect.Effect<A, AuditWriteError>) =>
      Effect.tapError(effect, (error) =>
        Effect.andThen(
          Effect.sync(() => {
            droppedWrites++
          }),
          Effect.logDebug("audit write dropped").pipe(
            Effect.annotateLogs({
              component: "audit",
              record: error.record,
              reason:
                error.cause instanceof MysqlError && error.cause.reason === "CIRCUIT_OPEN"
                  ? "CIRCUIT_OPEN"
                  : isTimeout(error.cause)
                    ? "TIMEOUT"
                    : "ERROR"
            })
          )
        )
      )

    /**
     * Inserts child rows of one (run, session), rejected as a whole when the run's
     * `diagnosis_run` record exists for another session (no run record: accepted).
     */
    const insertChildren = (
      record: string,
      table: string,
      columns: ReadonlyArray<string>,
      runId: string,
      sessionId: string,
      rows: ReadonlyArray<ReadonlyArray<unknown>>
    ) => {
      const aliased = `SELECT ${columns.map((_, i) => `? AS c${i}`).join(", ")}`
      const plain = `SELECT ${columns.map(() => "?").join(", ")}`
      const union = rows.map((_, i) => (i === 0 ? aliased : plain)).join(" UNION ALL ")
      const sql = `INSERT INTO ${table} (${columns.join(", ")})
        SELECT ${columns.map((_, i) => `v.c${i}`).join(", ")} FROM (${union}) AS v
        WHERE NOT EXISTS (SELECT 1 FROM diagnosis_run d WHERE d.run_id = ? AND d.session_id <> ?)`
      return write(record, sql, [...rows.flat(), runId, sessionId]).pipe(
        Effect.flatMap((result) =>
          Number((result as { affectedRows?: number }).affectedRows ?? 0) === 0 && rows.length > 0
            ? Effect.fail(new AuditWriteError({ record, cause: new RunOfAnotherSession() }))
            : Effect.void
        )
      )
    }

    const TIMELINE_COLUMNS = ["run_id", "session_id", "seq", "type", "at", "payload"] as const
    const insertTimeline = (runId: string, sessionId: string, rows: ReadonlyArray<TimelineValues>) =>
      insertChildren("run_timeline_event", "run_timeline_event", TIMELINE_COLUMNS, runId, sessionId, rows)

    // ---- optional timeline batching -------------------------------------------------------
    const buffer: Array<TimelineValues> = []
    /** Buffered events a flush lost, per (session, run), until that run's finish record takes them. */
    const lostEvents = new Map<string, number>()
    const runKey = (sessionId: string, runId: string) => `${sessionId}\u0000${runId}`
    const countLost = (key: string, n: number) => {
      droppedWrites += n
      lostEvents.set(key, (lostEvents.get(key) ?? 0) + n)
      // Runs that never finish must not grow this map without bound: forget the oldest.
      if (lostEvents.size > MAX_TRACKED_RUNS) {
        const oldest = lostEvents.keys().next()
        if (!oldest.done) lostEvents.delete(oldest.value)
      }
    }
    /** Inserts one (run, session) group; returns how many of its events were lost. */
    const flushGroup = (rows: ReadonlyArray<TimelineValues>): Effect.Effect<number> => {
      const [runId, sessionId] = [rows[0]![0], rows[0]![1]]
      return insertTimeline(runId, sessionId, rows).pipe(
        Effect.as(0),
        Effect.catch((error) =>
          // A row the server refused (e.g. a duplicate): row by row, so one bad row loses only
          // itself. Timeouts, an unreachable server, another session: every row is lost.
          rows.length > 1 && isRowError(error.cause)
            ? Effect.map(
                Effect.forEach(rows, (row) =>
                  insertTimeline(runId, sessionId, [row]).pipe(
                    Effect.as(0),
                    Effect.catch(() => Effect.succeed(1))
                  )
                ),
                (lost) => lost.reduce((a, b) => a + b, 0)
              )
            : Effect.succeed(rows.length)
        )
      )
    }
    const flushLock = yield* Semaphore.make(1)
    const flush: Effect.Effect<void> = Semaphore.withPermit(
      flushLock,
      Effect.suspend(() => {
        const batch = buffer.splice(0)
        if (batch.length === 0) return Effect.void
        const groups = new Map<string, Array<TimelineValues>>()
        for (const row of batch) {
          const key = runKey(row[1], row[0])
          const group = groups.get(key)
          if (group) group.push(row)
          else groups.set(key, [row])
        }
        return Effect.forEach(
          groups,
          ([key, rows]) =>
            Effect.map(flushGroup(rows), (lost) => (lost > 0 ? countLost(key, lost) : undefined)),
          { concurrency: cfg.connectionLimit, discard: true }
        )
      })
    ).pipe(Effect.uninterruptible, Effect.asVoid)
    /** Flushes, then takes the number of this run's events that flushes lost. */
    const takeLost = (sessionId: string, runId: string) =>
      Effect.andThen(
        flush,
        Effect.sync(() => {
          const key = runKey(sessionId, runId)
          const lost = lostEvents.get(key) ?? 0
          lostEvents.delete(key)
          return lost
        })
      )
    if (cfg.timelineBatch) {
      const every = cfg.timelineBatch.maxDelayMs
      // Finalizers run in reverse: the loop stops, the buffer is flushed, then the pool ends.
      yield* Effect.addFinalizer(() => flush)
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(every), flush)))
    }

    // ---- lost finish records and the repair pass -------------------------------------------
    const pendingFinishes = new Map<string, { readonly run: DiagnosisRunFinish; readonly lost: number }>()
    const rememberFinish = (run: DiagnosisRunFinish, lost: number) => {
      pendingFinishes.set(runKey(run.sessionId, run.runId), { run, lost })
      if (pendingFinishes.size > MAX_PENDING_FINISHES) {
        const oldest = pendingFinishes.keys().next()
        if (!oldest.done) pendingFinishes.delete(oldest.value)
      }
    }
    /** Writes a remembered finish as `AUDIT_INCOMPLETE`, unless the run's record says otherwise. */
    const writeIncomplete = (run: DiagnosisRunFinish, lost: number) =>
      Effect.gen(function* () {
        const r = runFinishRow(run)
        const values = finishValues(r, lost)
        const updated = (yield* write(
          "diagnosis_run",
          `UPDATE diagnosis_run SET status = 'AUDIT_INCOMPLETE', ${FINISH_SET}
           WHERE run_id = ? AND session_id = ? AND status = 'RUNNING'`,
          [...values, r.run_id, r.session_id]
        )) as { affectedRows?: number }
        if ((updated.affectedRows ?? 0) > 0) return
        // No record at all (start lost too): insert it; an existing finished record (a timed-out
        // finish that landed after all) or a run of another session is left alone.
        yield* write(
          "diagnosis_run",
          `INSERT IGNORE INTO diagnosis_run (status, ${FINISH_COLUMNS.join(", ")}, run_id, session_id)
           VALUES ('AUDIT_INCOMPLETE', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [...values, r.run_id, r.session_id]
        )
      })
    let lastRepair: RepairReport | null = null
    const repairLock = yield* Semaphore.make(1)
    const repair = (trigger: RepairReport["trigger"]) =>
      Semaphore.withPermit(
        repairLock,
        Effect.gen(function* () {
          let finishesWritten = 0
          for (const [key, { run, lost }] of [...pendingFinishes]) {
            yield* writeIncomplete(run, lost)
            pendingFinishes.delete(key)
            finishesWritten++
          }
          const now = yield* Clock.currentTimeMillis
          const stale = (yield* write(
            "diagnosis_run",
            "UPDATE diagnosis_run SET status = 'AUDIT_INCOMPLETE' WHERE status = 'RUNNING' AND started_at < ?",
            [now - cfg.staleRunMs]
          )) as { affectedRows?: number }
          const report: RepairReport = {
            trigger,
            at: now,
            finishesWritten,
            staleRuns: stale.affectedRows ?? 0
          }
          lastRepair = report
          if (report.finishesWritten + report.staleRuns > 0) {
            yield* Effect.logWarning("audit repair marked runs AUDIT_INCOMPLETE").pipe(
              Effect.annotateLogs({ component: "audit", ...report })
            )
          }
          return report
        })
      )
    function logTransition(t: CircuitTransition) {
      const annotations = {
        component: "audit",
        breaker: t.name,
        from: t.from,
        to: t.to,
        consecutive_failures: t.consecutiveFailures
      }
      return t.to === "OPEN"
        ? Effect.logWarning(
            "audit circuit breaker opened: audit writes are dropped (fail-open) and counted"
          ).pipe(Effect.annotateLogs(annotations))
        : t.to === "CLOSED"
          ? Effect.logInfo("audit circuit breaker closed: MySQL answers again").pipe(
              Effect.annotateLogs(annotations)
            )
          : Effect.logDebug("audit circuit breaker half-open: probing MySQL").pipe(
              Effect.annotateLogs(annotations)
            )
    }
    const pingLimitMs = Math.min(cfg.writeTimeoutMs * 2, cfg.connectTimeoutMs)
    /** The ping of the background probe (it may be the half-open probe) and of readiness (it may not). */
    const ping = (probe: boolean) => client.query("SELECT 1", [], { timeoutMs: pingLimitMs, probe })
    // The half-open probe runs here, never in a run: when it closes the breaker, repair follows.
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          yield* Effect.sleep(cfg.resetAfterMs)
          if (yield* breaker.probeDue) {
            const closed = yield* Effect.exit(ping(true))
            if (closed._tag === "Success") yield* Effect.ignore(repair("breaker_closed"))
          } else if (pendingFinishes.size > 0 && (yield* breaker.state) === "CLOSED") {
            yield* Effect.ignore(repair("breaker_closed"))
          }
        })
      )
    )
    // Startup repair: best-effort (a database that does not answer is reported by its writes).
    if (cfg.repairOnStart) yield* Effect.ignore(repair("startup"))

    const status = Effect.gen(function* () {
      return {
        backend: "mysql" as const,
        breaker: yield* breaker.snapshot,
        droppedWrites,
        pendingRepairs: pendingFinishes.size,
        queueDepth: inFlight + buffer.length,
        lastRepair
      }
    })
    const check: Effect.Effect<AuditReadiness> = Effect.gen(function* () {
      const state = yield* breaker.state
      if (state !== "CLOSED") return { ready: false, breaker: state, reason: "CIRCUIT_OPEN", latencyMs: 0 }
      const started = performance.now()
      const exit = yield* Effect.exit(ping(false))
      const latencyMs = Math.round(performance.now() - started)
      if (exit._tag === "Success") return { ready: true, breaker: "CLOSED", reason: null, latencyMs }
      const cause = exit.cause.reasons.find((r) => r._tag === "Fail")
      const timeout = cause !== undefined && cause._tag === "Fail" && isTimeout(cause.error)
      return {
        ready: false,
        breaker: yield* breaker.state,
        reason: timeout ? "TIMEOUT" : "UNREACHABLE",
        latencyMs
      }
    })

    const sink: AuditSinkShape = {
      startRun: (run) => {
        const r = runStartRow(run)
        return write(
          "diagnosis_run",
          "INSERT INTO diagnosis_run (run_id, session_id, `query`, status, started_at) VALUES (?, ?, ?, 'RUNNING', ?)",
          [r.run_id, r.session_id, r.query, r.started_at]
        ).pipe(counted, Effect.asVoid)
      },
      finishRun: (run) => {
        let lost = 0
        return Effect.gen(function* () {
          lost = yield* takeLost(run.sessionId, run.runId)
          const r = runFinishRow(run)
          const values = [r.status, ...finishValues(r, lost)]
          const updated = (yield* write(
            "diagnosis_run",
            `UPDATE diagnosis_run SET status = ?, ${FINISH_SET}
             WHERE run_id = ? AND session_id = ?`,
            [...values, r.run_id, r.session_id]
          )) as { affectedRows?: number }
          if ((updated.affectedRows ?? 0) > 0) return
          // The start record was lost: keep the finish (a run of another session fails on the key).
          yield* write(
            "diagnosis_run",
            `INSERT INTO diagnosis_run (status, ${FINISH_COLUMNS.join(", ")}, run_id, session_id)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [...values, r.run_id, r.session_id]
          )
        }).pipe(
          counted,
          // Lost finish record: remembered, written as AUDIT_INCOMPLETE by the next repair pass.
          Effect.tapError((error) =>
            error.cause instanceof RunOfAnotherSession
              ? Effect.void
              : Effect.sync(() => rememberFinish(run, lost))
          ),
          Effect.asVoid
        )
      },
      appendTimelineEvent: (event) => {
        const r = timelineRow(event)
        const values: TimelineValues = [
          event.runId,
          event.sessionId,
          r.seq,
          r.type,
          r.at,
          JSON.stringify(r.payload)
        ]
        const batch = cfg.timelineBatch
        if (!batch) return counted(insertTimeline(event.runId, event.sessionId, [values]))
        return Effect.suspend(() => {
          buffer.push(values)
          return buffer.length >= batch.maxEvents ? flush : Effect.void
        })
      },
      recordAgentStep: (step) => {
        const r = agentStepRow(step)
        return counted(
          insertChildren("agent_step", "agent_step", AGENT_STEP_COLUMNS, step.runId, step.sessionId, [
            [
              step.runId,
              step.sessionId,
              r.step_id,
              r.step_index,
              r.started_at,
              r.latency_ms,
              r.outcome,
              JSON.stringify(r.tool_call_ids),
              r.usage_available,
              r.total_tokens
            ]
          ])
        )
      },
      recordToolInvocation: (invocation) => {
        const r = toolInvocationRow(invocation)
        return counted(
          insertChildren(
            "tool_invocation",
            "tool_invocation",
            TOOL_INVOCATION_COLUMNS,
            invocation.runId,
            invocation.sessionId,
            [
              [
                invocation.runId,
                invocation.sessionId,
                r.tool_call_id,
                r.tool_name,
                r.step_id,
                r.status,
                r.evidence_status,
                r.error_code,
                r.latency_ms,
                r.request_bytes,
                r.raw_bytes,
                r.projection_bytes,
                r.truncated,
                r.returned_count,
                r.started_at,
                JSON.stringify(r.metadata)
              ]
            ]
          )
        )
      },
      recordTokenUsage: (usage) => {
        const r = tokenUsageRow(usage)
        return counted(
          insertChildren(
            "model_token_usage",
            "model_token_usage",
            TOKEN_USAGE_COLUMNS,
            usage.runId,
            usage.sessionId,
            [
              [
                usage.runId,
                usage.sessionId,
                r.seq,
                r.component,
                r.component_index,
                r.model,
                r.usage_available,
                r.prompt_tokens,
                r.completion_tokens,
                r.total_tokens,
                r.at
              ]
            ]
          )
        )
      }
    }

    const where = "WHERE run_id = ? AND session_id = ?"
    const trace: TraceQueryShape = {
      getTrace: (sessionId, runId) =>
        Effect.gen(function* () {
          yield* checkTraceIds(sessionId, runId)
          if (cfg.timelineBatch) yield* flush
          const ids = [runId, sessionId]
          const [runs, timeline, steps, tools, ledger] = yield* Effect.all(
            [
              read(`SELECT * FROM diagnosis_run ${where}`, ids),
              read(`SELECT seq, type, at, payload FROM run_timeline_event ${where} ORDER BY seq`, ids),
              read(`SELECT * FROM agent_step ${where} ORDER BY step_index, id`, ids),
              read(`SELECT * FROM tool_invocation ${where} ORDER BY started_at, id`, ids),
              read(`SELECT * FROM model_token_usage ${where} ORDER BY seq`, ids)
            ],
            { concurrency: "unbounded" }
          )
          const decoded = yield* Effect.try({
            try: () => ({
              sessionId,
              runId,
              run: runs[0] ? decodeRun(runs[0]) : null,
              timeline: timeline.map(decodeTimeline),
              agentSteps: steps.map(decodeStep),
              toolInvocations: tools.map(decodeTool),
              tokenLedger: ledger.map(decodeUsage)
            }),
            catch: (cause) => new AuditReadError({ reason: "CORRUPT_RECORD", cause })
          })
          return yield* buildTrace(decoded)
        }),
      listRuns: (options) =>
        Effect.gen(function* () {
          const resolved = yield* resolveListRuns(options)
          if (cfg.timelineBatch) yield* flush
          const sortAt = "COALESCE(d.started_at, d.finished_at, 0)"
          const conditions: Array<string> = []
          const values: Array<unknown> = []
          if (resolved.sessionId !== null) {
            conditions.push("d.session_id = ?")
            values.push(resolved.sessionId)
          }
          if (resolved.status !== null) {
            conditions.push("d.status = ?")
            values.push(resolved.status)
          }
          if (resolved.releaseResult !== null) {
            conditions.push("d.release_result = ?")
            values.push(resolved.releaseResult)
          }
          if (resolved.before !== null) {
            conditions.push(`(${sortAt} < ? OR (${sortAt} = ? AND d.run_id < ?))`)
            values.push(resolved.before.at, resolved.before.at, resolved.before.runId)
          }
          // Child rows count only for the run's own session (the session rule of every read).
          const found = (table: string) =>
            `(SELECT COUNT(*) FROM ${table} c WHERE c.run_id = d.run_id AND c.session_id = d.session_id)`
          const rows = yield* read(
            `SELECT d.*, ${found("run_timeline_event")} AS found_timeline_events,
               ${found("agent_step")} AS found_agent_steps,
               ${found("tool_invocation")} AS found_tool_invocations,
               ${found("model_token_usage")} AS found_token_usages
             FROM diagnosis_run d
             ${conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : ""}
             ORDER BY ${sortAt} DESC, d.run_id DESC
             LIMIT ?`,
            [...values, resolved.limit + 1]
          )
          const entries = yield* Effect.try({
            try: () =>
              rows.map((r) => {
                const run = decodeRun(r)
                return runListEntry(
                  { ...run, status: run.status ?? "RUNNING" },
                  {
                    timeline_events: toNum(r.found_timeline_events),
                    agent_steps: toNum(r.found_agent_steps),
                    tool_invocations: toNum(r.found_tool_invocations),
                    token_usages: toNum(r.found_token_usages)
                  }
                )
              }),
            catch: (cause) => new AuditReadError({ reason: "CORRUPT_RECORD", cause })
          })
          const page = entries.slice(0, resolved.limit)
          const last = page.at(-1)
          return {
            runs: page,
            next_cursor:
              entries.length > resolved.limit && last
                ? encodeRunCursor({ at: runSortAt(last), runId: last.run_id })
                : null
          }
        })
    }

    return { sink, trace, flush, pool, status, check, repair, lastRepair: Effect.sync(() => lastRepair) }
  })

/** MySQL-backed `AuditSink` + `TraceQuery` from one scoped pool. */
export const MysqlAudit = {
  /** Makes the MySQL audit in the current scope (see `makeMysqlAudit`). */
  make: makeMysqlAudit,
  /** The MySQL audit as the `AuditSink`, `TraceQuery` and `AuditHealth` services. */
  layer: (
    config: MysqlAuditConfig
  ): Layer.Layer<AuditSink | TraceQuery | AuditHealth, AuditConfigError | MigrationError> =>
    Layer.effectContext(
      Effect.map(makeMysqlAudit(config), ({ sink, trace, status, check }) => {
        const health: AuditHealthShape = { status, check }
        return Context.make(AuditSink, sink).pipe(
          Context.add(TraceQuery, trace),
          Context.add(AuditHealth, health)
        )
      })
    )
}
