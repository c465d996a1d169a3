import type { RecorderOwnedEventType, TimelineEventType, TimelinePayload } from "./schemas.js"

/** A Timeline event as built by a constructor: its type and payload, nothing the recorder owns. */
export type TimelineEventBody = {
  readonly [T in TimelineEventType]: { readonly type: T; readonly payload: TimelinePayload<T> }
}[TimelineEventType]

/** The body of a Timeline event of type `T`. */
export type TimelineEventOf<T extends TimelineEventType> = Extract<TimelineEventBody, { readonly type: T }>

/** An event a caller may hand to `RunRecorder.event` (every type but the recorder-owned ones). */
export type CallerTimelineEvent = Exclude<TimelineEventBody, { readonly type: RecorderOwnedEventType }>

/** What the recorder adds to every event: run identity, sequence and time. */
export interface TimelineEnvelope {
  readonly runId: import("../ids.js").RunId
  readonly sessionId: import("../ids.js").SessionId
  /** Unique, gap-free, 1-based order within the run. */
  readonly seq: number
  readonly at: number
}

/** One ordered, typed decision event of a run's Timeline (bounded metadata: never raw bodies, never secrets). */
export type TimelineEvent = TimelineEventBody extends infer B
  ? B extends unknown
    ? B & TimelineEnvelope
    : never
  : never

const eventOf =
  <T extends TimelineEventType>(type: T) =>
  (payload: TimelinePayload<T>): TimelineEventOf<T> =>
    ({ type, payload }) as TimelineEventOf<T>

/** `ROUTING_ATTEMPT`: the router's model call and how its answer parsed. */
export const routingAttemptEvent = eventOf("ROUTING_ATTEMPT")
/** `ROUTING_DECISION`: the intent, its source and the question's time window. */
export const routingDecisionEvent = eventOf("ROUTING_DECISION")
/** `AGENT_MODEL_STEP`: one model turn of the agent loop. */
export const agentModelStepEvent = eventOf("AGENT_MODEL_STEP")
/** `TOOL_INVOCATION`: one call through the ToolBoundary. */
export const toolInvocationEvent = eventOf("TOOL_INVOCATION")
/** `STOP_REQUIRED`: the loop told the model to stop calling tools. */
export const stopRequiredEvent = eventOf("STOP_REQUIRED")
/** `EVIDENCE_GUARD_INITIAL`: the EvidenceGuard's verdict on the draft. */
export const evidenceGuardEvent = eventOf("EVIDENCE_GUARD_INITIAL")
/** `SEMANTIC_GUARD_ATTEMPT`: the judge's model call. */
export const semanticGuardAttemptEvent = eventOf("SEMANTIC_GUARD_ATTEMPT")
/** `SEMANTIC_GUARD_DECISION`: the SemanticGuard's verdicts. */
export const semanticGuardDecisionEvent = eventOf("SEMANTIC_GUARD_DECISION")
/** `RELEASE_DECISION`: what the run released. */
export const releaseDecisionEvent = eventOf("RELEASE_DECISION")

/**
 * Constructors of the recorder-owned events: used by the run's recorder only, not exported from
 * the package (a caller cannot build `RUN_STARTED`, `MODEL_TOKEN_USAGE` or `RUN_FINISHED`).
 */
export const recorderEvents = {
  runStarted: eventOf("RUN_STARTED"),
  modelTokenUsage: eventOf("MODEL_TOKEN_USAGE"),
  runFinished: eventOf("RUN_FINISHED")
}
