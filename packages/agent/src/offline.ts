import type { Json, JsonObject } from "@aiops-harness/core"
import { type Claim, type DraftReport, refPresent } from "@aiops-harness/guards"
import { Effect, Layer } from "effect"
import {
  type ChatMessage,
  ChatModel,
  type ChatModelShape,
  type ChatRequest,
  type ChatResponse,
  type ChatToolCall,
  estimateTokens
} from "./model.js"
import { STOP_REQUIRED_PREFIX } from "./prompts.js"
import { classifyIntentByKeywords } from "./router.js"

export interface OfflineRuleModelOptions {
  /** Model name reported in usage and audit. Default `offline-rule-v1`. */
  readonly model?: string
  /** Datasource for `query_mysql`. Default `shop` (the demo allowlist). */
  readonly mysqlDatasource?: string
  /** Lookback of the first `query_logs` call; broadened calls use 1440. Default 60. */
  readonly lookbackMinutes?: number
  /** Maximum claims in a draft. Default 6. */
  readonly maxClaims?: number
}

interface Seen {
  readonly question: string
  readonly stop: boolean
  readonly calls: ReadonlyArray<{ readonly name: string; readonly args: JsonObject }>
  readonly observations: ReadonlyArray<JsonObject>
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v)
const parseObject = (text: string): JsonObject | null => {
  try {
    const v: unknown = JSON.parse(text)
    return isObject(v) ? v : null
  } catch {
    return null
  }
}
const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null)
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

const readConversation = (messages: ReadonlyArray<ChatMessage>): Seen => {
  let question = ""
  let stop = false
  const calls: Array<{ name: string; args: JsonObject }> = []
  const observations: JsonObject[] = []
  for (const m of messages) {
    if (m.role === "user") {
      if (m.content.startsWith(STOP_REQUIRED_PREFIX)) stop = true
      else if (question === "") question = m.content
    } else if (m.role === "assistant") {
      for (const c of m.toolCalls ?? []) calls.push({ name: c.name, args: parseObject(c.arguments) ?? {} })
    } else if (m.role === "tool") {
      const o = parseObject(m.content)
      if (o) observations.push(o)
    }
  }
  return { question, stop, calls, observations }
}

const TERMS = [
  "timeout",
  "timed out",
  "500",
  "502",
  "503",
  "error",
  "exception",
  "refused",
  "pool",
  "exhausted",
  "deadlock",
  "lock wait",
  "oom",
  "killed",
  "restart",
  "latency",
  "slow",
  "disk",
  "redis",
  "payment",
  "declined"
]
const SERVICE_RE = /\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|svc|api|gateway|worker|job))\b/
const SERVICE_WORDS = ["checkout", "payment", "order", "inventory", "user", "cart", "gateway", "auth"]
const SLOW_QUERY_RE = /slow[ -]?quer|slow sql|query_time|rows examined|慢查询|慢sql/i
const DB_RE = /slow[ -]?quer|\borders?\b|order_items|payments?\b|mysql|database|\bsql\b|慢查询|订单|支付/i

const evidenceText = (observations: ReadonlyArray<JsonObject>): string =>
  observations
    .filter((o) => o.tool === "lookup_knowledge")
    .flatMap((o) => (Array.isArray(o.evidence) ? o.evidence : []))
    .map((e) => (isObject(e) ? `${str(e.title) ?? ""} ${str(e.excerpt) ?? ""}` : ""))
    .join(" ")
    .toLowerCase()

const quoteTerm = (t: string) => (/\s/.test(t) ? `"${t}"` : t)

const serviceFrom = (question: string, knowledge: string): string | null => {
  const q = question.toLowerCase()
  const explicit = SERVICE_RE.exec(q)?.[1]
  if (explicit) return explicit
  for (const w of SERVICE_WORDS) {
    if (!new RegExp(`\\b${w}`).test(q)) continue
    const m = new RegExp(`\\b(${w}[a-z0-9]*-(?:service|svc|api|worker))\\b`).exec(knowledge)
    if (m?.[1]) return m[1]
  }
  return null
}

