import {
  CaptureTraceContent,
  GenAiAttributes,
  HarnessAttributes,
  type InvalidId,
  spanOptions
} from "@aiops-harness/core"
import type { EvidenceGuardResult, ReleaseDecisionResult, SemanticGuardResult } from "@aiops-harness/guards"
import { Clock, Effect } from "effect"
import type { DiagnosisResult } from "./diagnosis.js"
import { ChatModel, type ChatModelShape, type ChatRequest, type ModelError } from "./model.js"
import type { RoutingResult } from "./router.js"

/** `gen_ai.agent.name` of the diagnosis agent. */
export const AGENT_NAME = "aiops-diagnosis"

/** Token counts of the model calls of one run, as the chat spans saw them. */
interface UsageTally {
  input: number
  output: number
  /** False once a call failed or reported no usage: the sums are then a lower bound, not exported. */
  complete: boolean
}

/**
 * The span's view of a failed model call: only its stable reason. Effect's OTLP exporter writes a
 * failure's message into the span; a `ModelError.detail` (provider text) must never get there.
 */
class ModelCallFailed extends Error {
  // A private field: not enumerable, so no exporter serializes the original (and its detail).
  readonly #original: ModelError
  constructor(original: ModelError) {
    super(original.reason)
    this.name = "ModelError"
    this.#original = original
  }
  get original(): ModelError {
    return this.#original
  }
}

/**
 * Wraps a `ChatModel` so every call is a `chat {model}` span (GenAI semconv, kind CLIENT) with
 * `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.response.model`, the usage, and
 * `error.type` = the `ModelError.reason` on failure. Messages are never attached.
 */
export const traceChatModel = (inner: ChatModelShape, tally?: UsageTally): ChatModelShape => ({
  ...inner,
  chat: (request: ChatRequest) => {
    const info = inner.info
    return inner.chat(request).pipe(
      Effect.tap((response) => {
        if (tally) {
          if (response.usage === null) tally.complete = false
          else {
            tally.input += response.usage.promptTokens
            tally.output += response.usage.completionTokens
          }
        }
        return Effect.annotateCurrentSpan({
          [GenAiAttributes.responseModel]: response.model,
          ...(response.usage === null
            ? { "aiops.usage.available": false }
            : {
                "aiops.usage.available": true,
                [GenAiAttributes.inputTokens]: response.usage.promptTokens,
                [GenAiAttributes.outputTokens]: response.usage.completionTokens
              })
        })
      }),
      Effect.tapError((error) => {
        if (tally) tally.complete = false
        return Effect.annotateCurrentSpan(GenAiAttributes.errorType, error.reason)
      }),
      Effect.mapError((error) => new ModelCallFailed(error)),
      Effect.withSpan(
        info ? `chat ${info.model}` : "chat",
        spanOptions(
          {
            [GenAiAttributes.operationName]: "chat",
            "aiops.chat.purpose": request.purpose,
            ...(info
              ? { [GenAiAttributes.providerName]: info.provider, [GenAiAttributes.requestModel]: info.model }
              : {})
          },
          "client"
        )
      ),
      Effect.mapError((failure) => failure.original)
    )
  }
})

/**
 * The `invoke_agent aiops-diagnosis` span around one run: `gen_ai.conversation.id` = sessionId,
 * the run id, release result, intent, stop reason and the run's token sums (only when every model
 * call reported usage). Model calls inside are `chat` spans. With `CaptureTraceContent` the
 * released (redacted) content is attached as `gen_ai.output.messages`.
 */
