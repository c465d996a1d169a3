import { Data } from "effect"

/** No audit of this run exists for this session (unknown run, or a run of another session). */
export class RunNotFound extends Data.TaggedError("RunNotFound")<{
  readonly sessionId: string
  readonly runId: string
}> {}

/** The audit store could not answer a trace read. `cause` is internal only. */
export class AuditReadError extends Data.TaggedError("AuditReadError")<{
  readonly reason: "UNAVAILABLE" | "TIMEOUT" | "CORRUPT_RECORD"
  readonly cause?: unknown
}> {}

/** A schema migration could not be applied (server down, DDL refused, version drift). */
export class MigrationError extends Data.TaggedError("MigrationError")<{
  readonly reason: "UNAVAILABLE" | "LOCK_TIMEOUT" | "STATEMENT_FAILED" | "VERSION_DRIFT"
  /** The migration version that failed, when one did. */
  readonly version?: number
  readonly cause?: unknown
}> {}

/** The audit configuration is unusable (bad URL, non-positive limits). */
export class AuditConfigError extends Data.TaggedError("AuditConfigError")<{
  readonly field: string
  readonly reason: string
}> {}

/** A `listRuns` request is unusable (limit out of range, malformed cursor or filter). */
export class InvalidRunListQuery extends Data.TaggedError("InvalidRunListQuery")<{
  readonly field: "limit" | "before" | "sessionId" | "status" | "releaseResult"
  readonly reason: string
}> {}
