import {
  type CanonicalInvocationStore,
  makeToolBoundary,
  newStepId,
  stopRequiredEvent
} from "@aiops-harness/core"
import { type DraftReport, InformationGainTracker, parseDraftReport } from "@aiops-harness/guards"
import { Effect } from "effect"
import { type ChatMessage, type ChatModel, type ModelError, toolSpecsFor } from "../model.js"
import { AGENT_SYSTEM_PROMPT, INVALID_REPORT_MESSAGE, stopRequiredMessage } from "../prompts.js"
import type { RoutingResult } from "../router.js"
import { timeWindowMessage } from "../time-window.js"
import { traceStopRequired } from "../tracing.js"
import { type DiagnosisContext, scopeLine } from "./context.js"
import { answerToolCalls, modelTurn } from "./turn.js"

/**
 * The ReAct loop over the ToolBoundary, bounded by `maxSteps`, the run budget and the
 * information-gain stop. The last turn, an exhausted tool budget or a stop reason inject
 * STOP_REQUIRED (once); one malformed draft gets one format retry. Returns the final draft.
 */
export const agentLoop = (options: {
  readonly ctx: DiagnosisContext
  readonly routing: RoutingResult
}): Effect.Effect<DraftReport | null, ModelError, ChatModel | CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const { ctx, routing } = options
    const { run, state, maxSteps } = ctx
    const boundary = yield* makeToolBoundary({
      run,
      tools: ctx.options.tools,
      ...(ctx.options.boundary ? { config: ctx.options.boundary } : {})
    })
    const toolSpecs = toolSpecsFor(boundary.tools)
    const tracker = new InformationGainTracker({
      ...(ctx.options.noGainLimit !== undefined ? { noGainLimit: ctx.options.noGainLimit } : {}),
      ...(ctx.options.duplicateLimit !== undefined ? { duplicateLimit: ctx.options.duplicateLimit } : {})
    })
    const messages: ChatMessage[] = [
      { role: "system", content: AGENT_SYSTEM_PROMPT },
      { role: "user", content: ctx.question },
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
        yield* ctx.notify({ type: "stop_required", reason })
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
      yield* ctx.notify({ type: "agent_step", step_index: stepIndex })
      const response = yield* modelTurn({
        ctx,
        stepId,
        stepIndex,
        messages,
        tools: offerTools ? toolSpecs : null
      })
      const calls = response.message.toolCalls
      if (calls.length > 0) {
        messages.push({ role: "assistant", content: response.message.content, toolCalls: calls })
        const answered = yield* answerToolCalls({
          ctx,
          boundary,
          stepId,
          calls,
          executed: offerTools,
          messages,
          tracker
        })
        toolBudgetLeft &&= answered.toolBudgetLeft
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
    return draft
  })
