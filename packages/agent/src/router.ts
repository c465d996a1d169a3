import type { RunContext } from "@aiops-harness/core"
import { Effect } from "effect"
import { ChatModel } from "./model.js"
import { ROUTER_SYSTEM_PROMPT } from "./prompts.js"

export type Intent = "diagnosis" | "other"

const DIAGNOSIS_KEYWORDS = [
  "error",
  "fail",
  "500",
  "502",
  "503",
  "504",
  "slow",
  "latency",
  "timeout",
  "timed out",
  "down",
  "outage",
  "exception",
  "crash",
  "incident",
  "alert",
  "degrad",
  "spike",
  "why",
  "investigate",
  "diagnos",
  "troubleshoot",
  "root cause",
  "oom",
  "deadlock",
  "报错",
  "错误",
  "失败",
  "慢",
  "超时",
  "故障",
  "异常",
  "告警",
  "为什么"
]

/** Deterministic keyword routing (the offline model's router and the router's fallback). */
export const classifyIntentByKeywords = (question: string): Intent => {
  const q = question.toLowerCase()
  return DIAGNOSIS_KEYWORDS.some((k) => q.includes(k)) ? "diagnosis" : "other"
}

/** Parses `{"intent": ...}` from model text; null when absent or unknown. */
export const parseIntent = (text: string | null): Intent | null => {
  if (!text) return null
  const match = /"intent"\s*:\s*"([a-z_]+)"/i.exec(text)
  const raw = (match?.[1] ?? text.trim().replace(/^["']|["']$/g, "")).toLowerCase()
  return raw === "diagnosis" ? "diagnosis" : raw === "other" ? "other" : null
}

export interface RoutingResult {
  readonly intent: Intent
  /** `model` when the model answered, `fallback` when it failed or answered unparseably. */
  readonly source: "model" | "fallback"
}

/**
 * The router: one model call, recorded as router `MODEL_TOKEN_USAGE`, `ROUTING_ATTEMPT`,
 * `ROUTING_DECISION`. A model failure or an unparseable answer falls back to keyword routing
 * (recorded as such); it never fails.
 */
export const routeQuestion = (
  run: RunContext,
  question: string
): Effect.Effect<RoutingResult, never, ChatModel> =>
  Effect.gen(function* () {
    const model = yield* ChatModel
    const answer = yield* Effect.result(
      model.chat({
        purpose: "router",
        responseFormat: "json",
        messages: [
          { role: "system", content: ROUTER_SYSTEM_PROMPT },
          { role: "user", content: question }
        ]
      })
    )
    let intent: Intent | null = null
    if (answer._tag === "Success") {
      yield* run.recorder.tokenUsage({
        component: "router",
        componentIndex: 1,
        model: answer.success.model,
        usage: answer.success.usage
      })
      intent = parseIntent(answer.success.message.content)
      yield* run.recorder.event("ROUTING_ATTEMPT", {
        attempt: 1,
        outcome: intent ? "PARSED" : "UNPARSEABLE",
        model: answer.success.model
      })
    } else {
      yield* run.recorder.event("ROUTING_ATTEMPT", {
        attempt: 1,
        outcome: "MODEL_ERROR",
        error_reason: answer.failure.reason
      })
    }
    const result: RoutingResult = intent
      ? { intent, source: "model" }
      : { intent: classifyIntentByKeywords(question), source: "fallback" }
    yield* run.recorder.event("ROUTING_DECISION", { intent: result.intent, source: result.source })
    return result
  })
