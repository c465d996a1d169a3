import { createHash } from "node:crypto"
import { Clock, Context, Effect, Layer } from "effect"
import type { BudgetUsage } from "./budget.js"
import {
  BackendError,
  DuplicateToolCallId,
  InvalidRequest,
  InvalidToolCallId,
  ProjectionError,
  RawTooLarge,
  RequestTooLarge,
  RunMismatch,
  RunNotActive,
  type ToolBoundaryError,
  type ToolErrorCode,
  ToolNotAuthorized,
  ToolNotReadOnly,
  toToolErrorCode,
  UnknownTool
} from "./errors.js"
import { isValidId, type StepId, type ToolCallId } from "./ids.js"
import { newProjectingInvocation, type ProjectingInvocation, toError, toReady } from "./invocation.js"
import { type Json, type JsonObject, rememberJsonText, stableStringify, utf8Bytes } from "./json.js"
import type { RunContext } from "./run.js"
import type { EvidenceStatus, InvocationStatus } from "./status.js"
import { CanonicalInvocationStore } from "./store.js"
import { toolInvocationEvent } from "./timeline/events.js"
import type { Projection, ToolCallContext, ToolCallEnvelope, ToolDefinition } from "./tool.js"
import { traceToolCall } from "./tracing.js"

/** What the model sees of one call: whitelisted, bounded, redacted fields only. */
export type AgentObservation = JsonObject

/** What the harness sees of one call: counts, scope, duplicate identity, budgets. */
export interface ControlView {
  readonly toolCallId: string | null
  readonly toolName: string
  /** Whether a canonical record exists for this call (false when refused before creation). */
  readonly recordCreated: boolean
  readonly status: InvocationStatus
  readonly evidenceStatus: EvidenceStatus
  readonly errorCode: ToolErrorCode | null
  readonly returnedCount: number
  readonly truncated: boolean
  readonly scope: JsonObject | null
  /**
   * `toolName:` + a digest of the tool's normalized scope: equal identities mean a repeated
   * request. A digest, so that the durable audit never holds request text.
   */
  readonly duplicateIdentity: string | null
  readonly requestBytes: number
  readonly rawBytes: number
  readonly projectionBytes: number
  readonly latencyMs: number
  readonly budgetRemaining: BudgetUsage
}

/** What one ToolBoundary call returns: the model's observation, the harness's control view, and the internal cause. */
export interface ToolCallOutcome {
  readonly observation: AgentObservation
  readonly control: ControlView
  /** Internal cause, for logs and tests. Never give it to the model. */
  readonly error: ToolBoundaryError | null
}

/** Settings of a ToolBoundary that no tool overrides. */
export interface ToolBoundaryConfig {
  /** Backend time limit when a tool sets none. */
  readonly backendTimeoutMillis: number
}

/** Default ToolBoundary settings: a 30 s backend time limit. */
export const defaultToolBoundaryConfig: ToolBoundaryConfig = { backendTimeoutMillis: 30_000 }

/** The ToolBoundary of one run: the only way a tool call reaches a backend. */
export interface ToolBoundaryShape {
  readonly run: RunContext
  /** Executes one tool call under every rule. Never fails: failures become error codes. */
  readonly call: (envelope: ToolCallEnvelope) => Effect.Effect<ToolCallOutcome>
  /** The model-facing tool list: only authorized, read-only, registered tools. */
  readonly tools: ReadonlyArray<ToolDefinition>
}

/** Fields of the observation envelope: a projection may not set them. */
export const RESERVED_OBSERVATION_FIELDS = [
  "tool_call_id",
  "tool",
  "status",
  "evidence_status",
  "truncated"
] as const

/** UTF-8 bytes of the envelope with an empty body, at its longest (for the projector's budget). */
const envelopeBytes = (toolCallId: string, toolName: string): number =>
  utf8Bytes(
    JSON.stringify({
      tool_call_id: toolCallId,
      tool: toolName,
      status: "READY",
      evidence_status: "EVIDENCE_FOUND",
      truncated: false
    })
  )

/** JSON text of a value, or a typed failure (BigInt, cycles, ...) instead of a thrown exception. */
const toJsonText = <E>(value: unknown, onError: () => E): Effect.Effect<string, E> =>
  Effect.try({ try: () => JSON.stringify(value ?? null), catch: onError })

/** A short, stable digest: the audit keeps identity, never the request text. */
const digest = (text: string): string => createHash("sha256").update(text).digest("hex").slice(0, 32)

