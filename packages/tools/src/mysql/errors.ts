import { Data } from "effect"

/** The allowlist JSON did not match {@link MysqlAllowlistSchema}. `issues` are zod paths + messages. */
export class InvalidAllowlist extends Data.TaggedError("InvalidAllowlist")<{
  readonly detail: string
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
}> {}

/**
 * Stable rejection codes of {@link validateMysqlQuery}. These are safe to show to a model.
 */
export type MysqlRejectionReason =
  | "EMPTY_QUERY"
  | "PARSE_ERROR"
  | "MULTIPLE_STATEMENTS"
  | "NOT_SELECT"
  | "UNKNOWN_DATASOURCE"
  | "TABLE_NOT_ALLOWED"
  | "COLUMN_NOT_ALLOWED"
  | "AMBIGUOUS_COLUMN"
  | "STAR_NOT_ALLOWED"
  | "SYSTEM_SCHEMA"
  | "FORBIDDEN_FUNCTION"
  | "USER_VARIABLE"
  | "SYSTEM_VARIABLE"
  | "INTO_NOT_ALLOWED"
  | "LOCKING_READ"
  | "VERSIONED_COMMENT"
  | "OPTIMIZER_HINT"
  | "PARAMETER_PLACEHOLDER"
  | "SELECT_MODIFIER"
  | "RECURSIVE_CTE"
  | "INVALID_LIMIT"
  | "RESOURCE_LIMIT"
  | "UNSAFE_LITERAL"
  | "UNSAFE_CHARACTER"
  | "ROUND_TRIP_MISMATCH"
  | "UNSUPPORTED_SYNTAX"

/** Every reason the validator can reject a statement with. */
export const MYSQL_REJECTION_REASONS: ReadonlyArray<MysqlRejectionReason> = [
  "EMPTY_QUERY",
  "PARSE_ERROR",
  "MULTIPLE_STATEMENTS",
  "NOT_SELECT",
  "UNKNOWN_DATASOURCE",
  "TABLE_NOT_ALLOWED",
  "COLUMN_NOT_ALLOWED",
  "AMBIGUOUS_COLUMN",
  "STAR_NOT_ALLOWED",
  "SYSTEM_SCHEMA",
  "FORBIDDEN_FUNCTION",
  "USER_VARIABLE",
  "SYSTEM_VARIABLE",
  "INTO_NOT_ALLOWED",
  "LOCKING_READ",
  "VERSIONED_COMMENT",
  "OPTIMIZER_HINT",
  "PARAMETER_PLACEHOLDER",
  "SELECT_MODIFIER",
  "RECURSIVE_CTE",
  "INVALID_LIMIT",
  "RESOURCE_LIMIT",
  "UNSAFE_LITERAL",
  "UNSAFE_CHARACTER",
  "ROUND_TRIP_MISMATCH",
  "UNSUPPORTED_SYNTAX"
]

/**
 * The statement was refused before reaching any server. `detail` is short and never contains
 * literals from the SQL text (only allowlisted identifiers or keywords may appear in it).
 */
export class MysqlQueryRejected extends Data.TaggedError("MysqlQueryRejected")<{
  readonly reason: MysqlRejectionReason
  readonly detail: string
}> {}

/** Why an executor could not run a validated statement (in `MysqlExecutionError`). */
export type MysqlExecutionErrorCode =
  | "CONNECTION_FAILED"
  | "TIMEOUT"
  | "SERVER_ERROR"
  | "UNKNOWN_DATASOURCE"
  | "PLAN_NOT_VALIDATED"
  | "INVALID_CONFIG"
  | "RESULT_TOO_LARGE"
  | "UNSAFE_PRIVILEGES"
  /** The executor's circuit breaker refused the call: the server failed recently. */
  | "CIRCUIT_OPEN"

/**
 * Executing a plan failed. `code` is stable and safe to show; `internalMessage` (driver/server text,
 * may contain SQL or data) is for logs only and must never be shown to a model.
 */
export class MysqlExecutionError extends Data.TaggedError("MysqlExecutionError")<{
  readonly code: MysqlExecutionErrorCode
  /** MySQL/MariaDB error code name (e.g. ER_NO_SUCH_TABLE) when the server supplied one. */
  readonly serverCode?: string | undefined
  /** Numeric server error number (e.g. 1969 MariaDB statement timeout) when supplied. */
  readonly serverErrno?: number | undefined
  /** Never show to a model: driver/server message, may echo SQL or data. */
  readonly internalMessage: string
}> {}
