import {
  type AuditSink,
  type CanonicalInvocationStore,
  type InvalidId,
  type JsonObject,
  makeRun,
  parseRunId,
  parseSessionId,
  type RecorderSummary,
  releaseDecisionEvent,
  type RunBudgetLimits,
  type RunFinalStatus,
  type ToolBoundaryConfig,
  type ToolDefinition
} from "@aiops-harness/core"
import type {
  CheckedScope,
  DraftReport,
  EvidenceGuardResult,
  SemanticGuardResult
} from "@aiops-harness/guards"
import { redactText } from "@aiops-harness/projectors"
import { Cause, Effect, Exit } from "effect"
import {
  type DiagnosisContext,
  emptyLoopState,
  type FinishOnce,
  resultOf,
  safeNotify
} from "./internal/context.js"
import { judgeDraft } from "./internal/judge.js"
import { agentLoop } from "./internal/loop.js"
import { release } from "./internal/release.js"
import type { ChatModel, ModelError } from "./model.js"
import { type Intent, routeQuestion } from "./router.js"
import { traceInvokeAgent, traceRouting } from "./tracing.js"
import type { TimeWindowOptions } from "./time-window.js"

export { JudgeAnswerInvalid } from "./internal/judge.js"
export { STORE_UNAVAILABLE_NOTICE } from "./internal/release.js"

/** What a run released to the user: a report, a cannot-conclude answer, a not-a-diagnosis answer, or a failure. */
export type ReleaseResult = "DIAGNOSIS_REPORT" | "CANNOT_CONCLUDE" | "NOT_A_DIAGNOSIS" | "RUN_FAILED"

/** JSON, snake_case, safe to stream to a client (no raw data, no thresholds or budgets). */
export type ProgressEvent =
  | { readonly type: "run_started"; readonly session_id: string; readonly run_id: string }
  | { readonly type: "routing"; readonly intent: Intent; readonly source: "model" | "fallback" }
  | { readonly type: "agent_step"; readonly step_index: number }
  | {
      readonly type: "tool_call"
      readonly tool_call_id: string | null
      readonly tool: string
      readonly status: string
      readonly evidence_status: string
      readonly error_code: string | null
      /** The model's tool arguments (JSON text), redacted. */
      readonly arguments: string
      /** What the model received for this call: the bounded, redacted Agent Observation. */
      readonly observation: JsonObject
    }
  | { readonly type: "stop_required"; readonly reason: string }
  | { readonly type: "evidence_guard"; readonly passed: boolean; readonly failures: number }
  | { readonly type: "semantic_guard"; readonly verdict: string }
  | { readonly type: "release"; readonly decision: string }
  | { readonly type: "run_finished"; readonly status: RunFinalStatus }

/** One user question to diagnose, in a session. */
export interface DiagnosisRequest {
  readonly sessionId: string
  /** Optional caller-chosen run id (validated); a fresh UUID otherwise. */
  readonly runId?: string
  /**
   * The user's question. It is redacted (`redactText`: secrets, IPs, hosts, e-mails, ...) before
   * the audit, the router or the model see it.
   */
  readonly question: string
}

/** Options of a diagnosis run: tools, step and stop limits, budgets, time window and progress callback. */
export interface DiagnosisOptions {
  /** Tools the run may use (all authorized; only read-only ones are offered). */
  readonly tools: ReadonlyArray<ToolDefinition>
  /** Model turns of the ReAct loop, including the final answer turn. Default 6. */
  readonly maxSteps?: number
  /** Run budget (tool calls, bytes); see core `RunBudgetLimits`. */
  readonly budget?: Partial<RunBudgetLimits>
  /** Consecutive no-gain observations before STOP_REQUIRED. Default 3. */
  readonly noGainLimit?: number
  /** Repeated requests before STOP_REQUIRED. Default 1. */
  readonly duplicateLimit?: number
  readonly boundary?: Partial<ToolBoundaryConfig>
  /** Called synchronously for each progress event; exceptions are ignored. */
  readonly onProgress?: (event: ProgressEvent) => void
  /** How times in the question become the tools' window (zone default UTC). */
  readonly timeWindow?: TimeWindowOptions
}

/** Outcome of one run: the released content and result, the scopes checked, the guard results and the audit summary. */
export interface DiagnosisResult {
  readonly sessionId: string
  readonly runId: string
  readonly intent: Intent | null
  readonly releaseResult: ReleaseResult
  /**
   * The released, safe text: report, bounded cannot-conclude answer, or a failure notice
   * (redacted again before release: defence in depth).
   */
  readonly content: string
  /**
   * The released draft, only when published: negative claims in the harness's wording, copied
   * evidence as marked quotes, links reduced (guards `releasedDraft`), then redacted like `content`.
   */
  readonly report: DraftReport | null
  readonly summary: RecorderSummary
  /** The tool calls the run made (Control View facts). */
  readonly checked: ReadonlyArray<CheckedScope>
  readonly evidenceGuard: EvidenceGuardResult | null
  readonly semanticGuard: SemanticGuardResult | null
  /** Why the loop stopped early, if it did (`NO_GAIN`, `DUPLICATE_REQUEST`, `TOOL_BUDGET`, `STEP_BUDGET`). */
  readonly stopReason: string | null
}

