import {
  EVIDENCE_STATUSES,
  hasEventType,
  INVOCATION_STATUSES,
  isValidId,
  type Json,
  JsonValueSchema,
  parseTimelinePayload,
  TIMELINE_EVENT_TYPES,
  TOOL_ERROR_CODES
} from "@aiops-harness/core"
import { Context, Effect } from "effect"
import { z } from "zod"
import { AuditReadError, InvalidRunListQuery, RunNotFound } from "./errors.js"

const count = z.number().int().nonnegative()
const epochMs = z.number().int().nonnegative()
const JsonObjectSchema = z.record(z.string(), JsonValueSchema)
type JsonObject = z.infer<typeof JsonObjectSchema>

/**
 * `diagnosis_run` status: `RUNNING` until the finish record is written. `AUDIT_INCOMPLETE`: set
 * by the repair pass for a run whose finish record was lost (never a silent `RUNNING`).
 */
export const RUN_STATUSES = ["RUNNING", "FINISHED", "FAILED", "CANCELLED", "AUDIT_INCOMPLETE"] as const
/** Status of a `diagnosis_run` record (one of `RUN_STATUSES`). */
export type RunStatus = (typeof RUN_STATUSES)[number]

/** Zod schema of a run's audit record counts per kind. */
export const AuditCountsSchema = z.object({
  timeline_events: count,
  agent_steps: count,
  tool_invocations: count,
  token_usages: count
})

/** The run's own record. Fields are null when the record (or its finish part) was never written. */
export const RunSummarySchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  /** Null when the start record is missing. */
  query: z.string().nullable(),
  /** Null when no `diagnosis_run` record exists at all (only child records were written). */
  status: z.enum(RUN_STATUSES).nullable(),
  intent: z.string().nullable(),
  release_result: z.string().nullable(),
  latency_ms: count.nullable(),
  total_token_count: count.nullable(),
  usage_complete: z.boolean().nullable(),
  /** The released, safe content (bounded). */
  final_content: z.string().nullable(),
  started_at: epochMs.nullable(),
  finished_at: epochMs.nullable(),
  /** What the run says it wrote (from the finish record). */
  expected: AuditCountsSchema.nullable(),
  failed_writes: count.nullable()
})
/** A run's own record in a trace. */
export type RunSummary = z.infer<typeof RunSummarySchema>

/**
 * Type of a trace entry whose stored row did not parse with its event type's schema (or has no
 * known type). Its payload is `{ stored_type, issue, stored_payload }`.
 */
export const INVALID_EVENT = "INVALID_EVENT"

/** Zod schema of a `TimelineEntry`. */
export const TimelineEntrySchema = z.object({
  seq: z.number().int().positive(),
  type: z.enum([...TIMELINE_EVENT_TYPES, INVALID_EVENT]),
  at: epochMs,
  /** The stored payload, which parsed with its type's schema (narrow it with core `hasEventType`). */
  payload: JsonObjectSchema
})
/** One Timeline event of a run trace. */
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>

/** A `run_timeline_event` row as a backend read it, before the trace parses its payload. */
export interface StoredTimelineRow {
  readonly seq: number
  readonly type: string
  readonly at: number
  readonly payload: unknown
}

/** Zod schema of a `ToolInvocationEntry`. */
export const ToolInvocationEntrySchema = z.object({
  tool_call_id: z.string(),
  tool_name: z.string(),
  /** The agent step that issued the call. */
  step_id: z.string().nullable(),
  status: z.enum(INVOCATION_STATUSES as unknown as ["PROJECTING", "READY", "ERROR"]).nullable(),
  evidence_status: z
    .enum(EVIDENCE_STATUSES as unknown as ["EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR"])
    .nullable(),
  error_code: z.enum(TOOL_ERROR_CODES).nullable(),
  latency_ms: count,
  request_bytes: count,
  raw_bytes: count,
  projection_bytes: count,
  truncated: z.boolean(),
  returned_count: count.nullable(),
  started_at: epochMs,
  metadata: JsonObjectSchema
})
/** The audit metadata of one tool call in a run trace. */
export type ToolInvocationEntry = z.infer<typeof ToolInvocationEntrySchema>

