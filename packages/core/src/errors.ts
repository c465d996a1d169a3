import { Data } from "effect"
import type { InvocationStatus } from "./status.js"

/**
 * Stable codes: the only failure information the model ever receives.
 * Never put exception text, stacks or backend messages next to them.
 */
export const TOOL_ERROR_CODES = [
  "RUN_NOT_ACTIVE",
  "RUN_MISMATCH",
  "INVALID_TOOL_CALL_ID",
  "DUPLICATE_TOOL_CALL_ID",
  "UNKNOWN_TOOL",
  "TOOL_NOT_AUTHORIZED",
  "TOOL_NOT_READ_ONLY",
  "INVALID_REQUEST",
  "REQUEST_TOO_LARGE",
  "BUDGET_EXHAUSTED",
  "RAW_TOO_LARGE",
  "RECORD_TOO_LARGE",
  "PROJECTION_ERROR",
  "BACKEND_TIMEOUT",
  "BACKEND_ERROR",
  "STORE_ERROR",
  "CANCELLED",
  "INTERNAL_ERROR"
] as const
/** Stable error code a tool call returns to the model (one of `TOOL_ERROR_CODES`). */
export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number]

/** A run budget dimension that a reservation can exhaust. */
export type BudgetDimension = "toolCalls" | "requestBytes" | "rawBytes" | "projectionBytes"

// ---- ToolBoundary rule violations -------------------------------------------------------

/** The ToolBoundary refused a call: its run is not active. */
export class RunNotActive extends Data.TaggedError("RunNotActive")<{
  readonly runId: string
  readonly state: string
}> {}
/** The envelope named another run. Only its length is kept: the value came from the model. */
export class RunMismatch extends Data.TaggedError("RunMismatch")<{
  readonly expectedRunId: string
  readonly receivedLength: number
}> {}
/** The `toolCallId` is malformed. Only its length is kept: the value came from the model. */
export class InvalidToolCallId extends Data.TaggedError("InvalidToolCallId")<{ readonly length: number }> {}
/** The `toolCallId` was already used in this run. */
export class DuplicateToolCallId extends Data.TaggedError("DuplicateToolCallId")<{
  readonly toolCallId: string
}> {}
/** No tool of that name is registered with the ToolBoundary. */
export class UnknownTool extends Data.TaggedError("UnknownTool")<{ readonly toolName: string }> {}
/** The tool is not authorized for this run. */
export class ToolNotAuthorized extends Data.TaggedError("ToolNotAuthorized")<{ readonly toolName: string }> {}
/** The tool is not declared read-only, so it may not run inside a diagnosis. */
export class ToolNotReadOnly extends Data.TaggedError("ToolNotReadOnly")<{ readonly toolName: string }> {}
/** `issues` holds paths and messages from the schema, never the offending values. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly toolName: string
  readonly issues: ReadonlyArray<string>
  /** Optional stable reason a backend-side validator gives (e.g. `COLUMN_NOT_ALLOWED`). */
  readonly reason?: string
}> {}
/** The serialized request is over its byte limit. */
export class RequestTooLarge extends Data.TaggedError("RequestTooLarge")<{
  readonly bytes: number
  readonly limit: number
}> {}
/** A reservation asked for more than remains in a run budget dimension. */
export class BudgetExhausted extends Data.TaggedError("BudgetExhausted")<{
  readonly dimension: BudgetDimension
  readonly requested: number
  readonly remaining: number
}> {}
/** The backend's raw response is over its byte limit. */
export class RawTooLarge extends Data.TaggedError("RawTooLarge")<{
  readonly bytes: number
  readonly limit: number
}> {}
/** The Projector could not make an agent result from the raw response. */
export class ProjectionError extends Data.TaggedError("ProjectionError")<{
  /** Stable, safe reason such as `UNEXPECTED_SHAPE` or `NOTHING_FITS`. */
  readonly reason: string
  readonly detail?: string
}> {}
/** A backend failed. `cause` is internal only: it may contain secrets. */
export class BackendError extends Data.TaggedError("BackendError")<{
  readonly toolName: string
  readonly timeout?: boolean
  readonly cause?: unknown
}> {}

// ---- Canonical store ------------------------------------------------------------------------