interface Progress {
  toolCallId: ToolCallId | null
  record: ProjectingInvocation | null
  requestBytes: number
  rawBytes: number
}

const parseArguments = (toolName: string, args: unknown): Effect.Effect<unknown, InvalidRequest> => {
  if (typeof args !== "string") return Effect.succeed(args ?? {})
  if (args.trim() === "") return Effect.succeed({})
  try {
    return Effect.succeed(JSON.parse(args) as unknown)
  } catch {
    return Effect.fail(new InvalidRequest({ toolName, issues: ["arguments: not valid JSON"] }))
  }
}

/**
 * The single entry point for tool calls of one run. Applies, in order: run active, run id,
 * toolCallId form and uniqueness, authorization, read-only, request preflight, call and
 * request-byte budget, canonical record (PROJECTING), backend, raw limit and budget,
 * projection and its budget, READY; then durable audit, best-effort.
 */
export const makeToolBoundary = (options: {
  readonly run: RunContext
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly config?: Partial<ToolBoundaryConfig>
}): Effect.Effect<ToolBoundaryShape, never, CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    const { run } = options
    const config = { ...defaultToolBoundaryConfig, ...options.config }
    const registry = new Map(options.tools.map((t) => [t.name, t]))
    const limits = run.budget.limits

    const execute = (envelope: ToolCallEnvelope, progress: Progress, startedAt: number) =>
      Effect.gen(function* () {
        const state = yield* run.state
        if (state !== "ACTIVE") return yield* Effect.fail(new RunNotActive({ runId: run.runId, state }))
        if (envelope.runId !== run.runId) {
          const received: unknown = envelope.runId
          return yield* Effect.fail(
            new RunMismatch({
              expectedRunId: run.runId,
              receivedLength: typeof received === "string" ? received.length : -1
            })
          )
        }
        if (!isValidId(envelope.toolCallId)) {
          const raw: unknown = envelope.toolCallId
          const length = typeof raw === "string" ? raw.length : -1
          return yield* Effect.fail(new InvalidToolCallId({ length }))
        }
        const toolCallId = envelope.toolCallId as ToolCallId
        if (!(yield* run.claimToolCallId(toolCallId))) {
          return yield* Effect.fail(new DuplicateToolCallId({ toolCallId }))
        }
        progress.toolCallId = toolCallId
        const toolName = envelope.toolName
        if (!run.authorizedTools.has(toolName)) return yield* Effect.fail(new ToolNotAuthorized({ toolName }))
        const tool = registry.get(toolName)
        if (!tool) return yield* Effect.fail(new UnknownTool({ toolName }))
        if (tool.readOnly !== true) return yield* Effect.fail(new ToolNotReadOnly({ toolName }))

        // Preflight: size first (never parse a huge payload), then JSON, then the typed schema.
        const argText =
          typeof envelope.arguments === "string"
            ? envelope.arguments
            : JSON.stringify(envelope.arguments ?? {})
        const argBytes = utf8Bytes(argText)
        if (argBytes > limits.maxRequestBytesPerCall) {
          return yield* Effect.fail(
            new RequestTooLarge({ bytes: argBytes, limit: limits.maxRequestBytesPerCall })
          )
        }
        const args = yield* parseArguments(toolName, envelope.arguments)
        const parsed = tool.requestSchema.safeParse(args)
        if (!parsed.success) {
          const issues = parsed.error.issues
            .slice(0, 10)
            .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
          return yield* Effect.fail(new InvalidRequest({ toolName, issues }))
        }
        const request = parsed.data
        const requestText = yield* toJsonText(
          request,
          () => new InvalidRequest({ toolName, issues: ["request: not serializable as JSON"] })
        )
        const requestJson = JSON.parse(requestText) as Json
        const requestBytes = utf8Bytes(requestText)
        progress.requestBytes = requestBytes
        yield* run.budget.reserve({ toolCalls: 1, requestBytes })

        const stepId = isValidId(envelope.stepId) ? (envelope.stepId as StepId) : null
        const record = newProjectingInvocation({
          runId: run.runId,
          sessionId: run.sessionId,
          toolCallId,
          toolName,
          stepId,
          request: requestJson,
          requestBytes,
          createdAt: startedAt
        })
        yield* store.create(record)
        progress.record = record

        const context: ToolCallContext = {
          runId: run.runId,
          sessionId: run.sessionId,
          toolCallId,
          stepId,
          now: startedAt
        }
        const raw = yield* Effect.suspend(() => tool.execute(request, context)).pipe(
          Effect.catchDefect((cause) => Effect.fail(new BackendError({ toolName, cause }))),
          Effect.timeoutOrElse({
            duration: tool.timeoutMillis ?? config.backendTimeoutMillis,
            orElse: () => Effect.fail(new BackendError({ toolName, timeout: true }))
          })
        )

        // Raw is internal fact: over its limit it is an error, never silently truncated.
        const rawText = yield* toJsonText(
          raw,
          () => new BackendError({ toolName, cause: "raw not serializable as JSON" })
        )
        const rawBytes = utf8Bytes(rawText)
        progress.rawBytes = rawBytes
        if (rawBytes > limits.maxRawBytesPerCall) {
          return yield* Effect.fail(new RawTooLarge({ bytes: rawBytes, limit: limits.maxRawBytesPerCall }))
        }
        yield* run.budget.reserve({ rawBytes })

        const projection: Projection = yield* Effect.suspend(() =>
          tool.project({
            request,
            toolCallId,
            raw,
            maxBytes: Math.max(0, limits.maxProjectionBytesPerCall - envelopeBytes(toolCallId, toolName))
          })
        ).pipe(Effect.catchDefect(() => Effect.fail(new ProjectionError({ reason: "PROJECTOR_DEFECT" }))))

        // The envelope is the harness's word: a projection cannot forge it.
        if (RESERVED_OBSERVATION_FIELDS.some((field) => Object.hasOwn(projection.observation, field))) {
          return yield* Effect.fail(new ProjectionError({ reason: "RESERVED_FIELD" }))
        }
        const observation: AgentObservation = {
          tool_call_id: toolCallId,
          tool: toolName,
          status: "READY",
          evidence_status: projection.evidenceStatus,
          truncated: projection.truncated,
          ...projection.observation
        }
        const observationText = yield* toJsonText(
          observation,
          () => new ProjectionError({ reason: "NOT_SERIALIZABLE" })
        )
        const projectionBytes = utf8Bytes(observationText)
        if (projectionBytes > limits.maxProjectionBytesPerCall) {
          return yield* Effect.fail(new ProjectionError({ reason: "OVER_BYTE_BUDGET" }))
        }
        yield* run.budget.reserve({ projectionBytes })

        const at = yield* Clock.currentTimeMillis
        rememberJsonText(raw, rawText)
        yield* store.transition(
          toReady(record, {
            evidenceStatus: projection.evidenceStatus,
            // The value itself, not a parsed copy: the store writes `rawText` (remembered
            // below), so the raw response is serialized once per call.
            rawResponse: raw as Json,
            rawBytes,
            agentResult: observation,
            projectionBytes,
            truncated: projection.truncated,
            at
          })
        )
        // The actual scope (what was searched) comes from the projection; the duplicate
        // identity from the tool's normalized scope, so that the same question asked
        // seconds later (a shifted time window) is still recognised as a repeat.
        const normalized = tool.scopeOf?.(request, context) ?? projection.scope ?? (requestJson as JsonObject)
        const scope = projection.scope ?? normalized
        return {
          observation,
          projection,
          projectionBytes,
          rawBytes,
          requestBytes,
          scope,
          duplicateIdentity: `${toolName}:${digest(stableStringify(normalized))}`,
          toolCallId
        }
      })

    const call = (envelope: ToolCallEnvelope): Effect.Effect<ToolCallOutcome> =>
      Effect.gen(function* () {
        const startedAt = yield* Clock.currentTimeMillis
        const progress: Progress = { toolCallId: null, record: null, requestBytes: 0, rawBytes: 0 }
        const result = yield* Effect.result(execute(envelope, progress, startedAt)).pipe(
          // An interrupted call (run cancelled, caller timeout) must not leave its record
          // PROJECTING: best-effort ERROR + audit, run uninterruptibly by onInterrupt.
          Effect.onInterrupt(() =>
            Effect.gen(function* () {
              if (!progress.record || !progress.toolCallId) return
              const at = yield* Clock.currentTimeMillis
              yield* store.transition(toError(progress.record, "CANCELLED", at)).pipe(Effect.ignore)
              yield* run.recorder.toolInvocation({
                toolCallId: progress.toolCallId,
                toolName: progress.record.toolName,
                stepId: progress.record.stepId,
                status: "ERROR",
                evidenceStatus: "ERROR",
                errorCode: "CANCELLED",
                latencyMs: at - startedAt,
                requestBytes: progress.requestBytes,
                rawBytes: progress.rawBytes,
                projectionBytes: 0,
                truncated: false,
                returnedCount: null,
                startedAt,
                metadata: {}
              })
            })
          )
        )
        const finishedAt = yield* Clock.currentTimeMillis
        const budgetRemaining = yield* run.budget.remaining
        const toolName = String(envelope.toolName).slice(0, 128)
        const stepId = isValidId(envelope.stepId) ? envelope.stepId : null

        let outcome: ToolCallOutcome
        if (result._tag === "Success") {
          const ok = result.success
          outcome = {
            observation: ok.observation,
            error: null,
            control: {
              toolCallId: ok.toolCallId,
              toolName,
              recordCreated: true,
              status: "READY",
              evidenceStatus: ok.projection.evidenceStatus,
              errorCode: null,
              returnedCount: ok.projection.returnedCount,
              truncated: ok.projection.truncated,
              scope: ok.scope,
              duplicateIdentity: ok.duplicateIdentity,
              requestBytes: ok.requestBytes,
              rawBytes: ok.rawBytes,
              projectionBytes: ok.projectionBytes,
              latencyMs: finishedAt - startedAt,
              budgetRemaining
            }
          }
        } else {
          const error = result.failure
          const errorCode = toToolErrorCode(error)
          // Best-effort: a record that exists must not stay PROJECTING.
          if (progress.record) {
            yield* store.transition(toError(progress.record, errorCode, finishedAt)).pipe(Effect.ignore)
          }
          outcome = {
            error,
            observation: {
              tool_call_id: progress.toolCallId,
              tool: toolName,
              status: "ERROR",
              evidence_status: "ERROR",
              error_code: errorCode
            },
            control: {
              toolCallId: progress.toolCallId,
              toolName,
              recordCreated: progress.record !== null,
              status: "ERROR",
              evidenceStatus: "ERROR",
              errorCode,
              returnedCount: 0,
              truncated: false,
              scope: null,
              duplicateIdentity: null,
              requestBytes: progress.requestBytes,
              rawBytes: progress.rawBytes,
              projectionBytes: 0,
              latencyMs: finishedAt - startedAt,
              budgetRemaining
            }
          }
        }

        // Durable audit: best-effort, and a failure never changes the result.
        const c = outcome.control
        if (c.toolCallId !== null) {
          yield* run.recorder.toolInvocation({
            toolCallId: c.toolCallId,
            toolName,
            stepId,
            status: c.recordCreated ? c.status : null,
            evidenceStatus: c.recordCreated ? c.evidenceStatus : null,
            errorCode: c.errorCode,
            latencyMs: c.latencyMs,
            requestBytes: c.requestBytes,
            rawBytes: c.rawBytes,
            projectionBytes: c.projectionBytes,
            truncated: c.truncated,
            returnedCount: c.recordCreated && c.errorCode === null ? c.returnedCount : null,
            startedAt,
            // Counts only (never request text): what the trace viewer shows as "budget left".
            metadata: {
              ...(c.duplicateIdentity ? { duplicate_identity: c.duplicateIdentity } : {}),
              budget_remaining: {
                tool_calls: c.budgetRemaining.toolCalls,
                request_bytes: c.budgetRemaining.requestBytes,
                raw_bytes: c.budgetRemaining.rawBytes,
                projection_bytes: c.budgetRemaining.projectionBytes
              }
            }
          })
        }
        yield* run.recorder.event(
          toolInvocationEvent({
            tool_call_id: c.toolCallId,
            tool: toolName,
            step_id: stepId,
            status: c.status,
            evidence_status: c.evidenceStatus,
            error_code: c.errorCode,
            latency_ms: c.latencyMs,
            truncated: c.truncated
          })
        )
        return outcome
      })

    const tools = options.tools.filter((t) => t.readOnly && run.authorizedTools.has(t.name))
    return { run, call: traceToolCall(call), tools }
  })

/** The ToolBoundary of the current run, as a service. */
export class ToolBoundary extends Context.Service<ToolBoundary, ToolBoundaryShape>()(
  "@aiops-harness/core/ToolBoundary"
) {
  /** A layer that builds the run's ToolBoundary from {@link makeToolBoundary}'s options. */
  static readonly layer = (options: Parameters<typeof makeToolBoundary>[0]) =>
    Layer.effect(ToolBoundary, makeToolBoundary(options))
}