const agentStepShape = {
  step_id: z.string(),
  step_index: z.number().int().nonnegative(),
  started_at: epochMs,
  latency_ms: count,
  outcome: z.string(),
  tool_call_ids: z.array(z.string()),
  usage_available: z.boolean(),
  total_tokens: count.nullable()
}
/** Zod schema of an `AgentStepRow`. */
export const AgentStepRowSchema = z.object(agentStepShape)
/** One AgentStep as stored (without its tool invocations). */
export type AgentStepRow = z.infer<typeof AgentStepRowSchema>
/** Zod schema of an `AgentStepEntry`. */
export const AgentStepEntrySchema = z.object({
  ...agentStepShape,
  tool_invocations: z.array(ToolInvocationEntrySchema)
})
/** One AgentStep of a run trace, with its tool invocations. */
export type AgentStepEntry = z.infer<typeof AgentStepEntrySchema>

/** Zod schema of a `TokenLedgerEntry`. */
export const TokenLedgerEntrySchema = z.object({
  seq: z.number().int().positive(),
  component: z.enum(["router", "agent_turn", "semantic_guard"]),
  component_index: z.number().int().nonnegative(),
  model: z.string(),
  /** False when the provider returned no usage: token fields are then null, never 0. */
  usage_available: z.boolean(),
  prompt_tokens: count.nullable(),
  completion_tokens: count.nullable(),
  total_tokens: count.nullable(),
  at: epochMs
})
/** One Token ledger entry of a run trace. */
export type TokenLedgerEntry = z.infer<typeof TokenLedgerEntrySchema>

/** Zod schema of one count check: records expected by the finish record against records found. */
export const CountCheckSchema = z.object({
  /** From the finish record; null when the run has none. */
  expected: count.nullable(),
  found: count
})

/** Zod schema of a `Reconciliation`. */
export const ReconciliationSchema = z.object({
  /**
   * Sum of available ledger usage = `diagnosis_run.total_token_count` = `RUN_FINISHED.run_total_tokens`
   * (all three null, "no usage reported anywhere", also agree).
   */
  tokens_reconciled: z.boolean(),
  /** Sum of the available ledger usage; null when the ledger has entries but none reported usage. */
  ledger_total_tokens: count.nullable(),
  run_total_tokens: count.nullable(),
  finished_event_total_tokens: count.nullable(),
  /** False when a model call returned no usage (or the run never finished saying otherwise). */
  usage_complete: z.boolean(),
  /** The run finished and its last `RUN_FINISHED` event states the run record's status. */
  status_reconciled: z.boolean(),
  /** Stored timeline rows that did not parse with their type's schema (`INVALID_EVENT` entries). */
  invalid_events: count,
  timeline_events: CountCheckSchema,
  agent_steps: CountCheckSchema,
  tool_invocations: CountCheckSchema,
  token_usages: CountCheckSchema,
  run_start_recorded: z.boolean(),
  run_finish_recorded: z.boolean(),
  counts_match: z.boolean(),
  /** Finish record present, every expected record found, no failed write reported. */
  audit_complete: z.boolean(),
  /**
   * Audit writes known to be lost: a lost start record, a lost finish record (a run marked
   * `AUDIT_INCOMPLETE` with no finish data), plus the larger of the writes the run reported as
   * failed (other than the start) and the gaps between expected and found counts. Zero only
   * for a complete run or one still `RUNNING` (nothing is known to be missing yet).
   */
  missing_writes: count
})
/** Audit completeness of a run: expected against found counts and token totals. */
export type Reconciliation = z.infer<typeof ReconciliationSchema>

