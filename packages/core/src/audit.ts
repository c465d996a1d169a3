import { Context, Effect, Layer } from "effect"
import { AuditWriteError, type ToolErrorCode } from "./errors.js"
import type { RunId, SessionId } from "./ids.js"
import type { JsonObject } from "./json.js"
import type { EvidenceStatus, InvocationStatus } from "./status.js"
import type { TimelineEvent } from "./timeline/events.js"

/** Final status of a run that has ended. */
export type RunFinalStatus = "FINISHED" | "FAILED" | "CANCELLED"

/** Durable Audit record written when a run starts. */
export interface DiagnosisRunStart {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly query: string
  readonly startedAt: number
}

/** What a finished run says it wrote: the trace compares these counts with what it finds. */
export interface AuditExpectedCounts {
  readonly timelineEvents: number
  readonly agentSteps: number
  readonly toolInvocations: number
  readonly tokenUsages: number
}

/** Durable Audit record written when a run ends. */
export interface DiagnosisRunFinish {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly status: RunFinalStatus
  readonly intent: string | null
  readonly releaseResult: string | null
  readonly latencyMs: number
  /** Sum of the available usages of the ledger; `null` when no model call reported usage. */
  readonly totalTokens: number | null
  /** False when at least one model call returned no usage. */
  readonly usageComplete: boolean
  /** The released, safe content (report or bounded answer). */
  readonly finalContent: string | null
  readonly finishedAt: number
  readonly expected: AuditExpectedCounts
  /** Audit writes of this run that failed before the finish record. */
  readonly failedWrites: number
}

/** Durable Audit row for one AgentStep (one model turn of the diagnosis agent). */
export interface AgentStepRecord {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly stepId: string
  readonly stepIndex: number
  readonly startedAt: number
  readonly latencyMs: number
  /** `tool_calls`, `final`, `stop_required`, `error`, ... */
  readonly outcome: string
  readonly toolCallIds: ReadonlyArray<string>
  readonly usageAvailable: boolean
  readonly totalTokens: number | null
}

/** Durable Audit metadata of one tool call (identity, status, latency, bytes, error code; never raw bodies). */
export interface ToolInvocationAudit {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly toolCallId: string
  readonly toolName: string
  readonly stepId: string | null
  /** `null` when the call was refused before a canonical record existed. */
  readonly status: InvocationStatus | null
  readonly evidenceStatus: EvidenceStatus | null
  readonly errorCode: ToolErrorCode | null
  readonly latencyMs: number
  readonly requestBytes: number
  readonly rawBytes: number
  readonly projectionBytes: number
  readonly truncated: boolean
  readonly returnedCount: number | null
  readonly startedAt: number
  /** Bounded metadata (scope, duplicate identity): never raw bodies. */
  readonly metadata: JsonObject
}

/** Which model call a Token ledger entry is for: router, agent turn or SemanticGuard. */
export type TokenComponent = "router" | "agent_turn" | "semantic_guard"

/** One Token ledger entry: the token usage of one model call of a run. */
export interface TokenUsageRecord {
  readonly runId: RunId
  readonly sessionId: SessionId
  /** 1-based order in the run's ledger. */
  readonly seq: number
  readonly component: TokenComponent
  /** Agent turn number for `agent_turn`, attempt number otherwise. */
  readonly componentIndex: number
  readonly model: string
  /** False when the provider returned no usage: token fields are then null, never 0. */
  readonly usageAvailable: boolean
  readonly promptTokens: number | null
  readonly completionTokens: number | null
  readonly totalTokens: number | null
  readonly at: number
}

/** Operations of the `AuditSink` service: one write per Durable Audit record kind. */
export interface AuditSinkShape {
  /** Records that a run started. */
  readonly startRun: (run: DiagnosisRunStart) => Effect.Effect<void, AuditWriteError>
  /** Records a run's final status and summary. */
  readonly finishRun: (run: DiagnosisRunFinish) => Effect.Effect<void, AuditWriteError>
  /** Appends one event to the run's Timeline. */
  readonly appendTimelineEvent: (event: TimelineEvent) => Effect.Effect<void, AuditWriteError>
  /** Records one AgentStep. */
  readonly recordAgentStep: (step: AgentStepRecord) => Effect.Effect<void, AuditWriteError>
  /** Records the audit metadata of one tool call. */
  readonly recordToolInvocation: (invocation: ToolInvocationAudit) => Effect.Effect<void, AuditWriteError>
  /** Appends one row to the run's Token ledger. */
  readonly recordTokenUsage: (usage: TokenUsageRecord) => Effect.Effect<void, AuditWriteError>
}

/** Durable audit: long-lived metadata only. Writes are fail-open (see `RunRecorder`). */
export class AuditSink extends Context.Service<AuditSink, AuditSinkShape>()("@aiops-harness/core/AuditSink") {
  /** Discards everything: for callers that keep no durable audit. */
  static readonly noop = Layer.succeed(AuditSink, {
    startRun: () => Effect.void,
    finishRun: () => Effect.void,
    appendTimelineEvent: () => Effect.void,
    recordAgentStep: () => Effect.void,
    recordToolInvocation: () => Effect.void,
    recordTokenUsage: () => Effect.void
  })
  /** Fails every write: for proving that audit failures never change a run. */
  static readonly failing = Layer.succeed(AuditSink, {
    startRun: () => Effect.fail(new AuditWriteError({ record: "diagnosis_run" })),
    finishRun: () => Effect.fail(new AuditWriteError({ record: "diagnosis_run" })),
    appendTimelineEvent: () => Effect.fail(new AuditWriteError({ record: "run_timeline_event" })),
    recordAgentStep: () => Effect.fail(new AuditWriteError({ record: "agent_step" })),
    recordToolInvocation: () => Effect.fail(new AuditWriteError({ record: "tool_invocation" })),
    recordTokenUsage: () => Effect.fail(new AuditWriteError({ record: "model_token_usage" }))
  })
}
