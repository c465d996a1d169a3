import {
  type CanonicalInvocationStore,
  evidenceGuardEvent,
  isValidId,
  semanticGuardAttemptEvent,
  semanticGuardDecisionEvent
} from "@aiops-harness/core"
import {
  type DraftReport,
  type EvidenceGuardResult,
  evidenceGuard,
  JudgeAnswerSchema,
  type SemanticJudge,
  semanticGuard,
  withScopedNegatives
} from "@aiops-harness/guards"
import { Data, Effect } from "effect"
import { ChatModel, type ModelError } from "../model.js"
import { SEMANTIC_GUARD_SYSTEM_PROMPT } from "../prompts.js"
import { UNKNOWN_MODEL } from "../router.js"
import { traceEvidenceGuard, traceSemanticGuard } from "../tracing.js"
import type { DiagnosisContext } from "./context.js"

/** The semantic judge answered, but not with the expected verdict JSON. */
export class JudgeAnswerInvalid extends Data.TaggedError("JudgeAnswerInvalid")<{}> {}

/** The guard's result when the store failed during the run: nothing of it can be proven. */
const storeUnavailable = (result: EvidenceGuardResult): EvidenceGuardResult => ({
  ...result,
  passed: false,
  storeAvailable: false,
  evidence: []
})

/**
 * EvidenceGuard on the draft, then (when it passed) the SemanticGuard's model judge; both
 * recorded on the Timeline and in the state. `storeFailed`: a tool call could not write its
 * canonical record, so no evidence of this run can be proven.
 */
export const judgeDraft = (options: {
  readonly ctx: DiagnosisContext
  readonly draft: DraftReport
  readonly storeFailed: boolean
}): Effect.Effect<void, never, ChatModel | CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const { ctx, draft } = options
    const { run, state } = ctx
    const checked = yield* evidenceGuard({ runId: run.runId, draft }).pipe(traceEvidenceGuard)
    const evidence = options.storeFailed ? storeUnavailable(checked) : checked
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
    yield* ctx.notify({ type: "evidence_guard", passed: evidence.passed, failures: evidence.failures.length })
    if (!evidence.passed) return
    const judgeFailure: { reason: string | null } = { reason: null }
    // The judge sees what could be released: negative claims in the harness's wording.
    const semantic = yield* semanticGuard({
      judge: modelJudge(ctx, judgeFailure),
      question: ctx.question,
      draft: withScopedNegatives(draft, evidence),
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
    yield* ctx.notify({ type: "semantic_guard", verdict: semantic.verdict })
  })

/** The SemanticGuard's judge: one model call, on the Token ledger (unknown usage when it failed). */
const modelJudge =
  (
    ctx: DiagnosisContext,
    failure: { reason: string | null }
  ): SemanticJudge<ModelError | JudgeAnswerInvalid, ChatModel> =>
  (input) =>
    Effect.gen(function* () {
      const model = yield* ChatModel
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
              failure.reason = error.reason
              // Attempted, usage unknown: recorded as such, never as 0.
              yield* ctx.run.recorder.tokenUsage({
                component: "semantic_guard",
                componentIndex: 1,
                model: UNKNOWN_MODEL,
                usage: null
              })
            })
          )
        )
      yield* ctx.run.recorder.tokenUsage({
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
