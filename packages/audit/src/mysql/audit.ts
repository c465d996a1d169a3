import { AuditSink, type AuditSinkShape, AuditWriteError } from "@aiops-harness/core"
import { Context, Effect, Layer, type Scope, Semaphore } from "effect"
import mysql from "mysql2/promise"
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
  type AgentStepRow,
  buildTrace,
  checkTraceIds,
  type RUN_STATUSES,
  type RunSummary,
  type TimelineEntry,
  type TokenLedgerEntry,
  type ToolInvocationEntry,
  TraceQuery,
  type TraceQueryShape
} from "../trace.js"
import { migrate } from "./migrations.js"

export interface TimelineBatchConfig {
  /** Flush when this many events are buffered. */
  readonly maxEvents: number
  /** Flush buffered events at least this often, in milliseconds. */
  readonly maxDelayMs: number
}

export interface MysqlAuditConfig {
  /** `mysql://user:password@host:port/database` */
  readonly url: string
  /** Pool size (default 10). */
  readonly connectionLimit?: number
  /** TCP connect timeout (default 5000 ms). */
  readonly connectTimeoutMs?: number
  /** Per-query time limit; the connection is dropped when it passes (default 5000 ms). */
  readonly queryTimeoutMs?: number
  /**
   * Buffer timeline events and write them in multi-row inserts. Buffers are flushed every
   * `maxEvents` events, every `maxDelayMs`, before a run's finish record, before a trace read
   * and when the layer is released. A failed flush is not reported to the run (the events
   * are already acknowledged); it shows in the trace as a gap (`missing_writes`).
   * Default: off (one insert per event, every failure reported).
   */
  readonly timelineBatch?: TimelineBatchConfig | null
  /** Run `migrate` when the layer is built (default false: run it from the CLI). */
  readonly migrate?: boolean
}

export const defaultMysqlAuditConfig = {
  connectionLimit: 10,
  connectTimeoutMs: 5000,
  queryTimeoutMs: 5000
} as const

const positiveInt = (field: string, value: number): Effect.Effect<number, AuditConfigError> =>
  Number.isInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(new AuditConfigError({ field, reason: "must be a positive integer" }))

/** Validates a config and fills in the defaults. */
export const resolveMysqlAuditConfig = (config: MysqlAuditConfig) =>
  Effect.gen(function* () {
    let protocol: string
    try {
      protocol = new URL(config.url).protocol
    } catch {
      return yield* new AuditConfigError({ field: "url", reason: "not a URL" })
    }
    if (protocol !== "mysql:" && protocol !== "mariadb:") {
      return yield* new AuditConfigError({ field: "url", reason: "expected mysql://" })
    }
    const batch = config.timelineBatch ?? null
    return {
      url: protocol === "mariadb:" ? `mysql:${config.url.slice("mariadb:".length)}` : config.url,
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
      timelineBatch: batch
        ? {
            maxEvents: yield* positiveInt("timelineBatch.maxEvents", batch.maxEvents),
            maxDelayMs: yield* positiveInt("timelineBatch.maxDelayMs", batch.maxDelayMs)
          }
        : null,
      migrate: config.migrate === true
    }
  })

class QueryTimeout {
  readonly _tag = "QueryTimeout"
}

const isTimeout = (cause: unknown): boolean =>
  cause instanceof QueryTimeout ||
  (typeof cause === "object" &&
    cause !== null &&
    ["PROTOCOL_SEQUENCE_TIMEOUT", "ETIMEDOUT"].includes(String((cause as { code?: unknown }).code)))

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