/** The next tool call the rules plan, or null when it is time to draft. */
const planNext = (
  seen: Seen,
  offered: ReadonlySet<string>,
  options: Required<OfflineRuleModelOptions>
): { name: string; args: JsonObject } | null => {
  const called = (name: string) => seen.calls.filter((c) => c.name === name)
  const q = seen.question
  const lower = q.toLowerCase()
  if (offered.has("lookup_knowledge") && called("lookup_knowledge").length === 0) {
    return { name: "lookup_knowledge", args: { query: clip(q.trim() || "incident", 500), top_k: 5 } }
  }
  const knowledge = evidenceText(seen.observations)
  const logObs = seen.observations.filter((o) => o.tool === "query_logs")
  const anyLogEvidence = logObs.some((o) => o.evidence_status === "EVIDENCE_FOUND")
  if (offered.has("query_logs")) {
    const logCalls = called("query_logs")
    const slow = SLOW_QUERY_RE.test(q)
    if (logCalls.length === 0) {
      const terms = TERMS.filter((t) => lower.includes(t))
      for (const t of TERMS)
        if (terms.length < 5 && !terms.includes(t) && knowledge.includes(t)) terms.push(t)
      const query = slow
        ? /\borders?\b/.test(lower)
          ? "orders"
          : "select OR update"
        : terms.length > 0
          ? terms.slice(0, 5).map(quoteTerm).join(" OR ")
          : "level:ERROR"
      const service = slow ? null : serviceFrom(q, knowledge)
      const args: Record<string, Json> = {
        topic: slow ? "database_slow_query" : "application",
        query,
        lookback_minutes: options.lookbackMinutes
      }
      if (service) args.service = service
      return { name: "query_logs", args }
    }
    if (logCalls.length === 1 && !anyLogEvidence) {
      return {
        name: "query_logs",
        args: {
          topic: SLOW_QUERY_RE.test(q) ? "database_slow_query" : "application",
          query: "level:ERROR OR level:WARN OR level:FATAL",
          lookback_minutes: 1440
        }
      }
    }
  }
  if (offered.has("query_mysql") && DB_RE.test(q) && called("query_mysql").length === 0) {
    const sql = /payment|支付/i.test(q)
      ? "SELECT provider, status, error_code, COUNT(*) AS payment_count FROM payments GROUP BY provider, status, error_code LIMIT 20"
      : "SELECT status, COUNT(*) AS order_count FROM orders GROUP BY status LIMIT 20"
    return { name: "query_mysql", args: { datasource: options.mysqlDatasource, sql } }
  }
  const anyEvidence = seen.observations.some((o) => o.evidence_status === "EVIDENCE_FOUND")
  if (offered.has("query_logs") && !anyEvidence && called("query_logs").length === 2) {
    return {
      name: "query_logs",
      args: { topic: "system_events", query: "level:ERROR OR level:WARN", lookback_minutes: 1440 }
    }
  }
  return null
}

const firstSentence = (s: string): string => {
  const flat = s
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((line) => line.length > 0)
    .join(" ")
  const sentence = /^[\s\S]{20,}?[.!?。](?=\s|$)/.exec(flat)?.[0] ?? flat
  return clip(sentence.trim(), 200)
}

