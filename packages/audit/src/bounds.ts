import type {
  AgentStepRecord,
  DiagnosisRunFinish,
  DiagnosisRunStart,
  Json,
  JsonObject,
  TimelineEvent,
  TokenUsageRecord,
  ToolInvocationAudit
} from "@aiops-harness/core"
import { utf8Bytes } from "@aiops-harness/core"
import type { AgentStepRow, TimelineEntry, TokenLedgerEntry, ToolInvocationEntry } from "./trace.js"

/**
 * Size bounds of every text and JSON column. Audit is metadata only: anything larger is cut
 * here, in code, before any backend sees it (the MySQL columns are sized to match).
 */
export const AUDIT_LIMITS = {
  /** `diagnosis_run.query`, characters. */
  queryChars: 2000,
  /** `diagnosis_run.final_content` (TEXT), UTF-8 bytes. */
  finalContentBytes: 60_000,
  /** Short labels (intent, release result, outcome, model, tool name), characters. */
  labelChars: 128,
  /** `run_timeline_event.payload`, UTF-8 bytes of JSON. */
  payloadBytes: 4096,
  /** `tool_invocation.metadata`, UTF-8 bytes of JSON. */
  metadataBytes: 4096,
  /** `agent_step.tool_call_ids`, entries. */
  toolCallIds: 64
} as const

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** At most `max` characters (code points, as MySQL counts them). */
export const truncateChars = (text: string, max: number): string => {
  if (text.length <= max) return text
  const points = Array.from(text)
  return points.length <= max ? text : points.slice(0, max).join("")
}

/** At most `maxBytes` UTF-8 bytes, never cutting a character in half. */
export const truncateUtf8 = (text: string, maxBytes: number): string => {
  const bytes = encoder.encode(text)
  if (bytes.length <= maxBytes) return text
  return decoder.decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD+$/, "")
}

const shrink = (value: Json, depth: number): Json => {
  if (typeof value === "string") return truncateChars(value, 256)
  if (value === null || typeof value !== "object") return value
  if (depth >= 4) return "[...]"
  if (Array.isArray(value)) return value.slice(0, 16).map((v) => shrink(v, depth + 1))
  const out: Record<string, Json> = {}
  for (const [k, v] of Object.entries(value as JsonObject).slice(0, 32)) {
    out[truncateChars(k, 64)] = shrink(v, depth + 1)
  }
  return out
}

/**
 * A JSON object of at most `maxBytes`: kept as is when it fits; otherwise long strings, long
 * arrays, wide and deep objects are cut and `_truncated: true` is added; when even that does
 * not fit, only `{ _truncated: true, _original_bytes }` is kept.
 */
export const boundJson = (value: JsonObject, maxBytes: number): JsonObject => {
  const normalized = JSON.parse(JSON.stringify(value ?? {})) as JsonObject
  const text = JSON.stringify(normalized)
  const bytes = utf8Bytes(text)
  if (bytes <= maxBytes) return normalized
  const cut = { ...(shrink(normalized, 0) as JsonObject), _truncated: true }
  if (utf8Bytes(JSON.stringify(cut)) <= maxBytes) return cut
  return { _truncated: true, _original_bytes: bytes }
}

const label = (text: string | null): string | null =>
  text === null ? null : truncateChars(text, AUDIT_LIMITS.labelChars)
const nonNegInt = (n: number): number => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0)
const nullableCount = (n: number | null): number | null => (n === null ? null : nonNegInt(n))

/** Bounded `diagnosis_run` row written when a run starts. */
export interface RunStartRow {
  readonly run_id: string
  readonly session_id: string
  readonly query: string
  readonly started_at: number
}

/** Bounded `diagnosis_run` fields written when a run finishes. */
export interface RunFinishRow {
  readonly run_id: string
  readonly session_id: string
  readonly status: DiagnosisRunFinish["status"]
  readonly intent: string | null
  readonly release_result: string | null
  readonly latency_ms: number
  /** Null when model calls were made but none reported usage (unknown is never 0). */
  readonly total_token_count: number | null
  readonly usage_complete: boolean
  readonly final_content: string | null
  readonly finished_at: number
  readonly expected: {
    readonly timeline_events: number
    readonly agent_steps: number
    readonly tool_invocations: number
    readonly token_usages: number
  }
  readonly failed_writes: number
}