/** The store could not answer (down, timed out, corrupt data). Guards fail closed on it. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: "create" | "transition" | "get" | "connect"
  /** `FULL`: a bounded (in-memory) store has no room for the record until others expire. */
  readonly reason: "UNAVAILABLE" | "TIMEOUT" | "CORRUPT_RECORD" | "FULL"
  readonly cause?: unknown
  /** The record concerned, when the operation had one. */
  readonly runId?: string
  readonly toolCallId?: string
}> {}
/** A canonical record with this `runId` and `toolCallId` already exists. */
export class InvocationAlreadyExists extends Data.TaggedError("InvocationAlreadyExists")<{
  readonly runId: string
  readonly toolCallId: string
}> {}
/** No canonical record exists (or is left) for this `runId` and `toolCallId`. */
export class InvocationNotFound extends Data.TaggedError("InvocationNotFound")<{
  readonly runId: string
  readonly toolCallId: string
}> {}
/** A canonical record was asked to move between InvocationStatus values that are not a legal transition. */
export class IllegalTransition extends Data.TaggedError("IllegalTransition")<{
  readonly from: InvocationStatus
  readonly to: InvocationStatus
  readonly runId?: string
  readonly toolCallId?: string
}> {}
/** The serialized canonical record is over the store's `maxRecordBytes`. */
export class RecordTooLarge extends Data.TaggedError("RecordTooLarge")<{
  readonly bytes: number
  readonly limit: number
}> {}

// ---- Run lifecycle --------------------------------------------------------------------------

/** A run was asked to move between lifecycle states that are not a legal transition. */
export class IllegalRunTransition extends Data.TaggedError("IllegalRunTransition")<{
  readonly from: string
  readonly to: string
}> {}

// ---- Audit ----------------------------------------------------------------------------------

/** A durable audit write failed. Fail-open: counted and reported, never thrown into a run. */
export class AuditWriteError extends Data.TaggedError("AuditWriteError")<{
  readonly record: string
  readonly cause?: unknown
}> {}

/** Every failure a ToolBoundary call can end with. */
export type ToolBoundaryError =
  | RunNotActive
  | RunMismatch
  | InvalidToolCallId
  | DuplicateToolCallId
  | UnknownTool
  | ToolNotAuthorized
  | ToolNotReadOnly
  | InvalidRequest
  | RequestTooLarge
  | BudgetExhausted
  | RawTooLarge
  | RecordTooLarge
  | ProjectionError
  | BackendError
  | StoreError
  | InvocationAlreadyExists
  | InvocationNotFound
  | IllegalTransition

/** The single mapping from internal errors to the agent-visible code. */
export const toToolErrorCode = (error: {
  readonly _tag: string
  readonly timeout?: boolean
}): ToolErrorCode => {
  switch (error._tag) {
    case "RunNotActive":
      return "RUN_NOT_ACTIVE"
    case "RunMismatch":
      return "RUN_MISMATCH"
    case "InvalidToolCallId":
      return "INVALID_TOOL_CALL_ID"
    case "DuplicateToolCallId":
    case "InvocationAlreadyExists":
      return "DUPLICATE_TOOL_CALL_ID"
    case "UnknownTool":
      return "UNKNOWN_TOOL"
    case "ToolNotAuthorized":
      return "TOOL_NOT_AUTHORIZED"
    case "ToolNotReadOnly":
      return "TOOL_NOT_READ_ONLY"
    case "InvalidRequest":
      return "INVALID_REQUEST"
    case "RequestTooLarge":
      return "REQUEST_TOO_LARGE"
    case "BudgetExhausted":
      return "BUDGET_EXHAUSTED"
    case "RawTooLarge":
      return "RAW_TOO_LARGE"
    case "RecordTooLarge":
      return "RECORD_TOO_LARGE"
    case "ProjectionError":
      return "PROJECTION_ERROR"
    case "BackendError":
      return error.timeout ? "BACKEND_TIMEOUT" : "BACKEND_ERROR"
    case "StoreError":
    case "InvocationNotFound":
    case "IllegalTransition":
      return "STORE_ERROR"
    default:
      return "INTERNAL_ERROR"
  }
}
