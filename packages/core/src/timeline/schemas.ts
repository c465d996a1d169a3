import { z } from "zod"
import { TOOL_ERROR_CODES } from "../errors.js"

// One zod schema per Timeline event type: the recorder validates with it before writing, the
// trace parses stored rows with it. Object schemas strip unknown keys, so a row written with an
// older, larger payload still reads.

const count = z.number().int().nonnegative()
const ordinal = z.number().int().positive()
// Texts are not length-checked here: the sink bounds every stored payload (a model-chosen tool
// name that is too long must not fail the run).
const label = z.string()

/** `RUN_STARTED` (recorder-owned): the run began. */
export const RunStartedPayload = z.object({ query_chars: count })

/** `MODEL_TOKEN_USAGE` (recorder-owned): one Token ledger entry was written. */
export const ModelTokenUsagePayload = z.object({
  ledger_seq: ordinal,
  component: z.enum(["router", "agent_turn", "semantic_guard"]),
  component_index: count,
  model: label,
  usage_available: z.boolean(),
  total_tokens: count.nullable()
})

/** `ROUTING_ATTEMPT`: the router's model call and how its answer parsed. */
export const RoutingAttemptPayload = z.object({
  attempt: ordinal,
  outcome: z.enum(["PARSED", "UNPARSEABLE", "MODEL_ERROR"]),
  model: label.optional(),
  error_reason: label.optional()
})

/** The question's time window as the router resolved it. */
export const TimeWindowPayload = z.object({
  phrase: label,
  asked_start: z.string(),
  asked_end: z.string(),
  start_time: z.string().nullable(),
  end_time: z.string().nullable(),
  honoured: z.boolean()
})

/** `ROUTING_DECISION`: the intent and where it came from. */
export const RoutingDecisionPayload = z.object({
  intent: label,
  source: z.enum(["model", "fallback"]),
  time_window: TimeWindowPayload.optional()
})

/** `AGENT_MODEL_STEP`: one model turn of the agent loop. */
export const AgentModelStepPayload = z.object({
  step_id: label,
  step_index: ordinal,
  /** `tool_calls`, `tool_calls_refused`, `final` or `error`. */
  outcome: z.enum(["tool_calls", "tool_calls_refused", "final", "error"]),
  tool_call_count: count,
  usage_available: z.boolean(),
  error_reason: label.optional(),
  /** `length`: the provider cut the answer. */
  finish_reason: label.optional()
})

/** `TOOL_INVOCATION`: one call through the ToolBoundary (metadata only). */
export const ToolInvocationPayload = z.object({
  tool_call_id: label.nullable(),
  tool: label,
  step_id: label.nullable(),
  status: z.enum(["PROJECTING", "READY", "ERROR"]),
  evidence_status: z.enum(["EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR"]),
  error_code: z.enum(TOOL_ERROR_CODES).nullable(),
  latency_ms: z.number().nonnegative(),
  truncated: z.boolean()
})

/** `STOP_REQUIRED`: the loop told the model to stop calling tools. */
export const StopRequiredPayload = z.object({
  reason: label,
  step_id: label,
  checked_scopes: count
})

/** `EVIDENCE_GUARD_INITIAL`: the EvidenceGuard's verdict on the draft (at most 20 failures). */
export const EvidenceGuardInitialPayload = z.object({
  passed: z.boolean(),
  store_available: z.boolean(),
  claims: count,
  failures: z
    .array(z.object({ claim_index: count.nullable(), tool_call_id: label.nullable(), reason: label }))
    .max(20)
})

/** `SEMANTIC_GUARD_ATTEMPT`: the judge's model call. */
export const SemanticGuardAttemptPayload = z.object({
  attempt: ordinal,
  /** `JUDGED`, or the error tag of a failed judgement. */
  outcome: label,
  model: label.nullable(),
  error_reason: label.optional()
})

/** `SEMANTIC_GUARD_DECISION`: the SemanticGuard's verdicts (at most 20). */
export const SemanticGuardDecisionPayload = z.object({
  passed: z.boolean(),
  verdict: label,
  verdicts: z.array(z.object({ claim_index: count, verdict: label })).max(20),
  summary_verdict: label.nullable()
})

/** `RELEASE_DECISION`: what the run released. The not-a-diagnosis path carries only the first two fields. */
export const ReleaseDecisionPayload = z.object({
  decision: label,
  release_result: label,
  missing: count.optional(),
  stop_reason: label.nullable().optional(),
  store_available: z.boolean().optional()
})

/** `RUN_FINISHED` (recorder-owned): the run's final status and ledger total. */
export const RunFinishedPayload = z.object({
  status: z.enum(["FINISHED", "FAILED", "CANCELLED"]),
  run_total_tokens: count.nullable(),
  usage_complete: z.boolean(),
  release_result: label.nullable().optional(),
  intent: label.nullable().optional(),
  tool_calls: count.optional(),
  /** Who ended the run when not the agent (`mcp`). */
  source: label.optional()
})

/** The payload schema of each Timeline event type, in the order events happen. */
export const TIMELINE_PAYLOAD_SCHEMAS = {
  RUN_STARTED: RunStartedPayload,
  MODEL_TOKEN_USAGE: ModelTokenUsagePayload,
  ROUTING_ATTEMPT: RoutingAttemptPayload,
  ROUTING_DECISION: RoutingDecisionPayload,
  AGENT_MODEL_STEP: AgentModelStepPayload,
  TOOL_INVOCATION: ToolInvocationPayload,
  STOP_REQUIRED: StopRequiredPayload,
  EVIDENCE_GUARD_INITIAL: EvidenceGuardInitialPayload,
  SEMANTIC_GUARD_ATTEMPT: SemanticGuardAttemptPayload,
  SEMANTIC_GUARD_DECISION: SemanticGuardDecisionPayload,
  RELEASE_DECISION: ReleaseDecisionPayload,
  RUN_FINISHED: RunFinishedPayload
} as const

/** Typed decision events of a run, in the order they happen. */
export const TIMELINE_EVENT_TYPES = Object.keys(TIMELINE_PAYLOAD_SCHEMAS) as ReadonlyArray<
  keyof typeof TIMELINE_PAYLOAD_SCHEMAS
> as readonly [
  "RUN_STARTED",
  "MODEL_TOKEN_USAGE",
  "ROUTING_ATTEMPT",
  "ROUTING_DECISION",
  "AGENT_MODEL_STEP",
  "TOOL_INVOCATION",
  "STOP_REQUIRED",
  "EVIDENCE_GUARD_INITIAL",
  "SEMANTIC_GUARD_ATTEMPT",
  "SEMANTIC_GUARD_DECISION",
  "RELEASE_DECISION",
  "RUN_FINISHED"
]
/** Type of a Timeline event (one of `TIMELINE_EVENT_TYPES`). */
export type TimelineEventType = keyof typeof TIMELINE_PAYLOAD_SCHEMAS

/** The payload of a Timeline event of type `T`. */
export type TimelinePayload<T extends TimelineEventType> = z.infer<(typeof TIMELINE_PAYLOAD_SCHEMAS)[T]>

/** Event types only the run's recorder writes: no caller can build or forge them. */
export const RECORDER_OWNED_EVENT_TYPES = ["RUN_STARTED", "MODEL_TOKEN_USAGE", "RUN_FINISHED"] as const
/** A Timeline event type only the recorder writes. */
export type RecorderOwnedEventType = (typeof RECORDER_OWNED_EVENT_TYPES)[number]
