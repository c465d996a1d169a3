import type { Json, JsonObject } from "@aiops-harness/core"
import { analyze, APPLICATION_TOPIC } from "./analysis.js"
import { clip, type Offered, type Seen } from "./conversation.js"
import { corroboratingSql, incidentWindow, tableFor } from "./sql.js"
import { knowledgeText, scopeOf, serviceFrom, topicsMentioned } from "./signals.js"

export interface PlanOptions {
  readonly mysqlDatasource: string
  readonly lookbackMinutes: number
}

/** Tool calls the offline model makes at most in one run: enough to reason, few enough to stay cheap. */
export const MAX_TOOL_CALLS = 5

/** Errors and warnings, whatever their text: the dominant pattern names the problem. */
export const PROBLEM_QUERY = "level:ERROR OR level:WARN OR level:FATAL"
export const BROAD_LOOKBACK_MINUTES = 1440

const DB_RE = /\b(?:orders?|order_items|payments?)\b|mysql|\bsql\b|slow[ -]?quer|慢查询|订单|支付/i

/**
 * The time arguments of a `query_logs` call: the question's window when the harness resolved
 * one (absolute, never widened), else `lookback_minutes`.
 */
const windowArgs = (seen: Seen, lookbackMinutes: number): Record<string, Json> =>
  seen.window && seen.window !== "unreachable"
    ? { start_time: seen.window.start, end_time: seen.window.end }
    : { lookback_minutes: lookbackMinutes }

export interface PlannedCall {
  readonly name: string
  readonly args: JsonObject
}

/**
 * The next tool call of a small ReAct plan, or `null` when it is time to draft:
 * 1. `lookup_knowledge` with the question;
 * 2. `query_logs` on application errors and warnings (service from the question / runbook hits);
 *    with nothing found, broaden (all services, a day), then `system_events`;
 * 3. when the dominant pattern names a dependency, that dependency's application logs;
 * 4. `lookup_knowledge` with the salient terms of the dominant signature (which runbook explains it);
 * 5. with a runbook match and only service-scoped log searches so far: the same error search over
 *    every service (which other services fail the same way: the affected services);
 * 6. corroboration the matched runbook points at: `query_mysql` (if offered) for database
 *    signatures, else the first other log topic the runbook mentions.
 * At most {@link MAX_TOOL_CALLS} calls; never the same request twice.
 */
export const planNext = (seen: Seen, offered: Offered, options: PlanOptions): PlannedCall | null => {
  if (seen.calls.length >= MAX_TOOL_CALLS) return null
  const called = (name: string) => seen.calls.filter((c) => c.name === name)
  const has = (name: string) => offered.names.has(name)
  const q = seen.question
  const topics = offered.logTopics
  const appTopic = topics.includes(APPLICATION_TOPIC) ? APPLICATION_TOPIC : (topics[0] ?? APPLICATION_TOPIC)

  if (has("lookup_knowledge") && called("lookup_knowledge").length === 0) {
    return { name: "lookup_knowledge", args: { query: clip(q.trim() || "incident", 500), top_k: 5 } }
  }
  // A window the tools cannot search: no log query would answer the question asked.
  const logsUsable = has("query_logs") && seen.window !== "unreachable"
  const logCalls = called("query_logs")
  if (logsUsable && logCalls.length === 0) {
    const service = serviceFrom(q, knowledgeText(seen))
    const args: Record<string, Json> = {
      topic: appTopic,
      query: PROBLEM_QUERY,
      ...windowArgs(seen, options.lookbackMinutes)
    }
    if (service) args.service = service
    return { name: "query_logs", args }
  }

  const a = analyze(seen)
  if (!a.symptom) {
    if (!logsUsable) return null
    // Broaden to every service and a day; a window the question named is kept, never widened.
    const broad = windowArgs(seen, BROAD_LOOKBACK_MINUTES)
    const sameWindow = (c: { readonly args: JsonObject }) =>
      Object.entries(broad).every(([k, v]) => c.args[k] === v)
    const broadened = logCalls.some(
      (c) => c.args.topic === appTopic && c.args.service === undefined && sameWindow(c)
    )
    if (!broadened) {
      return { name: "query_logs", args: { topic: appTopic, query: PROBLEM_QUERY, ...broad } }
    }
    if (topics.includes("system_events") && !logCalls.some((c) => c.args.topic === "system_events")) {
      return { name: "query_logs", args: { topic: "system_events", query: PROBLEM_QUERY, ...broad } }
    }
    return null
  }

  if (a.dependency && !a.dependencyPattern && logsUsable) {
    const covered = logCalls.some(
      (c) => c.args.topic === appTopic && (c.args.service === undefined || c.args.service === a.dependency)
    )
    if (!covered) {
      return {
        name: "query_logs",
        args: {
          topic: appTopic,
          query: PROBLEM_QUERY,
          service: a.dependency,
          ...windowArgs(seen, options.lookbackMinutes)
        }
      }
    }
  }

  if (has("lookup_knowledge") && called("lookup_knowledge").length < 2 && a.terms.length > 0) {
    return { name: "lookup_knowledge", args: { query: clip(a.terms.join(" "), 500), top_k: 8 } }
  }

  if (!a.match || !a.cause) return null
  // Blast radius: which other services fail the same way (only a service-scoped search so far).
  const allServicesSearched = seen.observations.some((o) => {
    const scope = scopeOf(o)
    return o.tool === "query_logs" && scope.topic === appTopic && (scope.service ?? null) === null
  })
  if (logsUsable && !allServicesSearched) {
    return {
      name: "query_logs",
      args: { topic: appTopic, query: PROBLEM_QUERY, ...windowArgs(seen, options.lookbackMinutes) }
    }
  }
  const window = incidentWindow(a.cause)
  if (
    has("query_mysql") &&
    called("query_mysql").length === 0 &&
    window &&
    DB_RE.test(`${q} ${a.cause.template}`)
  ) {
    // a query that tests the claim over the incident window, not "any rows"
    const sql = corroboratingSql(tableFor(`${q} ${a.cause.template}`), window)
    return { name: "query_mysql", args: { datasource: options.mysqlDatasource, sql } }
  }
  if (logsUsable) {
    const match = a.match
    const runbookText = a.docs
      .filter((d) => d.runbook === match.runbook)
      .sort((x, y) =>
        x.documentId === match.section.documentId ? -1 : y.documentId === match.section.documentId ? 1 : 0
      )
      .map((d) => d.excerpt)
      .join("\n")
    const topic = topicsMentioned(runbookText, topics).find(
      (t) => t !== appTopic && !logCalls.some((c) => c.args.topic === t)
    )
    if (topic) {
      return {
        name: "query_logs",
        args: { topic, query: PROBLEM_QUERY, ...windowArgs(seen, options.lookbackMinutes) }
      }
    }
  }
  return null
}