export const traceInvokeAgent = <R>(
  run: Effect.Effect<DiagnosisResult, InvalidId, R>
): Effect.Effect<DiagnosisResult, InvalidId, R | ChatModel> =>
  Effect.suspend(() => {
    const tally: UsageTally = { input: 0, output: 0, complete: true }
    return Effect.gen(function* () {
      const model = yield* ChatModel
      const info = model.info
      if (info) {
        yield* Effect.annotateCurrentSpan({
          [GenAiAttributes.providerName]: info.provider,
          [GenAiAttributes.requestModel]: info.model
        })
      }
      const result = yield* run.pipe(Effect.provideService(ChatModel, traceChatModel(model, tally)))
      const capture = yield* CaptureTraceContent
      yield* Effect.annotateCurrentSpan({
        [GenAiAttributes.conversationId]: result.sessionId,
        [HarnessAttributes.sessionId]: result.sessionId,
        [HarnessAttributes.runId]: result.runId,
        "aiops.release_result": result.releaseResult,
        "aiops.intent": result.intent ?? "none",
        "aiops.stop_reason": result.stopReason ?? "none",
        "aiops.tool_calls": result.checked.length,
        "aiops.usage.complete": tally.complete,
        ...(tally.complete
          ? { [GenAiAttributes.inputTokens]: tally.input, [GenAiAttributes.outputTokens]: tally.output }
          : {}),
        ...(result.releaseResult === "RUN_FAILED" ? { [GenAiAttributes.errorType]: "RUN_FAILED" } : {}),
        ...(capture
          ? {
              [GenAiAttributes.outputMessages]: JSON.stringify([
                { role: "assistant", parts: [{ type: "text", content: result.content }] }
              ])
            }
          : {})
      })
      return result
    }).pipe(
      Effect.withSpan(
        `invoke_agent ${AGENT_NAME}`,
        spanOptions({
          [GenAiAttributes.operationName]: "invoke_agent",
          [GenAiAttributes.agentName]: AGENT_NAME
        })
      )
    )
  })

/** A `STOP_REQUIRED` decision as an `aiops.stop_required` event on the current (`invoke_agent`) span. */
export const traceStopRequired = (reason: string, stepId: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    const span = yield* Effect.currentSpan.pipe(Effect.orElseSucceed(() => null))
    if (span === null) return
    span.event("aiops.stop_required", yield* Clock.currentTimeNanos, {
      "aiops.stop.reason": reason,
      [HarnessAttributes.stepId]: stepId
    })
  })

/** The router as a `route_question` span with its decision. */
export const traceRouting = <E, R>(routing: Effect.Effect<RoutingResult, E, R>) =>
  routing.pipe(
    Effect.tap((r) =>
      Effect.annotateCurrentSpan({ "aiops.routing.intent": r.intent, "aiops.routing.source": r.source })
    ),
    Effect.withSpan("route_question", spanOptions({ "aiops.component": "router" }))
  )

/** EvidenceGuard as a `guard evidence_guard` span (passed, failures, store availability). */
export const traceEvidenceGuard = <E, R>(guard: Effect.Effect<EvidenceGuardResult, E, R>) =>
  guard.pipe(
    Effect.tap((g) =>
      Effect.annotateCurrentSpan({
        "aiops.guard.passed": g.passed,
        "aiops.guard.failures": g.failures.length,
        "aiops.guard.store_available": g.storeAvailable
      })
    ),
    Effect.withSpan("guard evidence_guard", spanOptions({ "aiops.guard.name": "evidence_guard" }))
  )

/** SemanticGuard as a `guard semantic_guard` span (passed, weakest verdict); its judge call is a child `chat` span. */
export const traceSemanticGuard = <E, R>(guard: Effect.Effect<SemanticGuardResult, E, R>) =>
  guard.pipe(
    Effect.tap((g) =>
      Effect.annotateCurrentSpan({
        "aiops.guard.passed": g.passed,
        "aiops.guard.verdict": g.verdict,
        ...(g.errorTag ? { [GenAiAttributes.errorType]: g.errorTag } : {})
      })
    ),
    Effect.withSpan("guard semantic_guard", spanOptions({ "aiops.guard.name": "semantic_guard" }))
  )

/** The ReleaseDecision as a `release_decision` span, with one `gen_ai.guardrail.result`-style event per guard. */
export const traceRelease = (input: {
  readonly release: ReleaseDecisionResult
  readonly releaseResult: string
  readonly evidence: EvidenceGuardResult | null
  readonly semantic: SemanticGuardResult | null
}): Effect.Effect<void> =>
  Effect.gen(function* () {
    const span = yield* Effect.currentSpan.pipe(Effect.orElseSucceed(() => null))
    if (span !== null) {
      const now = yield* Clock.currentTimeNanos
      if (input.evidence) {
        span.event("gen_ai.guardrail.result", now, {
          "aiops.guard.name": "evidence_guard",
          "aiops.guard.passed": input.evidence.passed
        })
      }
      if (input.semantic) {
        span.event("gen_ai.guardrail.result", now, {
          "aiops.guard.name": "semantic_guard",
          "aiops.guard.passed": input.semantic.passed,
          "aiops.guard.verdict": input.semantic.verdict
        })
      }
    }
  }).pipe(
    Effect.withSpan(
      "release_decision",
      spanOptions({
        "aiops.release.decision": input.release.decision,
        "aiops.release_result": input.releaseResult,
        "aiops.release.missing": input.release.missing.length
      })
    )
  )
