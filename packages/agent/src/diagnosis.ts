import {
  agentModelStepEvent,
  type AuditSink,
  type CanonicalInvocationStore,
  evidenceGuardEvent,
  type InvalidId,
  isValidId,
  type JsonObject,
  makeRun,
  makeToolBoundary,
  newStepId,
  parseRunId,
  parseSessionId,
  type RecorderSummary,
  releaseDecisionEvent,
  type RunBudgetLimits,
  type RunContext,
  type RunFinalStatus,
  semanticGuardAttemptEvent,
  semanticGuardDecisionEvent,
  stopRequiredEvent,
  type ToolBoundaryConfig,
  type ToolDefinition
} from "@aiops-harness/core"
import {
  type CheckedScope,
  checkedScopeOf,
  type DraftReport,
  type EvidenceGuardResult,
  evidenceGuard,
  InformationGainTracker,
  JudgeAnswerSchema,
  parseDraftReport,
  type ReleaseDecisionResult,
  releaseDecision,
  type SemanticGuardResult,
  type SemanticJudge,
  semanticGuard,
  withScopedNegatives
} from "@aiops-harness/guards"
import { redactText } from "@aiops-harness/projectors"
import { Cause, Clock, Data, Effect, Exit } from "effect"
import { type ChatMessage, ChatModel, type ChatToolCall, type ModelError, toolSpecsFor } from "./model.js"
import {
  AGENT_SYSTEM_PROMPT,
  INVALID_REPORT_MESSAGE,
  SEMANTIC_GUARD_SYSTEM_PROMPT,
  stopRequiredMessage
} from "./prompts.js"
import { frameReleasedContent } from "./answer.js"
import { type Intent, routeQuestion, UNKNOWN_MODEL } from "./router.js"
import {
  traceEvidenceGuard,
  traceInvokeAgent,
  traceRelease,
  traceRouting,
  traceSemanticGuard,
  traceStopRequired
} from "./tracing.js"
import { type TimeWindowOptions, timeWindowMessage } from "./time-window.js"

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

const scopeLine = (c: CheckedScope): string => {
  const scope = c.scope ? JSON.stringify(c.scope) : "(refused)"
  return `${c.tool} ${scope.length > 200 ? `${scope.slice(0, 199)}…` : scope} -> ${c.errorCode ?? c.evidenceStatus}`
}

const safeNotify = (onProgress: DiagnosisOptions["onProgress"], event: ProgressEvent) =>
  Effect.sync(() => {
    try {
      onProgress?.(event)
    } catch {
      // a progress listener never changes a run
    }
  })

