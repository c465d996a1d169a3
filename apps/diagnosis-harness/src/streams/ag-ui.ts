import { randomUUID } from "node:crypto"
import { type RunEncoder, type RunEvent, type SseFrame, toolCallIdOf } from "./run-events.js"

/** AG-UI event type names (protocol 1.0) the harness emits. */
type AgUiEventType =
  | "RUN_STARTED"
  | "RUN_FINISHED"
  | "RUN_ERROR"
  | "STEP_STARTED"
  | "STEP_FINISHED"
  | "TOOL_CALL_START"
  | "TOOL_CALL_ARGS"
  | "TOOL_CALL_END"
  | "TOOL_CALL_RESULT"
  | "TEXT_MESSAGE_START"
  | "TEXT_MESSAGE_CONTENT"
  | "TEXT_MESSAGE_END"
  | "CUSTOM"

/** AG-UI over SSE: one JSON event per `data:` line, the type inside the JSON. */
const event = (type: AgUiEventType, fields: Record<string, unknown>): SseFrame => ({
  data: JSON.stringify({ type, ...fields })
})

const custom = (name: string, value: unknown) => event("CUSTOM", { name, value })

/**
 * The AG-UI encoder: `RUN_STARTED`; per agent step `STEP_STARTED`/`STEP_FINISHED` (step names are
 * the timeline's step ids, `step-1`, ...); per tool call `TOOL_CALL_START`/`ARGS`/`END` and
 * `TOOL_CALL_RESULT` (content = the redacted agent observation); `CUSTOM` `aiops.routing`,
 * `aiops.stop_required`, `aiops.evidence_guard`, `aiops.semantic_guard`, `aiops.release_decision`;
 * the released report as `TEXT_MESSAGE_START`/`CONTENT`/`END`; then `RUN_FINISHED` with the
 * token usage per model (cancelled: `outcome: { type: "cancelled" }`), or `RUN_ERROR`.
 */
export const agUiEncoder = (): RunEncoder => {
  let openStep: string | null = null
  let toolCalls = 0
  const closeStep = (): SseFrame[] => {
    if (openStep === null) return []
    const stepName = openStep
    openStep = null
    return [event("STEP_FINISHED", { stepName })]
  }
  return {
    encode: (e: RunEvent): ReadonlyArray<SseFrame> => {
      switch (e.type) {
        case "started":
          return [event("RUN_STARTED", { threadId: e.ids.sessionId, runId: e.ids.runId })]
        case "progress": {
          const p = e.event
          switch (p.type) {
            case "run_started":
              return []
            case "routing":
              return [custom("aiops.routing", { intent: p.intent, source: p.source })]
            case "agent_step": {
              const frames = closeStep()
              openStep = `step-${p.step_index}`
              return [...frames, event("STEP_STARTED", { stepName: openStep })]
            }
            case "tool_call": {
              const toolCallId = toolCallIdOf(p, ++toolCalls)
              return [
                event("TOOL_CALL_START", { toolCallId, toolCallName: p.tool }),
                ...(p.arguments === "" ? [] : [event("TOOL_CALL_ARGS", { toolCallId, delta: p.arguments })]),
                event("TOOL_CALL_END", { toolCallId }),
                event("TOOL_CALL_RESULT", {
                  messageId: randomUUID(),
                  toolCallId,
                  role: "tool",
                  content: JSON.stringify(p.observation)
                })
              ]
            }
            case "stop_required":
              return [custom("aiops.stop_required", { reason: p.reason })]
            case "evidence_guard":
              return [
                ...closeStep(),
                custom("aiops.evidence_guard", { passed: p.passed, failures: p.failures })
              ]
            case "semantic_guard":
              return [custom("aiops.semantic_guard", { verdict: p.verdict })]
            case "release":
              return [...closeStep(), custom("aiops.release_decision", { decision: p.decision })]
            case "run_finished":
              return closeStep()
          }
          return []
        }
        case "answer": {
          const { result, usage, ids } = e
          const messageId = randomUUID()
          const text =
            result.content === ""
              ? []
              : [
                  event("TEXT_MESSAGE_START", { messageId, role: "assistant" }),
                  event("TEXT_MESSAGE_CONTENT", { messageId, delta: result.content }),
                  event("TEXT_MESSAGE_END", { messageId })
                ]
          const terminal =
            result.releaseResult === "RUN_FAILED"
              ? event("RUN_ERROR", { message: result.content, code: "RUN_FAILED" })
              : event("RUN_FINISHED", {
                  threadId: ids.sessionId,
                  runId: ids.runId,
                  result: {
                    releaseResult: result.releaseResult,
                    intent: result.intent,
                    totalTokens: usage.totalTokens,
                    usageComplete: usage.complete
                  },
                  usage: usage.byModel.map((u) => ({
                    model: u.model,
                    inputTokens: u.inputTokens,
                    outputTokens: u.outputTokens,
                    totalTokens: u.totalTokens
                  }))
                })
          return [...closeStep(), ...text, terminal]
        }
        case "failed":
          return [
            ...closeStep(),
            e.error === "CANCELLED"
              ? event("RUN_FINISHED", {
                  threadId: e.ids.sessionId,
                  runId: e.ids.runId,
                  outcome: { type: "cancelled" }
                })
              : event("RUN_ERROR", { message: e.message, code: e.error })
          ]
      }
    }
  }
}
