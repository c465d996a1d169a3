import type { Json, JsonObject } from "@aiops-harness/core"
import type { ChatMessage, ChatToolSpec } from "../model.js"
import { STOP_REQUIRED_PREFIX } from "../prompts.js"
import { parseTimeWindowMessage, TIME_WINDOW_PREFIX } from "../time-window.js"

/** What the offline model has seen of one diagnosis conversation (the agent's view only). */
export interface Seen {
  readonly question: string
  readonly stop: boolean
  readonly calls: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly args: JsonObject }>
  /** Tool observations (boundary envelopes), in order. */
  readonly observations: ReadonlyArray<JsonObject>
  /**
   * The window the harness resolved from the question (`TIME_WINDOW:` message): ISO start and
   * end, `"unreachable"` when the tools cannot search it, `null` when the question names none.
   */
  readonly window?: { readonly start: string; readonly end: string } | "unreachable" | null
}

export const isObject = (v: unknown): v is JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v)

export const parseObject = (text: string): JsonObject | null => {
  try {
    const v: unknown = JSON.parse(text)
    return isObject(v) ? v : null
  } catch {
    return null
  }
}

export const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null)

export const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

export const readConversation = (messages: ReadonlyArray<ChatMessage>): Seen => {
  let question = ""
  let stop = false
  const calls: Array<{ id: string; name: string; args: JsonObject }> = []
  const observations: JsonObject[] = []
  let window: Seen["window"] = null
  for (const m of messages) {
    if (m.role === "user") {
      if (m.content.startsWith(STOP_REQUIRED_PREFIX)) stop = true
      else if (m.content.startsWith(TIME_WINDOW_PREFIX)) {
        const w = parseTimeWindowMessage(m.content)
        window = w?.start && w.end ? { start: w.start, end: w.end } : "unreachable"
      } else if (question === "") question = m.content
    } else if (m.role === "assistant") {
      for (const c of m.toolCalls ?? [])
        calls.push({ id: c.id, name: c.name, args: parseObject(c.arguments) ?? {} })
    } else if (m.role === "tool") {
      const o = parseObject(m.content)
      if (o) observations.push(o)
    }
  }
  return { question, stop, calls, observations, window }
}

/** The tools offered in this turn and, for `query_logs`, the topics its schema allows. */
export interface Offered {
  readonly names: ReadonlySet<string>
  readonly logTopics: ReadonlyArray<string>
}

const DEFAULT_TOPICS = ["application", "database_slow_query", "system_events", "system_metrics"]

export const offeredTools = (tools: ReadonlyArray<ChatToolSpec>): Offered => {
  const logs = tools.find((t) => t.name === "query_logs")
  const props =
    logs && isObject(logs.parameters.properties as Json) ? (logs.parameters.properties as JsonObject) : {}
  const topic = isObject(props.topic) ? props.topic : {}
  const topics = Array.isArray(topic.enum) ? topic.enum.filter((t): t is string => typeof t === "string") : []
  return { names: new Set(tools.map((t) => t.name)), logTopics: topics.length > 0 ? topics : DEFAULT_TOPICS }
}