/** A cited draft from the evidence actually observed: no evidence, no positive claims. */
const draftFrom = (seen: Seen, maxClaims: number): DraftReport => {
  const positive: Claim[] = []
  const negative: Claim[] = []
  for (const o of seen.observations) {
    const id = str(o.tool_call_id)
    if (!id || o.status !== "READY") continue
    if (o.evidence_status === "NO_EVIDENCE") {
      const scope = isObject(o.scope) ? o.scope : null
      if (o.tool === "query_logs" && scope) {
        const service = str(scope.service)
        negative.push({
          text: `No ${str(scope.topic) ?? ""} logs matched query "${clip(str(scope.query) ?? "", 80)}"${
            service ? ` for ${service}` : ""
          } between ${str(scope.start_time) ?? "?"} and ${str(scope.end_time) ?? "?"}.`,
          negative: true,
          citations: [{ tool_call_id: id, kind: "no_evidence", ref: "" }]
        })
      }
      continue
    }
    if (o.evidence_status !== "EVIDENCE_FOUND") continue
    if (Array.isArray(o.evidence)) {
      for (const e of o.evidence.slice(0, 2)) {
        if (!isObject(e)) continue
        const doc = str(e.document_id)
        if (!doc) continue
        const excerpt = str(e.excerpt) ?? ""
        positive.push({
          text: `Runbook "${str(e.title) ?? doc}" (${str(e.relevance_level) ?? "?"} relevance) says: ${firstSentence(excerpt)}`,
          citations: [{ tool_call_id: id, kind: "document", ref: doc }]
        })
      }
    }
    if (Array.isArray(o.patterns)) {
      const patterns = o.patterns.filter(isObject).sort((a, b) => Number(b.count ?? 0) - Number(a.count ?? 0))
      for (const p of patterns.slice(0, 3)) {
        const pid = str(p.pattern_id)
        if (!pid) continue
        positive.push({
          text: `${String(p.count ?? "?")} ${str(p.level) ?? ""} log line(s) from ${str(p.service) ?? "?"} match "${clip(
            str(p.template) ?? "",
            160
          )}" between ${str(p.first_seen) ?? "?"} and ${str(p.last_seen) ?? "?"}.`,
          citations: [{ tool_call_id: id, kind: "pattern", ref: pid }]
        })
      }
    }
    if (Array.isArray(o.rows) && o.rows.length > 0 && isObject(o.rows[0])) {
      const first = Object.entries(o.rows[0])
        .slice(0, 4)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(", ")
      positive.push({
        text: `The query on ${str(o.datasource) ?? "the database"} returned ${o.rows.length} row(s); first row: ${clip(first, 200)}.`,
        citations: [{ tool_call_id: id, kind: "row", ref: "0" }]
      })
    }
  }
  if (positive.length === 0) {
    return {
      summary: "The observations contain no evidence that supports a cause.",
      claims: [],
      next_steps: ["Widen the time window or name the affected service, then ask again."]
    }
  }
  const claims = [...positive, ...negative].slice(0, maxClaims)
  return {
    summary: `Evidence gathered for "${clip(seen.question, 120)}": ${claims[0]?.text ?? ""}`,
    claims,
    next_steps: ["Confirm the finding against the cited runbook and logs before acting."]
  }
}

const judge = (messages: ReadonlyArray<ChatMessage>): string => {
  const last = [...messages].reverse().find((m) => m.role === "user")
  const input = last && last.role === "user" ? parseObject(last.content) : null
  const claims = input && Array.isArray(input.claims) ? input.claims.filter(isObject) : []
  const evidence = new Map<string, JsonObject>()
  if (input && Array.isArray(input.evidence)) {
    for (const e of input.evidence.filter(isObject)) {
      const id = str(e.tool_call_id)
      if (id) evidence.set(id, e)
    }
  }
  const verdicts = claims.map((claim, claim_index) => {
    const citations = Array.isArray(claim.citations) ? claim.citations.filter(isObject) : []
    const ok =
      citations.length > 0 &&
      citations.every((c) => {
        const e = evidence.get(str(c.tool_call_id) ?? "")
        if (!e) return false
        const kind = str(c.kind) ?? ""
        if (kind === "no_evidence") return claim.negative === true && e.evidence_status === "NO_EVIDENCE"
        return isObject(e.observation) && refPresent(e.observation, kind, str(c.ref) ?? "")
      })
    return {
      claim_index,
      verdict: ok ? "SUPPORTED" : "UNSUPPORTED",
      reason: ok ? "every cited ref is present in the evidence" : "a cited ref is missing from the evidence"
    }
  })
  return JSON.stringify({ verdicts })
}

/**
 * A deterministic, rule-based offline provider (no network): keyword routing, a fixed tool
 * plan (knowledge, then logs with terms from the question and runbook hits, then MySQL for
 * order/payment/slow-query questions), cited drafts built only from refs it saw in
 * observations, and a judge that checks each cited ref is in the evidence it was given.
 * Obeys `STOP_REQUIRED`. Reports usage estimated from message sizes.
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
      const offered = new Set((request.tools ?? []).map((t) => t.name))
      const next = seen.stop || offered.size === 0 ? null : planNext(seen, offered, o)
      if (next) {
        const id = `offline-call-${seen.calls.length + 1}`
        return respond(request, null, [{ id, name: next.name, arguments: JSON.stringify(next.args) }])
      }
      return respond(request, JSON.stringify(draftFrom(seen, o.maxClaims)), [])
    })
  return { chat }
}

export const OfflineRuleModel = {
  make: makeOfflineRuleModel,
  layer: (options: OfflineRuleModelOptions = {}): Layer.Layer<ChatModel> =>
    Layer.succeed(ChatModel, makeOfflineRuleModel(options))
}

/** Alias of {@link OfflineRuleModel} (the name used in decision 0003). */
export const OfflineModel = OfflineRuleModel
