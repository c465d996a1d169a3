import type { JsonObject, TokenUsage } from "@aiops-harness/core"
import { Cause, Effect } from "effect"
import { z } from "zod"
import type { DraftReport } from "./draft.js"
import type { CitedEvidence } from "./evidence-guard.js"

/** The SemanticGuard's verdicts on a claim, strongest first. */
export const SEMANTIC_VERDICTS = ["SUPPORTED", "PARTIALLY_SUPPORTED", "UNSUPPORTED"] as const
/** One SemanticGuard verdict (one of `SEMANTIC_VERDICTS`). */
export type SemanticVerdict = (typeof SEMANTIC_VERDICTS)[number]

/** The judge's verdict on one claim. */
export interface ClaimVerdict {
  readonly claim_index: number
  readonly verdict: SemanticVerdict
  readonly reason?: string
}

/** Wire shape of a judge's answer (model output). */
export const JudgeAnswerSchema = z.object({
  verdicts: z
    .array(
      z.object({
        claim_index: z.number().int().nonnegative(),
        verdict: z.enum(SEMANTIC_VERDICTS),
        reason: z.string().max(1000).optional()
      })
    )
    .max(50),
  /** The verdict on the summary (the stated cause), judged against the claims' evidence. */
  summary_verdict: z.enum(SEMANTIC_VERDICTS).optional()
})

/** What the judge sees: the question, the claims with citations, the cited stored projections. */
export interface SemanticJudgeInput {
  readonly question: string
  readonly draft: DraftReport
  readonly evidence: ReadonlyArray<{
    readonly tool_call_id: string
    readonly tool: string
    readonly evidence_status: "EVIDENCE_FOUND" | "NO_EVIDENCE"
    readonly observation: JsonObject
  }>
}

/** What the judge returns: per-claim and summary verdicts, plus usage and model. */
export interface SemanticJudgeOutput {
  readonly verdicts: ReadonlyArray<ClaimVerdict>
  /** The summary's verdict; absent for a non-blank summary counts as `UNSUPPORTED`. */
  readonly summaryVerdict?: SemanticVerdict | null
  readonly usage: TokenUsage | null
  readonly model: string
}

/** One model call that judges the claims (the agent wires its ChatModel in). */
export type SemanticJudge<E = unknown, R = never> = (
  input: SemanticJudgeInput
) => Effect.Effect<SemanticJudgeOutput, E, R>

/** The SemanticGuard's verdict on a draft. */
export interface SemanticGuardResult {
  readonly passed: boolean
  /** Weakest claim verdict, or `JUDGE_FAILED` when the judge call failed. */
  readonly verdict: SemanticVerdict | "JUDGE_FAILED"
  /** One verdict per claim; a claim the judge skipped is `UNSUPPORTED`. */
  readonly verdicts: ReadonlyArray<ClaimVerdict>
  /**
   * The summary's verdict (the summary states the cause: it is judged too, so a cause cannot
   * hide there); `null` for a blank summary; a summary the judge skipped is `UNSUPPORTED`.
   */
  readonly summaryVerdict?: SemanticVerdict | null
  readonly usage: TokenUsage | null
  readonly model: string | null
  /** The judge failure's tag (`ModelError`, ...), never its message. */
  readonly errorTag: string | null
}

const rank: Record<SemanticVerdict, number> = { SUPPORTED: 2, PARTIALLY_SUPPORTED: 1, UNSUPPORTED: 0 }

/** Builds the judge's evidence from the EvidenceGuard's store reads (never from model history). */
export const judgeEvidence = (evidence: ReadonlyArray<CitedEvidence>): SemanticJudgeInput["evidence"] =>
  evidence.map((e) => ({
    tool_call_id: e.toolCallId,
    tool: e.toolName,
    evidence_status: e.evidenceStatus,
    observation: e.agentResult
  }))

/**
 * SemanticGuard: one judge call, a verdict per claim and one on the summary. Passes only when
 * every claim and the (non-blank) summary are `SUPPORTED`. A failing judge (error or defect)
 * fails closed with `JUDGE_FAILED`.
 */
export const semanticGuard = <E, R>(input: {
  readonly judge: SemanticJudge<E, R>
  readonly question: string
  readonly draft: DraftReport
  readonly evidence: ReadonlyArray<CitedEvidence>
}): Effect.Effect<SemanticGuardResult, never, R> =>
  Effect.suspend(() =>
    input.judge({ question: input.question, draft: input.draft, evidence: judgeEvidence(input.evidence) })
  ).pipe(
    Effect.map((out): SemanticGuardResult => {
      const summaryVerdict: SemanticVerdict | null =
        input.draft.summary.trim() === "" ? null : (out.summaryVerdict ?? "UNSUPPORTED")
      const verdicts: ClaimVerdict[] = input.draft.claims.map((_, claim_index) => {
        const given = out.verdicts.find((v) => v.claim_index === claim_index)
        return given
          ? { ...given, claim_index }
          : { claim_index, verdict: "UNSUPPORTED", reason: "no verdict" }
      })
      const all =
        summaryVerdict === null
          ? verdicts.map((v) => v.verdict)
          : [...verdicts.map((v) => v.verdict), summaryVerdict]
      const verdict: SemanticVerdict =
        verdicts.length === 0
          ? "UNSUPPORTED"
          : all.reduce<SemanticVerdict>((worst, v) => (rank[v] < rank[worst] ? v : worst), "SUPPORTED")
      return {
        passed: verdicts.length > 0 && verdict === "SUPPORTED",
        verdict,
        verdicts,
        summaryVerdict,
        usage: out.usage,
        model: out.model,
        errorTag: null
      }
    }),
    Effect.catchCause((cause) => {
      const error = Cause.squash(cause)
      const errorTag =
        error !== null && typeof error === "object" && "_tag" in error ? String(error._tag) : "JudgeDefect"
      return Effect.succeed<SemanticGuardResult>({
        passed: false,
        verdict: "JUDGE_FAILED",
        verdicts: input.draft.claims.map((_, claim_index) => ({
          claim_index,
          verdict: "UNSUPPORTED",
          reason: "judge failed"
        })),
        summaryVerdict: input.draft.summary.trim() === "" ? null : "UNSUPPORTED",
        usage: null,
        model: null,
        errorTag
      })
    })
  )
