import type { ProgressEvent } from "@aiops-harness/agent"
import { runPagePath } from "../viewer/index.js"
import type { RunEncoder, RunEvent, SseFrame } from "./run-events.js"

/** The `progress` payload of `/api/chat`: the agent's event without the tool call's arguments and observation. */
const progressPayload = (event: ProgressEvent): ProgressEvent | Record<string, unknown> => {
  if (event.type !== "tool_call") return event
  const { arguments: _arguments, observation: _observation, ...rest } = event
  return rest
}

const frame = (event: string, data: unknown): SseFrame => ({ event, data: JSON.stringify(data) })

/**
 * The encoder of `POST /api/chat` (this project's own SSE format): `metadata`, `progress`*, then
 * `answer` or `error`.
 */
export const chatSseEncoder = (): RunEncoder => ({
  encode: (event: RunEvent): ReadonlyArray<SseFrame> => {
    switch (event.type) {
      case "started":
        return [frame("metadata", event.ids)]
      case "progress":
        return [frame("progress", progressPayload(event.event))]
      case "answer":
        return [
          frame("answer", {
            sessionId: event.result.sessionId,
            runId: event.result.runId,
            intent: event.result.intent,
            releaseResult: event.result.releaseResult,
            content: event.result.content,
            runPage: runPagePath(event.result.sessionId, event.result.runId)
          })
        ]
      case "failed":
        return [
          frame(
            "error",
            event.error === "CANCELLED"
              ? { error: "CANCELLED", message: event.message, ...event.ids }
              : { error: "INTERNAL", message: event.message }
          )
        ]
    }
  }
})
