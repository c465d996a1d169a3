import type { Effect } from "effect"
import type { z } from "zod"
import type { BackendError, InvalidRequest, ProjectionError } from "./errors.js"
import type { RunId, SessionId, StepId, ToolCallId } from "./ids.js"
import type { JsonObject } from "./json.js"
import type { ReadyEvidenceStatus } from "./status.js"

/** What a backend and a projector know about the call they serve. */
export interface ToolCallContext {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly toolCallId: ToolCallId
  readonly stepId: StepId | null
  /** Epoch milliseconds from the injected Clock, when the call entered the boundary. */
  readonly now: number
}

/** What a Projector receives: the typed request, the raw response and its byte budget. */
export interface ProjectorInput<Req, Raw> {
  readonly request: Req
  readonly toolCallId: ToolCallId
  readonly raw: Raw
  /** UTF-8 byte budget for the serialized observation. */
  readonly maxBytes: number
}

/** A projector's output: the bounded, redacted Agent Observation body plus control facts. */
export interface Projection {
  readonly evidenceStatus: ReadyEvidenceStatus
  /** Agent-visible fields (snake_case), already bounded and redacted. */
  readonly observation: JsonObject
  /** True exactly when something was dropped or cut. */
  readonly truncated: boolean
  /** Items the backend returned, before bounding (Control View only). */
  readonly returnedCount: number
  /** The actual, normalized scope of the query (duplicate identity). */
  readonly scope?: JsonObject
}

/**
 * Tool-specific pure function: raw response (+ typed request) -> bounded agent result.
 * Fails with `ProjectionError` on an unexpected shape (never guessed at) or when nothing
 * valid fits, and with `BackendError` when the raw payload is a backend error report.
 */
export type Projector<Req, Raw> = (
  input: ProjectorInput<Req, Raw>
) => Effect.Effect<Projection, ProjectionError | BackendError>

/**
 * One tool as the ToolBoundary runs it. `execute` must already have its services
 * provided (adapters close over them), so the boundary stays backend-agnostic.
 */
export interface ToolDefinition<Req = any, Raw = any> {
  readonly name: string
  readonly description: string
  /** Only read-only tools may run inside a diagnosis. */
  readonly readOnly: boolean
  readonly requestSchema: z.ZodType<Req>
  /** Calls the backend and returns its raw response. */
  readonly execute: (
    request: Req,
    context: ToolCallContext
  ) => Effect.Effect<Raw, BackendError | InvalidRequest>
  readonly project: Projector<Req, Raw>
  /** Normalized scope for duplicate identity when the projection does not report one. */
  readonly scopeOf?: (request: Req, context: ToolCallContext) => JsonObject
  /** Backend time limit in milliseconds (default: the boundary's). */
  readonly timeoutMillis?: number
}

/** The model's envelope for one tool call, as received. Nothing in it is trusted. */
export interface ToolCallEnvelope {
  readonly runId: string
  readonly toolCallId: string
  readonly toolName: string
  /** JSON text as the model produced it, or an already parsed value. */
  readonly arguments: unknown
  readonly stepId?: string | null
}