/** Answer given when the router decides the question is not a diagnosis. */
export const NOT_A_DIAGNOSIS_CONTENT =
  "This assistant investigates production problems (errors, latency, failures, slow queries). " +
  "Please describe the symptom you want diagnosed."
/** Answer given when the run failed because the model was unavailable. */
export const RUN_FAILED_CONTENT =
  "The diagnosis could not be completed because the model was unavailable. Nothing was concluded."

/**
 * One diagnosis run: router, a single ReAct loop over the ToolBoundary (bounded by `maxSteps`,
 * the run budget and the information-gain stop), EvidenceGuard, SemanticGuard, ReleaseDecision.
 * The model sees only the boundary's observations. Every path ends the run with `RUN_FINISHED`
 * (FINISHED, FAILED on model errors and defects, CANCELLED on interruption).
 * The question is redacted before it reaches the audit (`query`), the router or the model; the
 * released content is redacted again before it is returned and stored as `finalContent`.
 */
export const runDiagnosis = (
  request: DiagnosisRequest,
  options: DiagnosisOptions
): Effect.Effect<DiagnosisResult, InvalidId, ChatModel | CanonicalInvocationStore | AuditSink> =>
  Effect.gen(function* () {
    const sessionId = yield* parseSessionId(request.sessionId)
    const requestedRunId = request.runId === undefined ? undefined : yield* parseRunId(request.runId)
    // The question is user input: it may carry credentials, IPs or host names.
    const question = redactText(request.question)
    const run = yield* makeRun({
      sessionId,
      ...(requestedRunId ? { runId: requestedRunId } : {}),
      query: question,
      authorizedTools: options.tools.map((t) => t.name),
      ...(options.budget ? { budget: options.budget } : {})
    })
    const notify = (event: ProgressEvent) => safeNotify(options.onProgress, event)
    yield* notify({ type: "run_started", session_id: run.sessionId, run_id: run.runId })
    const state = emptyLoopState()

    const finishOnce: FinishOnce = (status, releaseResult, content) =>
      Effect.gen(function* () {
        if ((yield* run.state) !== "ACTIVE") return yield* run.recorder.summary
        const summary = yield* run
          .finish({
            status,
            intent: state.intent,
            releaseResult,
            finalContent: content,
            toolCalls: state.checked.length
          })
          .pipe(Effect.catch(() => run.recorder.summary))
        yield* notify({ type: "run_finished", status })
        return summary
      })
    const ctx: DiagnosisContext = {
      run,
      question,
      options,
      maxSteps: Math.max(1, Math.floor(options.maxSteps ?? 6)),
      state,
      notify,
      finishOnce
    }
    const failed = (status: RunFinalStatus) =>
      Effect.map(finishOnce(status, "RUN_FAILED", RUN_FAILED_CONTENT), (summary) =>
        resultOf(ctx, { releaseResult: "RUN_FAILED", content: RUN_FAILED_CONTENT, report: null, summary })
      )

    return yield* diagnose(ctx).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Effect.asVoid(
              finishOnce(
                Cause.hasInterruptsOnly(exit.cause) ? "CANCELLED" : "FAILED",
                "RUN_FAILED",
                RUN_FAILED_CONTENT
              )
            )
      ),
      Effect.catchCause(() => failed("FAILED"))
    )
  }).pipe(traceInvokeAgent)

/** Routing, then (for a diagnosis) the loop, the guards and the release. */
const diagnose = (
  ctx: DiagnosisContext
): Effect.Effect<DiagnosisResult, ModelError, ChatModel | CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const { run, state } = ctx
    const routing = yield* routeQuestion(run, ctx.question, {
      ...(ctx.options.timeWindow ? { timeWindow: ctx.options.timeWindow } : {})
    }).pipe(traceRouting)
    state.intent = routing.intent
    yield* ctx.notify({ type: "routing", intent: routing.intent, source: routing.source })
    if (routing.intent !== "diagnosis") {
      yield* run.recorder.event(
        releaseDecisionEvent({ decision: "NOT_A_DIAGNOSIS", release_result: "NOT_A_DIAGNOSIS" })
      )
      yield* ctx.notify({ type: "release", decision: "NOT_A_DIAGNOSIS" })
      const summary = yield* ctx.finishOnce("FINISHED", "NOT_A_DIAGNOSIS", NOT_A_DIAGNOSIS_CONTENT)
      return resultOf(ctx, {
        releaseResult: "NOT_A_DIAGNOSIS",
        content: NOT_A_DIAGNOSIS_CONTENT,
        report: null,
        summary
      })
    }
    const draft = yield* agentLoop({ ctx, routing })
    // A tool call that could not write its canonical record proves the store was down: no
    // evidence of this run can be proven, whatever the guard itself managed to read.
    const storeFailed = state.checked.some((c) => c.errorCode === "STORE_ERROR")
    if (draft) yield* judgeDraft({ ctx, draft, storeFailed })
    return yield* release({ ctx, draft, storeFailed, routing })
  })