const decodeTimeline = (r: Row): TimelineEntry => ({
  seq: toNum(r.seq),
  type: String(r.type) as TimelineEntry["type"],
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

export interface MysqlAuditHandle {
  readonly sink: AuditSinkShape
  readonly trace: TraceQueryShape
  /** Writes buffered timeline events now (no-op when unbatched). */
  readonly flush: Effect.Effect<void>
  readonly pool: mysql.Pool
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
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() =>
        mysql.createPool({
          uri: cfg.url,
          connectionLimit: cfg.connectionLimit,
          connectTimeout: cfg.connectTimeoutMs,
          waitForConnections: true,
          queueLimit: 0,
          enableKeepAlive: true,
          charset: "utf8mb4",
          supportBigNumbers: true,
          bigNumberStrings: false,
          jsonStrings: true
        })
      ),
      (p) =>
        Effect.promise(() => p.end().catch(() => undefined)).pipe(
          Effect.timeout(cfg.connectTimeoutMs + cfg.queryTimeoutMs),
          Effect.ignore
        )
    )
    if (cfg.migrate) yield* migrate(pool, { connectTimeoutMs: cfg.connectTimeoutMs })

    const query = (sql: string, values: ReadonlyArray<unknown>): Effect.Effect<unknown, unknown> =>
      Effect.tryPromise({
        try: async () => {
          const conn = await pool.getConnection()
          try {
            const [result] = await conn.query({
              sql,
              values: values as Array<unknown>,
              timeout: cfg.queryTimeoutMs
            })
            conn.release()
            return result
          } catch (error) {
            // A timed-out query still runs on the server: that connection must never be reused.
            if (isTimeout(error) || (error as { fatal?: boolean }).fatal) conn.destroy()
            else conn.release()
            throw error
          }
        },
        catch: (cause) => cause
      }).pipe(
        // Covers waiting for a pooled connection as well as the query itself.
        Effect.timeoutOrElse({
          duration: cfg.queryTimeoutMs + cfg.connectTimeoutMs,
          orElse: () => Effect.fail(new QueryTimeout())
        })
      )
    const write = (record: string, sql: string, values: ReadonlyArray<unknown>) =>
      query(sql, values).pipe(Effect.mapError((cause) => new AuditWriteError({ record, cause })))
    const read = (sql: string, values: ReadonlyArray<unknown>) =>
      query(sql, values).pipe(
        Effect.map((rows) => rows as Array<Row>),
        Effect.mapError(
          (cause) => new AuditReadError({ reason: isTimeout(cause) ? "TIMEOUT" : "UNAVAILABLE", cause })
        )
      )

    const TIMELINE_INSERT =
      "INSERT INTO run_timeline_event (run_id, session_id, seq, type, at, payload) VALUES ?"
    const insertTimeline = (rows: ReadonlyArray<TimelineValues>) =>
      write("run_timeline_event", TIMELINE_INSERT, [rows])

    // ---- optional timeline batching -------------------------------------------------------
    const buffer: Array<TimelineValues> = []
    const flushLock = yield* Semaphore.make(1)
    const flush: Effect.Effect<void> = Semaphore.withPermit(
      flushLock,
      Effect.suspend(() => {
        const batch = buffer.splice(0)
        if (batch.length === 0) return Effect.void
        // One multi-row insert; when it fails, row by row so one bad row loses only itself.
        return insertTimeline(batch).pipe(
          Effect.catch(() =>
            Effect.forEach(batch, (row) => Effect.ignore(insertTimeline([row])), { discard: true })
          )
        )
      })
    ).pipe(Effect.uninterruptible, Effect.asVoid)
    if (cfg.timelineBatch) {
      const every = cfg.timelineBatch.maxDelayMs
      // Finalizers run in reverse: the loop stops, the buffer is flushed, then the pool ends.
      yield* Effect.addFinalizer(() => flush)
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(every), flush)))
    }

    const sink: AuditSinkShape = {
      startRun: (run) => {
        const r = runStartRow(run)
        return write(
          "diagnosis_run",
          "INSERT INTO diagnosis_run (run_id, session_id, `query`, status, started_at) VALUES (?, ?, ?, 'RUNNING', ?)",
          [r.run_id, r.session_id, r.query, r.started_at]
        ).pipe(Effect.asVoid)
      },
      finishRun: (run) =>
        Effect.gen(function* () {
          yield* flush
          const r = runFinishRow(run)
          const values = [
            r.status,
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
            r.failed_writes
          ]
          const updated = (yield* write(
            "diagnosis_run",
            `UPDATE diagnosis_run SET status = ?, intent = ?, release_result = ?, latency_ms = ?,
               total_token_count = ?, usage_complete = ?, final_content = ?, finished_at = ?,
               expected_timeline_events = ?, expected_agent_steps = ?, expected_tool_invocations = ?,
               expected_token_usages = ?, failed_writes = ?
             WHERE run_id = ? AND session_id = ?`,
            [...values, r.run_id, r.session_id]
          )) as { affectedRows?: number }
          if ((updated.affectedRows ?? 0) > 0) return
          // The start record was lost: keep the finish (a run of another session fails on the key).
          yield* write(
            "diagnosis_run",
            `INSERT INTO diagnosis_run (status, intent, release_result, latency_ms, total_token_count,
               usage_complete, final_content, finished_at, expected_timeline_events, expected_agent_steps,
               expected_tool_invocations, expected_token_usages, failed_writes, run_id, session_id)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [...values, r.run_id, r.session_id]
          )
        }),
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
        if (!batch) return insertTimeline([values]).pipe(Effect.asVoid)
        return Effect.suspend(() => {
          buffer.push(values)
          return buffer.length >= batch.maxEvents ? flush : Effect.void
        })
      },
      recordAgentStep: (step) => {
        const r = agentStepRow(step)
        return write(
          "agent_step",
          `INSERT INTO agent_step (run_id, session_id, step_id, step_index, started_at, latency_ms, outcome,
             tool_call_ids, usage_available, total_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ).pipe(Effect.asVoid)
      },
      recordToolInvocation: (invocation) => {
        const r = toolInvocationRow(invocation)
        return write(
          "tool_invocation",
          `INSERT INTO tool_invocation (run_id, session_id, tool_call_id, tool_name, step_id, status,
             evidence_status, error_code, latency_ms, request_bytes, raw_bytes, projection_bytes, truncated,
             returned_count, started_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ).pipe(Effect.asVoid)
      },
      recordTokenUsage: (usage) => {
        const r = tokenUsageRow(usage)
        return write(
          "model_token_usage",
          `INSERT INTO model_token_usage (run_id, session_id, seq, component, component_index, model,
             usage_available, prompt_tokens, completion_tokens, total_tokens, at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ).pipe(Effect.asVoid)
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
        })
    }

    return { sink, trace, flush, pool }
  })

/** MySQL-backed `AuditSink` + `TraceQuery` from one scoped pool. */
export const MysqlAudit = {
  make: makeMysqlAudit,
  layer: (config: MysqlAuditConfig): Layer.Layer<AuditSink | TraceQuery, AuditConfigError | MigrationError> =>
    Layer.effectContext(
      Effect.map(makeMysqlAudit(config), ({ sink, trace }) =>
        Context.make(AuditSink, sink).pipe(Context.add(TraceQuery, trace))
      )
    )
}
