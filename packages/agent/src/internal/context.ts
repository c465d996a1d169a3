import type { JsonObject, RecorderSummary, RunContext, RunFinalStatus } from "@aiops-harness/core"
import type {
  CheckedScope,
  DraftReport,
  EvidenceGuardResult,
  SemanticGuardResult
} from "@aiops-harness/guards"
import { Effect } from "effect"
import type { DiagnosisOptions, DiagnosisResult, ProgressEvent, ReleaseResult } from "../diagnosis.js"
import type { Intent } from "../router.js"

/** What a run has found so far: filled by the loop and the guards, read by the release. */
export interface LoopState {
  checked: CheckedScope[]
  /** Observations of the READY calls (what the model saw): released copies of them are quoted. */
  observed: JsonObject[]
  stopReason: string | null
  evidence: EvidenceGuardResult | null
  semantic: SemanticGuardResult | null
  intent: Intent | null
}

/** Ends the run once (later calls return the summary): status, release result and released content. */
export type FinishOnce = (
  status: RunFinalStatus,
  release: ReleaseResult,
  content: string
) => Effect.Effect<RecorderSummary>

/** One run's fixed inputs and its mutable state, shared by the loop, the guards and the release. */
export interface DiagnosisContext {
  readonly run: RunContext
  /** The redacted question. */
  readonly question: string
  readonly options: DiagnosisOptions
  readonly maxSteps: number
  readonly state: LoopState
  readonly notify: (event: ProgressEvent) => Effect.Effect<void>
  readonly finishOnce: FinishOnce
}

/** A fresh, empty state. */
export const emptyLoopState = (): LoopState => ({
  checked: [],
  observed: [],
  stopReason: null,
  evidence: null,
  semantic: null,
  intent: null
})

/** Calls the progress listener; its exceptions never change a run. */
export const safeNotify = (onProgress: DiagnosisOptions["onProgress"], event: ProgressEvent) =>
  Effect.sync(() => {
    try {
      onProgress?.(event)
    } catch {
      // a progress listener never changes a run
    }
  })

/** The run's result from its state and what was released. */
export const resultOf = (
  ctx: Pick<DiagnosisContext, "run" | "state">,
  released: {
    readonly releaseResult: ReleaseResult
    readonly content: string
    readonly report: DraftReport | null
    readonly summary: RecorderSummary
  }
): DiagnosisResult => ({
  sessionId: ctx.run.sessionId,
  runId: ctx.run.runId,
  intent: ctx.state.intent,
  ...released,
  checked: ctx.state.checked,
  evidenceGuard: ctx.state.evidence,
  semanticGuard: ctx.state.semantic,
  stopReason: ctx.state.stopReason
})

/** One line per checked scope, for the stop-required message. */
export const scopeLine = (c: CheckedScope): string => {
  const scope = c.scope ? JSON.stringify(c.scope) : "(refused)"
  return `${c.tool} ${scope.length > 200 ? `${scope.slice(0, 199)}…` : scope} -> ${c.errorCode ?? c.evidenceStatus}`
}