/** A run's start record as a bounded audit row (texts cut to `AUDIT_LIMITS`). */
export const runStartRow = (r: DiagnosisRunStart): RunStartRow => ({
  run_id: r.runId,
  session_id: r.sessionId,
  query: truncateChars(r.query, AUDIT_LIMITS.queryChars),
  started_at: nonNegInt(r.startedAt)
})

/** A run's finish record as a bounded audit row (texts cut to `AUDIT_LIMITS`). */
export const runFinishRow = (r: DiagnosisRunFinish): RunFinishRow => ({
  run_id: r.runId,
  session_id: r.sessionId,
  status: r.status,
  intent: label(r.intent),
  release_result: label(r.releaseResult),
  latency_ms: nonNegInt(r.latencyMs),
  total_token_count: nullableCount(r.totalTokens),
  usage_complete: r.usageComplete,
  final_content:
    r.finalContent === null ? null : truncateUtf8(r.finalContent, AUDIT_LIMITS.finalContentBytes),
  finished_at: nonNegInt(r.finishedAt),
  expected: {
    timeline_events: nonNegInt(r.expected.timelineEvents),
    agent_steps: nonNegInt(r.expected.agentSteps),
    tool_invocations: nonNegInt(r.expected.toolInvocations),
    token_usages: nonNegInt(r.expected.tokenUsages)
  },
  failed_writes: nonNegInt(r.failedWrites)
})

/** A Timeline event as a bounded audit row (payload cut to `AUDIT_LIMITS`). */
export const timelineRow = (e: TimelineEvent): TimelineEntry => ({
  seq: e.seq,
  type: e.type,
  at: nonNegInt(e.at),
  payload: boundJson(e.payload, AUDIT_LIMITS.payloadBytes)
})

/** An AgentStep record as a bounded audit row (texts cut to `AUDIT_LIMITS`). */
export const agentStepRow = (s: AgentStepRecord): AgentStepRow => ({
  step_id: truncateChars(s.stepId, 128),
  step_index: nonNegInt(s.stepIndex),
  started_at: nonNegInt(s.startedAt),
  latency_ms: nonNegInt(s.latencyMs),
  outcome: truncateChars(s.outcome, AUDIT_LIMITS.labelChars),
  tool_call_ids: s.toolCallIds.slice(0, AUDIT_LIMITS.toolCallIds).map((id) => truncateChars(id, 128)),
  usage_available: s.usageAvailable,
  total_tokens: s.usageAvailable ? nullableCount(s.totalTokens) : null
})

/** A tool call's audit metadata as a bounded audit row (texts cut to `AUDIT_LIMITS`). */
export const toolInvocationRow = (t: ToolInvocationAudit): ToolInvocationEntry => ({
  tool_call_id: truncateChars(t.toolCallId, 128),
  tool_name: truncateChars(t.toolName, AUDIT_LIMITS.labelChars),
  step_id: t.stepId === null ? null : truncateChars(t.stepId, 128),
  status: t.status,
  evidence_status: t.evidenceStatus,
  error_code: t.errorCode,
  latency_ms: nonNegInt(t.latencyMs),
  request_bytes: nonNegInt(t.requestBytes),
  raw_bytes: nonNegInt(t.rawBytes),
  projection_bytes: nonNegInt(t.projectionBytes),
  truncated: t.truncated,
  returned_count: nullableCount(t.returnedCount),
  started_at: nonNegInt(t.startedAt),
  metadata: boundJson(t.metadata, AUDIT_LIMITS.metadataBytes)
})

/** A missing usage stays missing: `usage_available = false` and null tokens, never 0. */
export const tokenUsageRow = (u: TokenUsageRecord): TokenLedgerEntry => ({
  seq: u.seq,
  component: u.component,
  component_index: nonNegInt(u.componentIndex),
  model: truncateChars(u.model, AUDIT_LIMITS.labelChars),
  usage_available: u.usageAvailable,
  prompt_tokens: u.usageAvailable ? nullableCount(u.promptTokens) : null,
  completion_tokens: u.usageAvailable ? nullableCount(u.completionTokens) : null,
  total_tokens: u.usageAvailable ? nullableCount(u.totalTokens) : null,
  at: nonNegInt(u.at)
})
