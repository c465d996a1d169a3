import type { ToolBoundaryShape } from "@aiops-harness/core"
import { checkedScopeOf, type InformationGainTracker } from "@aiops-harness/guards"
import { redactText } from "@aiops-harness/projectors"
import { Clock, Effect } from "effect"
import {
  type ChatMessage,
  ChatModel,
  type ChatResponse,
  type ChatToolCall,
  type ChatToolSpec,
  type ModelError
} from "../model.js"
import { UNKNOWN_MODEL } from "../router.js"
import type { DiagnosisContext } from "./context.js"
import { recordTurn } from "./record-turn.js"

/** One model turn of the agent loop. */
export interface TurnOptions {
  readonly ctx: DiagnosisContext
  readonly stepId: string
  readonly stepIndex: number
  readonly messages: ReadonlyArray<ChatMessage>
  /** Offered only while tools may still be called. */
  readonly tools: ReadonlyArray<ChatToolSpec> | null
}

/**
 * Asks the model for the next turn and audits it (`recordTurn`), a failed call too: a ledger
 * entry with unknown usage and the step with outcome `error` and its stable reason; then the
 * error goes on (the run fails).
 */
export const modelTurn = (options: TurnOptions): Effect.Effect<ChatResponse, ModelError, ChatModel> =>
  Effect.gen(function* () {
    const { ctx, stepId, stepIndex } = options
    const model = yield* ChatModel
    const startedAt = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - startedAt)
    const turn = { run: ctx.run, stepId, stepIndex, startedAt }
    const response = yield* model
      .chat({
        purpose: "agent",
        messages: options.messages,
        ...(options.tools ? { tools: options.tools } : {})
      })
      .pipe(
        Effect.tapError((error) =>
          Effect.flatMap(elapsed, (latencyMs) =>
            recordTurn({
              ...turn,
              latencyMs,
              model: UNKNOWN_MODEL,
              usage: null,
              outcome: "error",
              toolCallIds: [],
              errorReason: error.reason
            })
          )
        )
      )
    const calls = response.message.toolCalls
    yield* recordTurn({
      ...turn,
      latencyMs: yield* elapsed,
      model: response.model,
      usage: response.usage,
      outcome: calls.length > 0 ? (options.tools ? "tool_calls" : "tool_calls_refused") : "final",
      toolCallIds: calls.map((c) => c.id),
      finishReason: response.finishReason
    })
    return response
  })

/** What the tool calls of one turn left for the loop. */
export interface ToolCallsOutcome {
  /** False once a call hit the run's tool budget. */
  readonly toolBudgetLeft: boolean
}

/**
 * Answers every tool call of a turn: through the ToolBoundary when tools were offered, with a
 * `STOP_REQUIRED` error otherwise (the protocol needs an answer per call). Updates the state
 * (checked scopes, observations, stop reason) and the information-gain tracker.
 */
export const answerToolCalls = (options: {
  readonly ctx: DiagnosisContext
  readonly boundary: ToolBoundaryShape
  readonly stepId: string
  readonly calls: ReadonlyArray<ChatToolCall>
  readonly executed: boolean
  readonly messages: ChatMessage[]
  readonly tracker: InformationGainTracker
}): Effect.Effect<ToolCallsOutcome> =>
  Effect.gen(function* () {
    const { ctx, messages } = options
    let toolBudgetLeft = true
    for (const call of options.calls) {
      if (!options.executed) {
        // Not executed: the protocol still needs an answer per call, with a stable code only.
        messages.push({
          role: "tool",
          toolCallId: call.id,
          content: JSON.stringify({ tool_call_id: call.id, status: "ERROR", error_code: "STOP_REQUIRED" })
        })
        continue
      }
      const out = yield* options.boundary.call({
        runId: ctx.run.runId,
        toolCallId: call.id,
        toolName: call.name,
        arguments: call.arguments,
        stepId: options.stepId
      })
      messages.push({ role: "tool", toolCallId: call.id, content: JSON.stringify(out.observation) })
      const checked = checkedScopeOf(out.control)
      ctx.state.checked.push(checked)
      if (checked.status === "READY") ctx.state.observed.push(out.observation)
      yield* ctx.notify({
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
      const gain = options.tracker.observe(out.control)
      if (gain.stopRequired && gain.reason) ctx.state.stopReason ??= gain.reason
    }
    return { toolBudgetLeft }
  })
