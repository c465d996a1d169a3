import { Effect } from "effect"
import { z } from "zod"
import { IllegalTransition, TOOL_ERROR_CODES, type ToolErrorCode } from "./errors.js"
import { ID_PATTERN, RunIdSchema, SessionIdSchema, StepIdSchema, ToolCallIdSchema } from "./ids.js"
import type { RunId, SessionId, StepId, ToolCallId } from "./ids.js"
import { type Json, type JsonObject, rememberedJsonText } from "./json.js"

/** Fields every canonical invocation has, whatever its status. */
export interface InvocationIdentity {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly toolCallId: ToolCallId
  readonly toolName: string
  /** The AgentStep that issued the call, when the caller knows it. */
  readonly stepId: StepId | null
  /** The validated typed request. */
  readonly request: Json
  readonly requestBytes: number
  /** Epoch milliseconds. */
  readonly createdAt: number
  readonly updatedAt: number
}

export interface ProjectingInvocation extends InvocationIdentity {
  readonly status: "PROJECTING"
  readonly evidenceStatus: null
}

/** The agent-visible projection, as stored: the EvidenceGuard checks citations against it. */
export type AgentResult = JsonObject

export interface ReadyInvocation extends InvocationIdentity {
  readonly status: "READY"
  readonly evidenceStatus: "EVIDENCE_FOUND" | "NO_EVIDENCE"
  /** The complete raw backend response: internal fact, never truncated. */
  readonly rawResponse: Json
  readonly rawBytes: number
  readonly agentResult: AgentResult
  readonly projectionBytes: number
  readonly truncated: boolean
}

export interface ErrorInvocation extends InvocationIdentity {
  readonly status: "ERROR"
  readonly evidenceStatus: "ERROR"
  readonly errorCode: ToolErrorCode
}

/**
 * The short-lived truth record of one tool call. Only the four legal
 * (status, evidenceStatus) combinations can be built.
 */
export type CanonicalInvocation = ProjectingInvocation | ReadyInvocation | ErrorInvocation

const JsonSchema: z.ZodType<Json> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(JsonSchema),
    z.record(z.string(), JsonSchema)
  ])
)

/**
 * Bodies (request, raw response, agent result) of a record decoded from a store come from
 * `JSON.parse`, so they are JSON by construction: walking a multi-megabyte raw response with
 * the recursive `JsonSchema` would cost several times the parse itself on every read.
 */
const ParsedJson = z.custom<Json>((value) => value !== undefined)

/**
 * The agent result's object, checked and kept as decoded (as the fast path keeps it): `z.record`
 * copies it and drops a `"__proto__"` key, which `JSON.parse` makes an ordinary own key.
 */
const ParsedJsonObject = z.custom<Record<string, Json>>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((x) => x !== undefined)
)

const identityShape = {
  runId: RunIdSchema,
  sessionId: SessionIdSchema,
  toolCallId: ToolCallIdSchema,
  toolName: z.string().min(1).max(128),
  stepId: StepIdSchema.nullable(),
  request: ParsedJson,
  requestBytes: z.number().int().nonnegative(),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative()
}

/**
 * Wire schema of a stored record (as decoded by `JSON.parse`): anything else read from a store
 * is corrupt. Structure, ids, statuses and counts are checked; bodies are taken as parsed.
 */
export const CanonicalInvocationSchema = z.discriminatedUnion("status", [
  z.object({ ...identityShape, status: z.literal("PROJECTING"), evidenceStatus: z.null() }).strict(),
  z
    .object({
      ...identityShape,
      status: z.literal("READY"),
      evidenceStatus: z.enum(["EVIDENCE_FOUND", "NO_EVIDENCE"]),
      rawResponse: ParsedJson,
      rawBytes: z.number().int().nonnegative(),
      agentResult: ParsedJsonObject,
      projectionBytes: z.number().int().nonnegative(),
      truncated: z.boolean()
    })
    .strict(),
  z
    .object({
      ...identityShape,
      status: z.literal("ERROR"),
      evidenceStatus: z.literal("ERROR"),
      errorCode: z.enum(TOOL_ERROR_CODES)
    })
    .strict()
]) as unknown as z.ZodType<CanonicalInvocation>

type Fields = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value)
const isId = (value: unknown): boolean => typeof value === "string" && ID_PATTERN.test(value)
const isCount = (value: unknown): boolean =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0
const TOOL_ERROR_CODE_SET: ReadonlySet<unknown> = new Set(TOOL_ERROR_CODES)
/** Fields of each status (the schema is strict: exactly these). */
const IDENTITY_FIELD_COUNT = Object.keys(identityShape).length + 2
const FIELD_COUNT = {
  PROJECTING: IDENTITY_FIELD_COUNT,
  READY: IDENTITY_FIELD_COUNT + 5,
  ERROR: IDENTITY_FIELD_COUNT + 1
}

