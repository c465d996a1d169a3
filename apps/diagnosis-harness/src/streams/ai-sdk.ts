import { randomUUID } from "node:crypto"
import { type RunEncoder, type RunEvent, type SseFrame, toolCallIdOf, toolInputOf } from "./run-events.js"

/** Response headers of the AI SDK UI message stream protocol (v1). */
export const UI_MESSAGE_STREAM_HEADERS = {
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no"
} as const

const chunk = (value: Record<string, unknown>): SseFrame => ({ data: JSON.stringify(value) })
const data = (name: string, value: unknown) => chunk({ type: `data-${name}`, data: value })
const DONE: SseFrame = { data: "[DONE]" }

/**
 * The AI SDK UI message stream encoder (`useChat`): `start` (messageMetadata: sessionId, runId);
 * per agent step `start-step`/`finish-step`; per tool call `tool-input-available` and
 * `tool-output-available` (output = the redacted agent observation); `data-routing`,
 * `data-stop-required`, `data-evidence-guard`, `data-semantic-guard`, `data-release-decision`;
 * the report as `text-start`/`text-delta`/`text-end`; `finish` with run id, release result and usage
 * in `messageMetadata`; then `[DONE]`. Cancelled: `abort`; could not run: `error`.
 */
export const aiSdkEncoder = (): RunEncoder => {
  let stepOpen = false
  let toolCalls = 0
  const closeStep = (): SseFrame[] => {
    if (!stepOpen) return []
    stepOpen = false
    return [chunk({ type: "finish-step" })]
  }
  return {
    encode: (e: RunEvent): ReadonlyArray<SseFrame> => {
      switch (e.type) {
        case "started":
          return [chunk({ type: "start", messageId: randomUUID(), messageMetadata: { ...e.ids } })]
        case "progress": {
          const p = e.event
          switch (p.type) {
            case "run_started":
              return []
            case "routing":
              return [data("routing", { intent: p.intent, source: p.source })]
            case "agent_step": {
              const frames = closeStep()
              stepOpen = true
              return [...frames, chunk({ type: "start-step" })]
            }
            case "tool_call": {
              const toolCallId = toolCallIdOf(p, ++toolCalls)
              return [
                chunk({
                  type: "tool-input-available",
                  toolCallId,
                  toolName: p.tool,
                  input: toolInputOf(p.arguments)
                }),
                chunk({ type: "tool-output-available", toolCallId, output: p.observation })
              ]
            }
            case "stop_required":
              return [data("stop-required", { reason: p.reason })]
            case "evidence_guard":
              return [...closeStep(), data("evidence-guard", { passed: p.passed, failures: p.failures })]
            case "semantic_guard":
              return [data("semantic-guard", { verdict: p.verdict })]
            case "release":
              return [...closeStep(), data("release-decision", { decision: p.decision })]
            case "run_finished":
              return closeStep()
          }
          return []
        }
        case "answer": {
          const { result, usage, ids } = e
          const id = randomUUID()
          const text =
            result.content === ""
              ? []
              : [
                  chunk({ type: "text-start", id }),
                  chunk({ type: "text-delta", id, delta: result.content }),
                  chunk({ type: "text-end", id })
                ]
          return [
            ...closeStep(),
            ...text,
            chunk({
              type: "finish",
              finishReason: result.releaseResult === "RUN_FAILED" ? "error" : "stop",
              messageMetadata: {
                ...ids,
                releaseResult: result.releaseResult,
                intent: result.intent,
                usage: {
                  totalTokens: usage.totalTokens,
                  complete: usage.complete,
                  byModel: usage.byModel
                }
              }
            }),
            DONE
          ]
        }
        case "failed":
          return [
            ...closeStep(),
            e.error === "CANCELLED"
              ? chunk({ type: "abort", reason: e.message })
              : chunk({ type: "error", errorText: e.message }),
            DONE
          ]
      }
    }
  }
}