interface LoopState {
  checked: CheckedScope[]
  /** Observations of the READY calls (what the model saw): released copies of them are quoted. */
  observed: JsonObject[]
  stopReason: string | null
  evidence: EvidenceGuardResult | null
  semantic: SemanticGuardResult | null
  intent: Intent | null
}

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
    const maxSteps = Math.max(1, Math.floor(options.maxSteps ?? 6))
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
    const state: LoopState = {
      checked: [],
      observed: [],
      stopReason: null,
      evidence: null,
      semantic: null,
      intent: null
    }

    const finishOnce = (status: RunFinalStatus, release: ReleaseResult, content: string) =>
      Effect.gen(function* () {
        if ((yield* run.state) !== "ACTIVE") return yield* run.recorder.summary
        const summary = yield* run
          .finish({
            status,
            intent: state.intent,
            releaseResult: release,
            finalContent: content,
            toolCalls: state.checked.length
          })
          .pipe(Effect.catch(() => run.recorder.summary))
        yield* notify({ type: "run_finished", status })
        return summary
      })

    const failed = (status: RunFinalStatus) =>
      Effect.gen(function* () {
        const summary = yield* finishOnce(status, "RUN_FAILED", RUN_FAILED_CONTENT)
        return {
          sessionId: run.sessionId,
          runId: run.runId,
          intent: state.intent,
          releaseResult: "RUN_FAILED" as const,
          content: RUN_FAILED_CONTENT,
          report: null,
          summary,
          checked: state.checked,
          evidenceGuard: state.evidence,
          semanticGuard: state.semantic,
          stopReason: state.stopReason
        } satisfies DiagnosisResult
      })

    return yield* diagnose(run, question, options, maxSteps, state, notify, finishOnce).pipe(
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

const diagnose = (
  run: RunContext,
  question: string,
  options: DiagnosisOptions,
  maxSteps: number,
  state: LoopState,
  notify: (event: ProgressEvent) => Effect.Effect<void>,
  finishOnce: (
    status: RunFinalStatus,
    release: ReleaseResult,
    content: string
  ) => Effect.Effect<RecorderSummary>
): Effect.Effect<DiagnosisResult, ModelError, ChatModel | CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const model = yield* ChatModel
    const result = (
      releaseResult: ReleaseResult,
      content: string,
      report: DraftReport | null,
      summary: RecorderSummary
    ): DiagnosisResult => ({
      sessionId: run.sessionId,
      runId: run.runId,
      intent: state.intent,
      releaseResult,
      content,
      report,
      summary,
      checked: state.checked,
      evidenceGuard: state.evidence,
      semanticGuard: state.semantic,
      stopReason: state.stopReason
    })

    const routing = yield* routeQuestion(run, question, {
      ...(options.timeWindow ? { timeWindow: options.timeWindow } : {})
    }).pipe(traceRouting)
    state.intent = routing.intent
    yield* notify({ type: "routing", intent: routing.intent, source: routing.source })
    if (routing.intent !== "diagnosis") {
      yield* run.recorder.event(
        releaseDecisionEvent({ decision: "NOT_A_DIAGNOSIS", release_result: "NOT_A_DIAGNOSIS" })
      )
      yield* notify({ type: "release", decision: "NOT_A_DIAGNOSIS" })
      const summary = yield* finishOnce("FINISHED", "NOT_A_DIAGNOSIS", NOT_A_DIAGNOSIS_CONTENT)
      return result("NOT_A_DIAGNOSIS", NOT_A_DIAGNOSIS_CONTENT, null, summary)
    }

    const boundary = yield* makeToolBoundary({
      run,
      tools: options.tools,
      ...(options.boundary ? { config: options.boundary } : {})
    })
    const toolSpecs = toolSpecsFor(boundary.tools)
    const tracker = new InformationGainTracker({
      ...(options.noGainLimit !== undefined ? { noGainLimit: options.noGainLimit } : {}),
      ...(options.duplicateLimit !== undefined ? { duplicateLimit: options.duplicateLimit } : {})
    })
    const messages: ChatMessage[] = [
      { role: "system", content: AGENT_SYSTEM_PROMPT },
      { role: "user", content: question },
      // The question's time window, resolved by the harness before the model plans.
      ...(routing.window ? [{ role: "user" as const, content: timeWindowMessage(routing.window) }] : [])
    ]
    let stopInjected = false
    const requireStop = (reason: string, stepId: string) =>
      Effect.gen(function* () {
        if (stopInjected) return
        stopInjected = true
        state.stopReason ??= reason
        yield* run.recorder.event(
          stopRequiredEvent({ reason, step_id: stepId, checked_scopes: state.checked.length })
        )
        yield* notify({ type: "stop_required", reason })
        yield* traceStopRequired(reason, stepId)
        messages.push({ role: "user", content: stopRequiredMessage(reason, state.checked.map(scopeLine)) })
      })

    let draft: DraftReport | null = null
    let toolBudgetLeft = true
    let formatRetried = false
    for (let stepIndex = 1; stepIndex <= maxSteps; stepIndex++) {
      const stepId = newStepId(stepIndex)
      if (!stopInjected && (stepIndex === maxSteps || !toolBudgetLeft)) {
        yield* requireStop(toolBudgetLeft ? "STEP_BUDGET" : "TOOL_BUDGET", stepId)
      }
      const offerTools = !stopInjected && toolSpecs.length > 0
      yield* notify({ type: "agent_step", step_index: stepIndex })
      const startedAt = yield* Clock.currentTimeMillis
      const response = yield* model
        .chat({
          purpose: "agent",
          messages,
          ...(offerTools ? { tools: toolSpecs } : {})
        })
        .pipe(
          // A failed turn is audited like any other: a ledger entry with unknown usage, the
          // step with outcome `error` and its stable reason; then the run fails (FAILED).
          Effect.tapError((error) =>
            Effect.gen(function* () {
              const latencyMs = (yield* Clock.currentTimeMillis) - startedAt
              yield* run.recorder.tokenUsage({
                component: "agent_turn",
                componentIndex: stepIndex,
                model: UNKNOWN_MODEL,
                usage: null
              })
              yield* run.recorder.event(
                agentModelStepEvent({
                  step_id: stepId,
                  step_index: stepIndex,
                  outcome: "error",
                  error_reason: error.reason,
                  tool_call_count: 0,
                  usage_available: false
                })
              )
              yield* run.recorder.agentStep({
                stepId,
                stepIndex,
                startedAt,
                latencyMs,
                outcome: "error",
                toolCallIds: [],
                usageAvailable: false,
                totalTokens: null
              })
            })
          )
        )
      const latencyMs = (yield* Clock.currentTimeMillis) - startedAt
      yield* run.recorder.tokenUsage({
        component: "agent_turn",
        componentIndex: stepIndex,
        model: response.model,
        usage: response.usage
      })
      const toolCalls: ReadonlyArray<ChatToolCall> = response.message.toolCalls
      const outcome = toolCalls.length > 0 ? (offerTools ? "tool_calls" : "tool_calls_refused") : "final"
      yield* run.recorder.event(
        agentModelStepEvent({
          step_id: stepId,
          step_index: stepIndex,
          outcome,
          tool_call_count: toolCalls.length,
          usage_available: response.usage !== null,
          // `length`: the provider cut the answer (a truncated report or tool arguments follow)
          ...(response.finishReason ? { finish_reason: response.finishReason.slice(0, 32) } : {})
        })
      )
      yield* run.recorder.agentStep({
        stepId,
        stepIndex,
        startedAt,
        latencyMs,
        outcome,
        toolCallIds: toolCalls.map((c) => String(c.id).slice(0, 128)),
        usageAvailable: response.usage !== null,
        totalTokens: response.usage?.totalTokens ?? null
      })

      if (toolCalls.length > 0) {
        messages.push({ role: "assistant", content: response.message.content, toolCalls })
        for (const call of toolCalls) {
          if (!offerTools) {
            // Not executed: the protocol still needs an answer per call, with a stable code only.
            messages.push({
              role: "tool",
              toolCallId: call.id,
              content: JSON.stringify({ tool_call_id: call.id, status: "ERROR", error_code: "STOP_REQUIRED" })
            })
            continue
          }
          const out = yield* boundary.call({
            runId: run.runId,
            toolCallId: call.id,
            toolName: call.name,
            arguments: call.arguments,
            stepId
          })
          messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify(out.observation) })
          const checked = checkedScopeOf(out.control)
          state.checked.push(checked)
          if (checked.status === "READY") state.observed.push(out.observation)
          yield* notify({
            type: "tool_call",
            tool_call_id: checked.toolCallId,
            tool: checked.tool,
            status: checked.status,
            evidence_status: checked.evidenceStatus,
            error_code: checked.errorCode,
            arguments: redactText(call.arguments),
            observation: out.observation
          })
          if (out.control.errorCode === "BUDGET_EXHAUSTED" || out.control.budgetRemaining.toolCalls <= 0) {
            toolBudgetLeft = false
          }
          const gain = tracker.observe(out.control)
          if (gain.stopRequired && gain.reason) state.stopReason ??= gain.reason
        }
        if (state.stopReason && !stopInjected) yield* requireStop(state.stopReason, stepId)
        continue
      }

      messages.push({ role: "assistant", content: response.message.content ?? "" })
      draft = parseDraftReport(response.message.content)
      if (draft === null && !formatRetried && stepIndex < maxSteps) {
        formatRetried = true
        messages.push({ role: "user", content: INVALID_REPORT_MESSAGE })
        continue
      }
      break
    }

    // ---- guards and release ----------------------------------------------------------------
    // A tool call that could not write its canonical record proves the store was down: no
    // evidence of this run can be proven, whatever the guard itself managed to read.
    const storeFailed = state.checked.some((c) => c.errorCode === "STORE_ERROR")
    if (draft) {
      const checkedEvidence = yield* evidenceGuard({ runId: run.runId, draft }).pipe(traceEvidenceGuard)
      const evidence = storeFailed ? storeUnavailable(checkedEvidence) : checkedEvidence
      state.evidence = evidence
      yield* run.recorder.event(
        evidenceGuardEvent({
          passed: evidence.passed,
          store_available: evidence.storeAvailable,
          claims: draft.claims.length,
          failures: evidence.failures.slice(0, 20).map((f) => ({
            claim_index: f.claimIndex,
            tool_call_id: f.toolCallId && isValidId(f.toolCallId) ? f.toolCallId : null,
            reason: f.reason
          }))
        })
      )
      yield* notify({ type: "evidence_guard", passed: evidence.passed, failures: evidence.failures.length })
      if (evidence.passed) {
        const judgeFailure: { reason: string | null } = { reason: null }
        const judge: SemanticJudge<ModelError | JudgeAnswerInvalid> = (input) =>
          Effect.gen(function* () {
            const answer = yield* model
              .chat({
                purpose: "semantic_guard",
                responseFormat: "json",
                messages: [
                  { role: "system", content: SEMANTIC_GUARD_SYSTEM_PROMPT },
                  {
                    role: "user",
                    content: JSON.stringify({
                      question: input.question,
                      summary: input.draft.summary,
                      claims: input.draft.claims,
                      evidence: input.evidence
                    })
                  }
                ]
              })
              .pipe(
                Effect.tapError((error) =>
                  Effect.gen(function* () {
                    judgeFailure.reason = error.reason
                    // Attempted, usage unknown: recorded as such, never as 0.
                    yield* run.recorder.tokenUsage({
                      component: "semantic_guard",
                      componentIndex: 1,
                      model: UNKNOWN_MODEL,
                      usage: null
                    })
                  })
                )
              )
            yield* run.recorder.tokenUsage({
              component: "semantic_guard",
              componentIndex: 1,
              model: answer.model,
              usage: answer.usage
            })
            const parsed = parseJudgeAnswer(answer.message.content)
            if (!parsed) return yield* Effect.fail(new JudgeAnswerInvalid())
            return {
              verdicts: parsed.verdicts,
              summaryVerdict: parsed.summary_verdict ?? null,
              usage: answer.usage,
              model: answer.model
            }
          })
        // The judge sees what could be released: negative claims in the harness's wording.
        const judged = withScopedNegatives(draft, evidence)
        const semantic = yield* semanticGuard({
          judge,
          question,
          draft: judged,
          evidence: evidence.evidence
        }).pipe(traceSemanticGuard)
        state.semantic = semantic
        yield* run.recorder.event(
          semanticGuardAttemptEvent({
            attempt: 1,
            outcome: semantic.verdict === "JUDGE_FAILED" ? (semantic.errorTag ?? "JUDGE_FAILED") : "JUDGED",
            model: semantic.model,
            ...(judgeFailure.reason !== null ? { error_reason: judgeFailure.reason } : {})
          })
        )
        yield* run.recorder.event(
          semanticGuardDecisionEvent({
            passed: semantic.passed,
            verdict: semantic.verdict,
            verdicts: semantic.verdicts
              .slice(0, 20)
              .map((v) => ({ claim_index: v.claim_index, verdict: v.verdict })),
            summary_verdict: semantic.summaryVerdict ?? null
          })
        )
        yield* notify({ type: "semantic_guard", verdict: semantic.verdict })
      }
    }

    const storeAvailable = !storeFailed && (state.evidence?.storeAvailable ?? true)
    const decided: ReleaseDecisionResult = releaseDecision({
      draft,
      evidence: state.evidence,
      semantic: state.semantic,
      checked: state.checked,
      // With the store down, the stop is a consequence: the user is told the cause instead.
      stopReason: storeAvailable ? state.stopReason : null,
      observed: state.observed
    })
    const release = storeAvailable ? decided : withStoreUnavailableNotice(decided)
    const releaseResult: ReleaseResult =
      release.decision === "PUBLISH_REPORT" ? "DIAGNOSIS_REPORT" : "CANNOT_CONCLUDE"
    yield* run.recorder.event(
      releaseDecisionEvent({
        decision: release.decision,
        release_result: releaseResult,
        missing: release.missing.length,
        stop_reason: state.stopReason,
        store_available: storeAvailable
      })
    )
    yield* traceRelease({ release, releaseResult, evidence: state.evidence, semantic: state.semantic })
    yield* notify({ type: "release", decision: release.decision })
    // Defence in depth: the released text is redacted once more before it leaves the run.
    const content = redactText(
      frameReleasedContent({
        content: release.content,
        released: releaseResult === "DIAGNOSIS_REPORT",
        checked: state.checked,
        window: routing.window
      })
    )
    const summary = yield* finishOnce("FINISHED", releaseResult, content)
    const released =
      releaseResult === "DIAGNOSIS_REPORT" && release.report ? redactDraftProse(release.report) : null
    return result(releaseResult, content, released, summary)
  })

