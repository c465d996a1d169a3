import { releaseDecisionEvent } from "@aiops-harness/core"
import { type DraftReport, type ReleaseDecisionResult, releaseDecision } from "@aiops-harness/guards"
import { redactText } from "@aiops-harness/projectors"
import { Effect } from "effect"
import { frameReleasedContent } from "../answer.js"
import type { DiagnosisResult, ReleaseResult } from "../diagnosis.js"
import type { RoutingResult } from "../router.js"
import { traceRelease } from "../tracing.js"
import { type DiagnosisContext, resultOf } from "./context.js"

/** Lead sentence of the cannot-conclude answer when the canonical store is unavailable. */
export const STORE_UNAVAILABLE_NOTICE =
  "Cannot conclude: the evidence store is unavailable, so no evidence of this run could be recorded or checked. Try again when it is back."

/**
 * ReleaseDecision over the draft, the guards and the checked scopes; recorded, traced, framed
 * and redacted once more (defence in depth), then the run is finished FINISHED.
 */
export const release = (options: {
  readonly ctx: DiagnosisContext
  readonly draft: DraftReport | null
  readonly storeFailed: boolean
  readonly routing: RoutingResult
}): Effect.Effect<DiagnosisResult> =>
  Effect.gen(function* () {
    const { ctx, draft } = options
    const { state } = ctx
    const storeAvailable = !options.storeFailed && (state.evidence?.storeAvailable ?? true)
    const decided = releaseDecision({
      draft,
      evidence: state.evidence,
      semantic: state.semantic,
      checked: state.checked,
      // With the store down, the stop is a consequence: the user is told the cause instead.
      stopReason: storeAvailable ? state.stopReason : null,
      observed: state.observed
    })
    const decision = storeAvailable ? decided : withStoreUnavailableNotice(decided)
    const releaseResult: ReleaseResult =
      decision.decision === "PUBLISH_REPORT" ? "DIAGNOSIS_REPORT" : "CANNOT_CONCLUDE"
    yield* ctx.run.recorder.event(
      releaseDecisionEvent({
        decision: decision.decision,
        release_result: releaseResult,
        missing: decision.missing.length,
        stop_reason: state.stopReason,
        store_available: storeAvailable
      })
    )
    yield* traceRelease({
      release: decision,
      releaseResult,
      evidence: state.evidence,
      semantic: state.semantic
    })
    yield* ctx.notify({ type: "release", decision: decision.decision })
    // Defence in depth: the released text is redacted once more before it leaves the run.
    const content = redactText(
      frameReleasedContent({
        content: decision.content,
        released: releaseResult === "DIAGNOSIS_REPORT",
        checked: state.checked,
        window: options.routing.window
      })
    )
    const summary = yield* ctx.finishOnce("FINISHED", releaseResult, content)
    const report =
      releaseResult === "DIAGNOSIS_REPORT" && decision.report ? redactDraftProse(decision.report) : null
    return resultOf(ctx, { releaseResult, content, report, summary })
  })

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