/** Exactly what `CanonicalInvocationSchema` accepts, checked by hand (no zod objects per read). */
const isWellFormed = (v: Fields): boolean => {
  const status = v.status
  if (status !== "PROJECTING" && status !== "READY" && status !== "ERROR") return false
  if (Object.keys(v).length !== FIELD_COUNT[status]) return false
  if (
    !isId(v.runId) ||
    !isId(v.sessionId) ||
    !isId(v.toolCallId) ||
    !(v.stepId === null || isId(v.stepId)) ||
    typeof v.toolName !== "string" ||
    v.toolName.length < 1 ||
    v.toolName.length > 128 ||
    v.request === undefined ||
    !isCount(v.requestBytes) ||
    !isCount(v.createdAt) ||
    !isCount(v.updatedAt)
  ) {
    return false
  }
  switch (status) {
    case "PROJECTING":
      return v.evidenceStatus === null
    case "READY":
      return (
        (v.evidenceStatus === "EVIDENCE_FOUND" || v.evidenceStatus === "NO_EVIDENCE") &&
        v.rawResponse !== undefined &&
        isCount(v.rawBytes) &&
        isObject(v.agentResult) &&
        Object.values(v.agentResult).every((x) => x !== undefined) &&
        isCount(v.projectionBytes) &&
        typeof v.truncated === "boolean"
      )
    case "ERROR":
      return v.evidenceStatus === "ERROR" && TOOL_ERROR_CODE_SET.has(v.errorCode)
  }
}

/**
 * A stored record (as decoded by `JSON.parse`) as a `CanonicalInvocation`, or `undefined` when
 * `CanonicalInvocationSchema` rejects it. A well-formed record is checked by hand, without
 * zod (about a tenth of the time); anything else goes through the schema itself.
 */
export const parseCanonicalInvocation = (value: unknown): CanonicalInvocation | undefined => {
  if (isObject(value) && isWellFormed(value)) return value as unknown as CanonicalInvocation
  const parsed = CanonicalInvocationSchema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

/** zod schema of a JSON value (raw responses and projections are JSON only). */
export const JsonValueSchema = JsonSchema

/** The next record of a legal transition. */
export type TerminalInvocation = ReadyInvocation | ErrorInvocation

/** `PROJECTING -> READY` and `PROJECTING -> ERROR` are the only legal transitions. */
export const checkTransition = (
  current: CanonicalInvocation,
  next: TerminalInvocation
): Effect.Effect<void, IllegalTransition> =>
  current.status === "PROJECTING"
    ? Effect.void
    : Effect.fail(
        new IllegalTransition({
          from: current.status,
          to: next.status,
          runId: current.runId,
          toolCallId: current.toolCallId
        })
      )

/** The first record of a tool call: PROJECTING, written before the backend runs. */
export const newProjectingInvocation = (
  identity: Omit<InvocationIdentity, "updatedAt">
): ProjectingInvocation => ({
  ...identity,
  updatedAt: identity.createdAt,
  status: "PROJECTING",
  evidenceStatus: null
})

/** The READY record of a PROJECTING call: raw response, projection and sizes. */
export const toReady = (
  current: ProjectingInvocation,
  result: {
    readonly evidenceStatus: "EVIDENCE_FOUND" | "NO_EVIDENCE"
    readonly rawResponse: Json
    readonly rawBytes: number
    readonly agentResult: AgentResult
    readonly projectionBytes: number
    readonly truncated: boolean
    readonly at: number
  }
): ReadyInvocation => {
  const { at, ...rest } = result
  return { ...identityOf(current), updatedAt: at, status: "READY", ...rest }
}

/** The ERROR record of a PROJECTING call, with its stable error code. */
export const toError = (
  current: ProjectingInvocation,
  errorCode: ToolErrorCode,
  at: number
): ErrorInvocation => ({
  ...identityOf(current),
  updatedAt: at,
  status: "ERROR",
  evidenceStatus: "ERROR",
  errorCode
})

const identityOf = (r: InvocationIdentity): InvocationIdentity => ({
  runId: r.runId,
  sessionId: r.sessionId,
  toolCallId: r.toolCallId,
  toolName: r.toolName,
  stepId: r.stepId,
  request: r.request,
  requestBytes: r.requestBytes,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/**
 * The JSON text of a record in two parts, `head` then `rawText` and a closing `}`: a READY
 * record's raw response whose text the ToolBoundary already computed (`rememberJsonText`) is
 * that text, not serialized a second time (the raw response is most of a large record). Without
 * a remembered text, `head` is the whole text and `rawText` is undefined. A store can count and
 * write the parts without joining them into one string first.
 */
export const invocationJsonParts = (
  record: CanonicalInvocation
): { readonly head: string; readonly rawText: string | undefined } => {
  const rawText = record.status === "READY" ? rememberedJsonText(record.rawResponse) : undefined
  if (rawText === undefined) return { head: JSON.stringify(record), rawText }
  const { rawResponse: _raw, ...rest } = record as ReadyInvocation
  const head = JSON.stringify(rest)
  return { head: `${head.slice(0, -1)},"rawResponse":`, rawText }
}

/** The JSON text of a record, as every store writes it (see `invocationJsonParts`). */
export const encodeInvocation = (record: CanonicalInvocation): string => {
  const { head, rawText } = invocationJsonParts(record)
  return rawText === undefined ? head : `${head}${rawText}}`
}
