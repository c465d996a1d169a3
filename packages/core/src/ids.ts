import { Data, Effect } from "effect"
import { z } from "zod"

/**
 * Ids end up inside storage keys (`...{<runId>}:inv:<toolCallId>`), so they are validated
 * at the edge: a conservative charset without `:`, `{`, `}`, whitespace or glob characters.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
/** Maximum length of an id (see `ID_PATTERN`). */
export const ID_MAX_LENGTH = 128

/** Zod schema of a `SessionId`. */
export const SessionIdSchema = z.string().regex(ID_PATTERN).brand<"SessionId">()
/** Zod schema of a `RunId`. */
export const RunIdSchema = z.string().regex(ID_PATTERN).brand<"RunId">()
/** Zod schema of a `ToolCallId`. */
export const ToolCallIdSchema = z.string().regex(ID_PATTERN).brand<"ToolCallId">()
/** Zod schema of a `StepId`. */
export const StepIdSchema = z.string().regex(ID_PATTERN).brand<"StepId">()

/** Validated id of a Session (a multi-turn conversation). */
export type SessionId = z.infer<typeof SessionIdSchema>
/** Validated id of a Run (one user question). */
export type RunId = z.infer<typeof RunIdSchema>
/** Validated id of one tool call, unique within its run. */
export type ToolCallId = z.infer<typeof ToolCallIdSchema>
/** Validated id of one AgentStep within its run. */
export type StepId = z.infer<typeof StepIdSchema>

/** Which kind of id failed validation (in `InvalidId`). */
export type IdKind = "SessionId" | "RunId" | "ToolCallId" | "StepId"

/** An id failed validation. `length` is given instead of the value: it may be hostile. */
export class InvalidId extends Data.TaggedError("InvalidId")<{
  readonly kind: IdKind
  readonly length: number
}> {
  override get message() {
    return `invalid ${this.kind}: expected 1-${ID_MAX_LENGTH} characters of [A-Za-z0-9_.-] starting with a letter or digit`
  }
}

const schemas = {
  SessionId: SessionIdSchema,
  RunId: RunIdSchema,
  ToolCallId: ToolCallIdSchema,
  StepId: StepIdSchema
} as const

type Branded = { SessionId: SessionId; RunId: RunId; ToolCallId: ToolCallId; StepId: StepId }

const parseId =
  <K extends IdKind>(kind: K) =>
  (value: unknown): Effect.Effect<Branded[K], InvalidId> => {
    const parsed = schemas[kind].safeParse(value)
    return parsed.success
      ? Effect.succeed(parsed.data as Branded[K])
      : Effect.fail(new InvalidId({ kind, length: typeof value === "string" ? value.length : -1 }))
  }

/** Validates an unknown value as a `SessionId`, or fails with `InvalidId`. */
export const parseSessionId = parseId("SessionId")
/** Validates an unknown value as a `RunId`, or fails with `InvalidId`. */
export const parseRunId = parseId("RunId")
/** Validates an unknown value as a `ToolCallId`, or fails with `InvalidId`. */
export const parseToolCallId = parseId("ToolCallId")
/** Validates an unknown value as a `StepId`, or fails with `InvalidId`. */
export const parseStepId = parseId("StepId")

/** Unchecked-input guard for code paths that cannot use Effect (e.g. key builders). */
export const isValidId = (value: unknown): value is string =>
  typeof value === "string" && ID_PATTERN.test(value)

/** Fresh random ids (UUID v4 fits the charset). */
export const newRunId = (): RunId => crypto.randomUUID() as RunId
/** Fresh random `SessionId` (UUID v4). */
export const newSessionId = (): SessionId => crypto.randomUUID() as SessionId
/** The `StepId` of the AgentStep at this run-scoped index (`step-<index>`). */
export const newStepId = (runScopedIndex: number): StepId => `step-${runScopedIndex}` as StepId