/** The trace of one run, as the app's HTTP API returns it (snake_case). */
export const RunTraceSchema = z.object({
  run: RunSummarySchema,
  timeline: z.array(TimelineEntrySchema),
  agent_steps: z.array(AgentStepEntrySchema),
  tool_invocations_without_step: z.array(ToolInvocationEntrySchema),
  token_ledger: z.array(TokenLedgerEntrySchema),
  reconciliation: ReconciliationSchema
})
/** The trace of one run, as the app's HTTP API returns it. */
export type RunTrace = z.infer<typeof RunTraceSchema>

/** One row of the recent-runs list: the run's record plus its audit completeness. */
export const RunListEntrySchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  query: z.string().nullable(),
  status: z.enum(RUN_STATUSES),
  intent: z.string().nullable(),
  release_result: z.string().nullable(),
  started_at: epochMs.nullable(),
  finished_at: epochMs.nullable(),
  latency_ms: count.nullable(),
  total_token_count: count.nullable(),
  usage_complete: z.boolean().nullable(),
  /** `tool_invocation` records found for the run. */
  tool_calls: count,
  /** Same rule as the trace's `reconciliation.audit_complete`. */
  audit_complete: z.boolean(),
  missing_writes: count
})
/** One row of the recent-runs list. */
export type RunListEntry = z.infer<typeof RunListEntrySchema>

