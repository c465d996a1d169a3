import { Data, Effect } from "effect"
import { z } from "zod"

/**
 * Ids end up inside storage keys (`...{<runId>}:inv:<toolCallId>`), so they are validated
 * at the edge: a conservative charset without `:`, `{`, `}`, whitespace or glob characters.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/
export const ID_MAX_LENGTH = 128

export const SessionIdSchema = z.string().regex(ID_PATTERN).brand<"SessionId">()
export const RunIdSchema = z.string().regex(ID_PATTERN).brand<"RunId">()
export const ToolCallIdSchema = z.string().regex(ID_PATTERN).brand<"ToolCallId">()
export const StepIdSchema = z.string().regex(ID_PATTERN).brand<"StepId">()

export type SessionId = z.infer<typeof SessionIdSchema>
export type RunId = z.infer<typeof RunIdSchema>
export type ToolCallId = z.infer<typeof ToolCallIdSchema>
export type StepId = z.infer<typeof StepIdSchema>

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

export const parseSessionId = parseId("SessionId")
export const parseRunId = parseId("RunId")
export const parseToolCallId = parseId("ToolCallId")
export const parseStepId = parseId("StepId")

/** Unchecked-input guard for code paths that cannot use Effect (e.g. key builders). */
export const isValidId = (value: unknown): value is string =>
  typeof value === "string" && ID_PATTERN.test(value)

/** Fresh random ids (UUID v4 fits the charset). */
export const newRunId = (): RunId => crypto.randomUUID() as RunId
export const newSessionId = (): SessionId => crypto.randomUUID() as SessionId
export const newStepId = (runScopedIndex: number): StepId => `step-${runScopedIndex}` as StepId
