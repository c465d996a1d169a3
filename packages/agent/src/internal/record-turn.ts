import {
  agentModelStepEvent,
  type RunContext,
  type TimelinePayload,
  type TokenUsage
} from "@aiops-harness/core"
import { Effect } from "effect"

/** What one agent turn came to: the model call's result or its failure. */
export interface TurnRecord {
  readonly run: RunContext
  readonly stepId: string
  readonly stepIndex: number
  readonly startedAt: number
  readonly latencyMs: number
  /** The answering model (`UNKNOWN_MODEL` when the call failed). */
  readonly model: string
  /** `null`: the provider reported none, or the call failed (unknown, never 0). */
  readonly usage: TokenUsage | null
  readonly outcome: TimelinePayload<"AGENT_MODEL_STEP">["outcome"]
  readonly toolCallIds: ReadonlyArray<string>
  /** The stable reason of a failed call. */
  readonly errorReason?: string
  /** `length`: the provider cut the answer (a truncated report or tool arguments follow). */
  readonly finishReason?: string | null
}

/**
 * The audit of one agent turn, the same for a failed and a successful call: its Token ledger
 * entry, its `AGENT_MODEL_STEP` event and its AgentStep record.
 */
export const recordTurn = (turn: TurnRecord): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { run, stepId, stepIndex, usage } = turn
    yield* run.recorder.tokenUsage({
      component: "agent_turn",
      componentIndex: stepIndex,
      model: turn.model,
      usage
    })
    yield* run.recorder.event(
      agentModelStepEvent({
        step_id: stepId,
        step_index: stepIndex,
        outcome: turn.outcome,
        ...(turn.errorReason !== undefined ? { error_reason: turn.errorReason } : {}),
        tool_call_count: turn.toolCallIds.length,
        usage_available: usage !== null,
        ...(turn.finishReason ? { finish_reason: turn.finishReason.slice(0, 32) } : {})
      })
    )
    yield* run.recorder.agentStep({
      stepId,
      stepIndex,
      startedAt: turn.startedAt,
      latencyMs: turn.latencyMs,
      outcome: turn.outcome,
      toolCallIds: turn.toolCallIds.map((id) => String(id).slice(0, 128)),
      usageAvailable: usage !== null,
      totalTokens: usage?.totalTokens ?? null
    })
  })