/** Zod schema of a `RunListPage`. */
export const RunListPageSchema = z.object({
  /** Newest first (start time, else finish time; then run id, descending). */
  runs: z.array(RunListEntrySchema),
  /** Pass as `before` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable()
})
/** One page of the recent-runs list. */
export type RunListPage = z.infer<typeof RunListPageSchema>

/** Default page size of the recent-runs list. */
export const RUN_LIST_DEFAULT_LIMIT = 20
/** Largest page size of the recent-runs list. */
export const RUN_LIST_MAX_LIMIT = 100

/** Options of `TraceQueryShape.listRuns`: page size, cursor and filters. */
export interface ListRunsOptions {
  /** Page size, 1..100 (default 20). */
  readonly limit?: number
  /** The `next_cursor` of the previous page: only older runs. */
  readonly before?: string | null
  /** Only runs of this session. */
  readonly sessionId?: string | null
  /** Only runs with this `diagnosis_run` status. */
  readonly status?: RunStatus | null
  /** Only runs with this release result (`DIAGNOSIS_REPORT`, `CANNOT_CONCLUDE`, ...). */
  readonly releaseResult?: string | null
}

/** A page position: runs strictly older than (`at`, `runId`). */
export interface RunCursor {
  readonly at: number
  readonly runId: string
}

/** Validated `listRuns` options (shared by every backend). */
export interface ResolvedListRuns {
  readonly limit: number
  readonly before: RunCursor | null
  readonly sessionId: string | null
  readonly status: RunStatus | null
  readonly releaseResult: string | null
}

/** The list's sort time of a run: its start, else (a lost start record) its finish, else 0. */
export const runSortAt = (run: Pick<RunSummary, "started_at" | "finished_at">): number =>
  run.started_at ?? run.finished_at ?? 0

/** Encodes a page position as the `next_cursor` text (`<at>.<runId>`). */
export const encodeRunCursor = (cursor: RunCursor): string => `${cursor.at}.${cursor.runId}`

const CURSOR_PATTERN = /^(\d{1,16})\.(.+)$/

/** Parses a `next_cursor` text; `null` when it is malformed. */
export const decodeRunCursor = (text: string): RunCursor | null => {
  const match = CURSOR_PATTERN.exec(text)
  if (!match || !isValidId(match[2])) return null
  return { at: Number(match[1]), runId: match[2]! }
}

/** Checks `listRuns` options before any backend sees them. */
export const resolveListRuns = (
  options: ListRunsOptions = {}
): Effect.Effect<ResolvedListRuns, InvalidRunListQuery> =>
  Effect.suspend(() => {
    const limit = options.limit ?? RUN_LIST_DEFAULT_LIMIT
    if (!Number.isInteger(limit) || limit < 1 || limit > RUN_LIST_MAX_LIMIT) {
      return Effect.fail(
        new InvalidRunListQuery({ field: "limit", reason: `must be an integer 1..${RUN_LIST_MAX_LIMIT}` })
      )
    }
    const before = options.before ? decodeRunCursor(options.before) : null
    if (options.before && before === null) {
      return Effect.fail(new InvalidRunListQuery({ field: "before", reason: "not a cursor of this list" }))
    }
    const sessionId = options.sessionId ?? null
    if (sessionId !== null && !isValidId(sessionId)) {
      return Effect.fail(new InvalidRunListQuery({ field: "sessionId", reason: "not a valid id" }))
    }
    const status = options.status ?? null
    if (status !== null && !RUN_STATUSES.includes(status)) {
      return Effect.fail(new InvalidRunListQuery({ field: "status", reason: "unknown run status" }))
    }
    const releaseResult = options.releaseResult ?? null
    if (releaseResult !== null && !/^[A-Z_]{1,64}$/.test(releaseResult)) {
      return Effect.fail(new InvalidRunListQuery({ field: "releaseResult", reason: "not a release result" }))
    }
    return Effect.succeed({ limit, before, sessionId, status, releaseResult })
  })

const check = (expected: number | null, found: number) => ({ expected, found })

/** Records found per audit table for one run (what reconciliation compares to `expected`). */
export type AuditCounts = z.infer<typeof AuditCountsSchema>

/**
 * Audit completeness of a run from its record and the rows found (the trace's reconciliation
 * rule, shared with the runs list): counts checks, `counts_match`, `missing_writes`, `audit_complete`.
 */
export const auditCompleteness = (run: RunSummary, found: AuditCounts) => {
  const finished = run.finished_at !== null && run.status !== null && run.status !== "RUNNING"
  const expected = finished ? run.expected : null
  const counts = {
    timeline_events: check(expected?.timeline_events ?? null, found.timeline_events),
    agent_steps: check(expected?.agent_steps ?? null, found.agent_steps),
    tool_invocations: check(expected?.tool_invocations ?? null, found.tool_invocations),
    token_usages: check(expected?.token_usages ?? null, found.token_usages)
  }
  const all = Object.values(counts)
  const countsMatch = expected !== null && all.every((c) => c.expected === c.found)
  const gaps = all.reduce((sum, c) => sum + Math.max(0, (c.expected ?? 0) - c.found), 0)
  const startRecorded = run.started_at !== null
  const startLost = startRecorded ? 0 : 1
  const failedOther = Math.max(0, (run.failed_writes ?? 0) - startLost)
  // A run the repair pass marked AUDIT_INCOMPLETE without a finish record lost that write too.
  const finishLost = run.status === "AUDIT_INCOMPLETE" && run.finished_at === null ? 1 : 0
  const missingWrites = startLost + finishLost + Math.max(failedOther, gaps)
  const auditComplete =
    finished &&
    run.status !== "AUDIT_INCOMPLETE" &&
    countsMatch &&
    missingWrites === 0 &&
    (run.failed_writes ?? 0) === 0
  return {
    finished,
    counts,
    run_start_recorded: startRecorded,
    counts_match: countsMatch,
    audit_complete: auditComplete,
    missing_writes: missingWrites
  }
}

/** One list row from a run's record (with a `diagnosis_run` status) and the rows found. */
export const runListEntry = (run: RunSummary & { status: RunStatus }, found: AuditCounts): RunListEntry => {
  const audit = auditCompleteness(run, found)
  return {
    run_id: run.run_id,
    session_id: run.session_id,
    query: run.query,
    status: run.status,
    intent: run.intent,
    release_result: run.release_result,
    started_at: run.started_at,
    finished_at: run.finished_at,
    latency_ms: run.latency_ms,
    total_token_count: run.total_token_count,
    usage_complete: run.usage_complete,
    tool_calls: found.tool_invocations,
    audit_complete: audit.audit_complete,
    missing_writes: audit.missing_writes
  }
}

type Sortable = Pick<RunSummary, "run_id" | "started_at" | "finished_at">

/** The list order: newest first, then run id descending. */
export const compareRunsNewestFirst = (a: Sortable, b: Sortable): number =>
  runSortAt(b) - runSortAt(a) || (a.run_id < b.run_id ? 1 : a.run_id > b.run_id ? -1 : 0)

/** Whether a run comes after the cursor in the list (all runs without a cursor). */
export const isAfterCursor = (run: Sortable, before: RunCursor | null): boolean => {
  if (!before) return true
  const at = runSortAt(run)
  return at < before.at || (at === before.at && run.run_id < before.runId)
}

/** Sorts newest first, keeps the page after `before`, and sets the next cursor. */
export const pageOfRuns = (entries: ReadonlyArray<RunListEntry>, options: ResolvedListRuns): RunListPage => {
  const sorted = entries.filter((e) => isAfterCursor(e, options.before)).sort(compareRunsNewestFirst)
  const runs = sorted.slice(0, options.limit)
  const last = runs.at(-1)
  return {
    runs,
    next_cursor:
      sorted.length > options.limit && last
        ? encodeRunCursor({ at: runSortAt(last), runId: last.run_id })
        : null
  }
}

/** Operations of the `TraceQuery` service: read a run's trace and list recent runs. */
export interface TraceQueryShape {
  /** The trace of one run of one session. Another session's run is `RunNotFound`. */
  readonly getTrace: (
    sessionId: string,
    runId: string
  ) => Effect.Effect<RunTrace, RunNotFound | AuditReadError>
  /**
   * Recent runs (those with a `diagnosis_run` record), newest first, paged by cursor, filtered
   * by session / status / release result.
   */
  readonly listRuns: (
    options?: ListRunsOptions
  ) => Effect.Effect<RunListPage, InvalidRunListQuery | AuditReadError>
}

/** Read API over the durable audit, by `sessionId` + `runId`. */
export class TraceQuery extends Context.Service<TraceQuery, TraceQueryShape>()(
  "@aiops-harness/audit/TraceQuery"
) {}

/** Everything a backend found for one (session, run). */
export interface TraceRows {
  readonly sessionId: string
  readonly runId: string
  readonly run: RunSummary | null
  readonly timeline: ReadonlyArray<StoredTimelineRow>
  readonly agentSteps: ReadonlyArray<AgentStepRow>
  /** In issue order. */
  readonly toolInvocations: ReadonlyArray<ToolInvocationEntry>
  readonly tokenLedger: ReadonlyArray<TokenLedgerEntry>
}

/**
 * A stored row as a trace entry: parsed with its type's schema (the one the recorder wrote
 * with); a row that does not parse becomes an `INVALID_EVENT` entry that keeps what was stored.
 */
const timelineEntry = (row: StoredTimelineRow): TimelineEntry => {
  const parsed = parseTimelinePayload(row.type, row.payload)
  if (parsed.ok)
    return { seq: row.seq, type: parsed.event.type, at: row.at, payload: row.payload as JsonObject }
  return {
    seq: row.seq,
    type: INVALID_EVENT,
    at: row.at,
    payload: {
      stored_type: row.type.slice(0, 64),
      issue: parsed.error.issue.slice(0, 256),
      stored_payload: (row.payload ?? null) as Json
    }
  }
}

/** Ids that cannot name a run never reach a backend. */
export const checkTraceIds = (sessionId: string, runId: string): Effect.Effect<void, RunNotFound> =>
  isValidId(sessionId) && isValidId(runId) ? Effect.void : Effect.fail(new RunNotFound({ sessionId, runId }))

/** Assembles and reconciles a trace from a backend's rows (shared by every backend). */
export const buildTrace = (rows: TraceRows): Effect.Effect<RunTrace, RunNotFound | AuditReadError> =>
  Effect.suspend((): Effect.Effect<RunTrace, RunNotFound | AuditReadError> => {
    const { sessionId, runId } = rows
    if (
      rows.run === null &&
      rows.timeline.length === 0 &&
      rows.agentSteps.length === 0 &&
      rows.toolInvocations.length === 0 &&
      rows.tokenLedger.length === 0
    ) {
      return Effect.fail(new RunNotFound({ sessionId, runId }))
    }
    const run: RunSummary = rows.run ?? {
      run_id: runId,
      session_id: sessionId,
      query: null,
      status: null,
      intent: null,
      release_result: null,
      latency_ms: null,
      total_token_count: null,
      usage_complete: null,
      final_content: null,
      started_at: null,
      finished_at: null,
      expected: null,
      failed_writes: null
    }
    const timeline = [...rows.timeline].sort((a, b) => a.seq - b.seq).map(timelineEntry)
    const invalidEvents = timeline.filter((e) => e.type === INVALID_EVENT).length
    const steps = [...rows.agentSteps].sort((a, b) => a.step_index - b.step_index)
    const ledger = [...rows.tokenLedger].sort((a, b) => a.seq - b.seq)
    const stepIds = new Set(steps.map((s) => s.step_id))
    const agentSteps = steps.map((s) => ({
      ...s,
      tool_invocations: rows.toolInvocations.filter((t) => t.step_id === s.step_id)
    }))
    const withoutStep = rows.toolInvocations.filter((t) => t.step_id === null || !stepIds.has(t.step_id))

    const finished = run.finished_at !== null && run.status !== null && run.status !== "RUNNING"
    const finishedEvent = timeline.findLast((e) => hasEventType(e, "RUN_FINISHED"))
    const finishedPayload = hasEventType(finishedEvent, "RUN_FINISHED") ? finishedEvent.payload : null
    const finishedEventTotal = finishedPayload?.run_total_tokens ?? null
    // A parsed RUN_FINISHED always states its total: a number, or null for "unknown".
    const eventStatesTotal = finishedPayload !== null
    const available = ledger.filter((u) => u.usage_available)
    // Unknown is never 0: entries without any reported usage sum to null (as core's summary does).
    const ledgerTotal =
      ledger.length > 0 && available.length === 0
        ? null
        : available.reduce((sum, u) => sum + (u.total_tokens ?? 0), 0)
    const tokensReconciled =
      finished &&
      eventStatesTotal &&
      ledgerTotal === run.total_token_count &&
      ledgerTotal === finishedEventTotal
    const usageComplete = (run.usage_complete ?? true) && ledger.every((u) => u.usage_available)

    const audit = auditCompleteness(run, {
      timeline_events: timeline.length,
      agent_steps: steps.length,
      tool_invocations: rows.toolInvocations.length,
      token_usages: ledger.length
    })

    const trace = {
      run,
      timeline,
      agent_steps: agentSteps,
      tool_invocations_without_step: withoutStep,
      token_ledger: ledger,
      reconciliation: {
        tokens_reconciled: tokensReconciled,
        ledger_total_tokens: ledgerTotal,
        run_total_tokens: run.total_token_count,
        finished_event_total_tokens: finishedEventTotal,
        usage_complete: usageComplete,
        status_reconciled: finished && finishedPayload !== null && finishedPayload.status === run.status,
        invalid_events: invalidEvents,
        ...audit.counts,
        run_start_recorded: audit.run_start_recorded,
        run_finish_recorded: finished,
        counts_match: audit.counts_match,
        audit_complete: audit.audit_complete,
        missing_writes: audit.missing_writes
      }
    }
    const parsed = RunTraceSchema.safeParse(trace)
    return parsed.success
      ? Effect.succeed(parsed.data)
      : Effect.fail(new AuditReadError({ reason: "CORRUPT_RECORD", cause: parsed.error }))
  })
