import { Effect, Layer } from "effect"
import {
  ChatModel,
  type ChatModelShape,
  type ChatRequest,
  type ChatResponse,
  type ChatToolCall,
  estimateTokens
} from "./model.js"
import { offeredTools, readConversation } from "./offline/conversation.js"
import { draftFrom } from "./offline/draft.js"
import { judge } from "./offline/judge.js"
import { planNext } from "./offline/plan.js"
import { classifyIntentByKeywords } from "./router.js"

/** Options of the offline rule model. */
export interface OfflineRuleModelOptions {
  /** Model name reported in usage and audit. Default `offline-rule-v1`. */
  readonly model?: string
  /** Datasource for `query_mysql`. Default `shop` (the demo allowlist). */
  readonly mysqlDatasource?: string
  /**
   * Lookback of the `query_logs` calls; the broadened call (nothing found) uses 1440. Default 60.
   * A window the question names (the harness's `TIME_WINDOW:` message) replaces both.
   */
  readonly lookbackMinutes?: number
  /** Maximum claims in a draft. Default 6. */
  readonly maxClaims?: number
}

/**
 * A deterministic, rule-based offline provider (no network) that reasons like a small ReAct
 * agent from what it observes (the question, the offered tool specs and the observations):
 * knowledge for the question; application errors and warnings (service from the question and
 * runbook hits); the logs of a dependency the dominant error names; a knowledge lookup of the
 * dominant signature's salient terms to find the runbook that explains it; the same error search
 * over every service (which other services are affected); one corroborating query the runbook
 * points at (another log topic, or a windowed `query_mysql` for database signatures).
 * At most five tool calls; with no log evidence it broadens, then stops (the harness's
 * information-gain stop ends the loop).
 *
 * The draft cites only refs it saw: the dominant pattern, the runbook section that describes
 * it, corroborating patterns; the summary names the most likely cause no further than those
 * citations go, and next steps come from the runbook's mitigation section. No evidence, no
 * positive claims. The semantic judge checks each cited ref and every quotation against the
 * evidence it is given. Obeys `STOP_REQUIRED`. Reports usage estimated from message sizes.
 */
export const makeOfflineRuleModel = (options: OfflineRuleModelOptions = {}): ChatModelShape => {
  const o: Required<OfflineRuleModelOptions> = {
    model: options.model ?? "offline-rule-v1",
    mysqlDatasource: options.mysqlDatasource ?? "shop",
    lookbackMinutes: options.lookbackMinutes ?? 60,
    maxClaims: options.maxClaims ?? 6
  }
  const respond = (request: ChatRequest, content: string | null, toolCalls: ChatToolCall[]): ChatResponse => {
    const promptTokens = estimateTokens(
      JSON.stringify(request.messages) + JSON.stringify(request.tools ?? [])
    )
    const completionTokens = estimateTokens((content ?? "") + JSON.stringify(toolCalls))
    return {
      message: { content, toolCalls },
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      model: o.model
    }
  }
  const chat = (request: ChatRequest) =>
    Effect.sync((): ChatResponse => {
      if (request.purpose === "router") {
        const last = [...request.messages].reverse().find((m) => m.role === "user")
        const question = last && last.role === "user" ? last.content : ""
        return respond(request, JSON.stringify({ intent: classifyIntentByKeywords(question) }), [])
      }
      if (request.purpose === "semantic_guard") return respond(request, judge(request.messages), [])
      const seen = readConversation(request.messages)
      const tools = request.tools ?? []
      const next = seen.stop || tools.length === 0 ? null : planNext(seen, offeredTools(tools), o)
      if (next) {
        const id = `offline-call-${seen.calls.length + 1}`
        return respond(request, null, [{ id, name: next.name, arguments: JSON.stringify(next.args) }])
      }
      return respond(request, JSON.stringify(draftFrom(seen, o.maxClaims)), [])
    })
  return { chat, info: { provider: "aiops-offline", model: o.model } }
}

/** The deterministic offline rule model (no network): constructor and layer. */
export const OfflineRuleModel = {
  /** Makes the offline model (see `makeOfflineRuleModel`). */
  make: makeOfflineRuleModel,
  /** The offline model as the `ChatModel` service. */
  layer: (options: OfflineRuleModelOptions = {}): Layer.Layer<ChatModel> =>
    Layer.succeed(ChatModel, makeOfflineRuleModel(options))
}

/** Alias of {@link OfflineRuleModel} (the name used in decision 0003). */
export const OfflineModel = OfflineRuleModel