/** The guard's result when the store failed during the run: nothing of it can be proven. */
const storeUnavailable = (result: EvidenceGuardResult): EvidenceGuardResult => ({
  ...result,
  passed: false,
  storeAvailable: false,
  evidence: []
})

/** Lead sentence of the cannot-conclude answer when the canonical store is unavailable. */
export const STORE_UNAVAILABLE_NOTICE =
  "Cannot conclude: the evidence store is unavailable, so no evidence of this run could be recorded or checked. Try again when it is back."

/** A cannot-conclude answer that leads with the real reason (the store), not its consequences. */
const withStoreUnavailableNotice = (release: ReleaseDecisionResult): ReleaseDecisionResult => {
  if (release.decision !== "CANNOT_CONCLUDE") return release
  const [, ...rest] = release.content.split("\n")
  const missing = release.missing.some((m) => m.includes("evidence store is unavailable"))
    ? release.missing
    : ["proof of the evidence: the evidence store is unavailable", ...release.missing]
  return { ...release, content: [STORE_UNAVAILABLE_NOTICE, ...rest].join("\n"), missing }
}

/** The released draft's prose (summary, claim texts, next steps) and refs redacted. */
const redactDraftProse = (draft: DraftReport): DraftReport => ({
  ...draft,
  summary: redactText(draft.summary),
  claims: draft.claims.map((claim) => ({
    ...claim,
    text: redactText(claim.text),
    citations: claim.citations.map((c) => ({ ...c, ref: redactText(c.ref) }))
  })),
  ...(draft.next_steps ? { next_steps: draft.next_steps.map(redactText) } : {})
})

/** The semantic judge answered, but not with the expected verdict JSON. */
export class JudgeAnswerInvalid extends Data.TaggedError("JudgeAnswerInvalid")<{}> {}

const parseJudgeAnswer = (text: string | null) => {
  if (!text) return null
  const first = text.indexOf("{")
  const last = text.lastIndexOf("}")
  if (first < 0 || last <= first) return null
  try {
    const parsed = JudgeAnswerSchema.safeParse(JSON.parse(text.slice(first, last + 1)))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}
