import { RecordingAuditSink } from "@aiops-harness/core/testing"
/**
 * Provider conformance: each provider's documented wire format (fixtures in
 * `fixtures/providers/*.json`, written from the providers' docs) replayed by a loopback server
 * through whole diagnosis runs. Every quirk must end in a defined outcome on the timeline and the
 * token ledger; none may hang or crash the run. The README's "Provider quirks" table says what
 * each case becomes.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  hasEventType,
  InMemoryCanonicalStore,
  type TimelineEventType,
  type TimelinePayload
} from "@aiops-harness/core"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import {
  AGENT_SYSTEM_PROMPT,
  ChatModel,
  type DiagnosisResult,
  OpenAICompatibleModel,
  type OpenAICompatibleOptions,
  ROUTER_SYSTEM_PROMPT,
  runDiagnosis,
  SEMANTIC_GUARD_SYSTEM_PROMPT
} from "../src/index.js"
import { DOCS, knowledgeTool, logLines, logsTool, patternIdOf } from "./helpers.js"

interface Wire {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: unknown
}
interface Fixture {
  readonly provider: string
  readonly docs: ReadonlyArray<string>
  readonly client: {
    readonly path: string
    readonly apiKeyHeader?: string
    readonly query?: Record<string, string>
  }
  readonly completion: Record<string, unknown>
  readonly choice: Record<string, unknown>
  readonly message: Record<string, unknown>
  readonly toolCall: {
    readonly idPrefix: string
    readonly type: string
    readonly arguments: "string" | "object"
    readonly index?: boolean
  }
  readonly usage: Record<string, unknown>
  readonly expectUsage: {
    readonly promptTokens: number
    readonly completionTokens: number
    readonly totalTokens: number
    readonly cachedTokens?: number
    readonly reasoningTokens?: number
  }
  readonly partialUsage: Record<string, unknown>
  readonly expectPartialUsage: {
    readonly promptTokens: number
    readonly completionTokens: number
    readonly totalTokens: number
  } | null
  readonly rateLimited: Wire
  readonly rateLimitedNoRetryAfter: Wire
  readonly serverError: Wire
  readonly contentFilter?: boolean
  readonly stream: {
    readonly chunk: Record<string, unknown>
    readonly usageInEveryChunk: boolean
    readonly keepAliveComments?: boolean
  }
}

const dir = new URL("./fixtures/providers/", import.meta.url)
const FIXTURES: ReadonlyArray<Fixture> = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as Fixture)

// ---- the loopback server ---------------------------------------------------------------------

interface Hit {
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: {
    readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
    readonly stream?: boolean
    readonly stream_options?: unknown
  }
}
type Reply = (res: ServerResponse) => void
type Purpose = "router" | "agent" | "semantic_guard"

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections()
          s.close(r)
        })
    )
  )
})

const purposeOf = (hit: Hit): Purpose => {
  const system = String(hit.body.messages[0]?.content ?? "")
  if (system === ROUTER_SYSTEM_PROMPT) return "router"
  if (system === SEMANTIC_GUARD_SYSTEM_PROMPT) return "semantic_guard"
  // (no assertion here: a throw inside the server would leave the request unanswered)
  return "agent"
}

/** A server on 127.0.0.1 answering by purpose; agent turns are numbered 1, 2, ... (retries included). */
const serve = async (fx: Fixture, answer: (purpose: Purpose, agentHit: number, hit: Hit) => Reply) => {
  const hits: Hit[] = []
  let agentHits = 0
  const server = createServer((req, res) => {
    let data = ""
    req.on("data", (c) => {
      data += c
    })
    req.on("end", () => {
      const hit: Hit = { url: req.url ?? "", headers: req.headers, body: JSON.parse(data || "{}") }
      hits.push(hit)
      if (req.method !== "POST" || !hit.url.startsWith(`${fx.client.path}/chat/completions`)) {
        res.writeHead(404).end()
        return
      }
      const purpose = purposeOf(hit)
      answer(purpose, purpose === "agent" ? ++agentHits : 0, hit)(res)
    })
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  return { hits, baseUrl: `http://127.0.0.1:${port}${fx.client.path}` }
}

const send =
  (wire: Wire): Reply =>
  (res) => {
    res.writeHead(wire.status, { "content-type": "application/json", ...wire.headers })
    res.end(JSON.stringify(wire.body))
  }
const hang: Reply = () => undefined

// ---- documented response shapes ----------------------------------------------------------------

interface Message {
  readonly content?: string | null
  readonly tool_calls?: ReadonlyArray<object>
}
const completion = (
  fx: Fixture,
  message: Message,
  opts: { readonly finishReason?: string; readonly usage?: Record<string, unknown> | null } = {}
): Reply =>
  send({
    status: 200,
    headers: {},
    body: {
      ...fx.completion,
      choices: [
        {
          ...fx.choice,
          message: {
            ...fx.message,
            content: message.content ?? null,
            ...(message.tool_calls ? { tool_calls: message.tool_calls } : {})
          },
          finish_reason: opts.finishReason ?? (message.tool_calls ? "tool_calls" : "stop")
        }
      ],
      ...(opts.usage === null ? {} : { usage: opts.usage ?? fx.usage })
    }
  })

const toolCall = (
  fx: Fixture,
  n: number,
  name: string,
  args: object | string,
  as = fx.toolCall.arguments
) => ({
  ...(fx.toolCall.index ? { index: n - 1 } : {}),
  id: `${fx.toolCall.idPrefix}${n}`,
  type: fx.toolCall.type,
  function: {
    name,
    arguments:
      typeof args === "string" || as === "string"
        ? typeof args === "string"
          ? args
          : JSON.stringify(args)
        : args
  }
})
const callId = (fx: Fixture, n: number) => `${fx.toolCall.idPrefix}${n}`

const POOL_LINES = logLines({
  level: "ERROR",
  service: "checkout-service",
  count: 42,
  message: (i) => `HikariPool-1 - Connection is not available, request timed out after ${30_000 + i * 7}ms`
})
const POOL_ID = patternIdOf(POOL_LINES)
const LOGS_ARGS = { topic: "application", query: "level:ERROR", service: "checkout-service" }
const report = (logsCallId: string) =>
  JSON.stringify({
    summary: "Most likely cause: the database connection pool of checkout-service is exhausted.",
    claims: [
      {
        text: "42 ERROR log lines from checkout-service match the HikariPool connection timeout pattern.",
        citations: [{ tool_call_id: logsCallId, kind: "pattern", ref: POOL_ID }]
      }
    ]
  })
const EMPTY_REPORT = JSON.stringify({ summary: "Nothing supports a cause.", claims: [] })
const routerReply = (fx: Fixture) => completion(fx, { content: '{"intent":"diagnosis"}' })
const judgeReply = (fx: Fixture, hit: Hit) => {
  const input = JSON.parse(String(hit.body.messages.at(-1)?.content ?? "{}")) as { claims?: unknown[] }
  const verdicts = (input.claims ?? []).map((_, claim_index) => ({
    claim_index,
    verdict: "SUPPORTED",
    reason: "cited"
  }))
  return completion(fx, { content: JSON.stringify({ verdicts, summary_verdict: "SUPPORTED" }) })
}

/** The event-stream form of a message: content in small deltas, each tool call in fragments. */
const streamed = (fx: Fixture, message: Message): Reply => {
  const chunk = (choices: object[], usage?: object) =>
    `data: ${JSON.stringify({ ...fx.stream.chunk, choices, ...(usage ? { usage } : fx.stream.usageInEveryChunk ? { usage: null } : {}) })}\n\n`
  const parts: string[] = []
  if (fx.stream.keepAliveComments) parts.push(": keep-alive\n\n")
  parts.push(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]))
  for (const piece of (message.content ?? "").match(/[\s\S]{1,7}/g) ?? []) {
    parts.push(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]))
  }
  for (const [i, call] of (message.tool_calls ?? []).entries()) {
    const c = call as { id: string; function: { name: string; arguments: unknown } }
    const args =
      typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments)
    parts.push(
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: i, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }
            ]
          },
          finish_reason: null
        }
      ])
    )
    for (const piece of args.match(/[\s\S]{1,5}/g) ?? []) {
      parts.push(
        chunk([
          {
            index: 0,
            delta: { tool_calls: [{ index: i, function: { arguments: piece } }] },
            finish_reason: null
          }
        ])
      )
    }
  }
  parts.push(chunk([{ index: 0, delta: {}, finish_reason: message.tool_calls ? "tool_calls" : "stop" }]))
  parts.push(chunk([], fx.usage))
  parts.push("data: [DONE]\n\n")
  return (res) => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" })
    for (const p of parts) res.write(p)
    res.end()
  }
}

// ---- running a diagnosis against the loopback server ---------------------------------------------

const clientOptions = (
  fx: Fixture,
  baseUrl: string,
  more: Partial<OpenAICompatibleOptions> = {}
): OpenAICompatibleOptions => ({
  baseUrl,
  apiKey: "sk-conformance",
  model: "conformance-model",
  timeoutMs: 2_000,
  maxRetries: 2,
  initialBackoffMs: 5,
  maxBackoffMs: 20,
  maxRetryAfterMs: 30,
  ...(fx.client.apiKeyHeader ? { apiKeyHeader: fx.client.apiKeyHeader } : {}),
  ...(fx.client.query ? { query: fx.client.query } : {}),
  ...more
})

const diagnose = async (options: OpenAICompatibleOptions, maxSteps = 4) => {
  const audit = new RecordingAuditSink()
  const result: DiagnosisResult = await Effect.runPromise(
    runDiagnosis(
      { sessionId: "s-conformance", question: "why is checkout returning 500s?" },
      { tools: [knowledgeTool(DOCS), logsTool(POOL_LINES)], maxSteps }
    ).pipe(
      Effect.provide(
        Layer.mergeAll(OpenAICompatibleModel.layer(options), InMemoryCanonicalStore.layer(), audit.layer)
      )
    )
  )
  const events = audit.events
  const payloads = <T extends TimelineEventType>(type: T) =>
    events.filter((e) => hasEventType(e, type)).map((e) => e.payload as TimelinePayload<T>)
  // Whatever happened: one RUN_FINISHED, a ledger entry per attempted model call, totals reconciled.
  expect(payloads("RUN_FINISHED")).toHaveLength(1)
  const modelCalls = 1 + payloads("AGENT_MODEL_STEP").length + payloads("SEMANTIC_GUARD_ATTEMPT").length
  expect(audit.tokens).toHaveLength(modelCalls)
  expect(payloads("MODEL_TOKEN_USAGE")).toHaveLength(modelCalls)
  const available = audit.tokens.filter((t) => t.usageAvailable)
  expect(result.summary.usageComplete).toBe(available.length === audit.tokens.length)
  expect(result.summary.totalTokens).toBe(
    available.length === 0 ? null : available.reduce((sum, t) => sum + (t.totalTokens ?? 0), 0)
  )
  for (const t of audit.tokens.filter((x) => !x.usageAvailable)) {
    expect([t.promptTokens, t.completionTokens, t.totalTokens]).toEqual([null, null, null])
  }
  return { result, audit, payloads, types: events.map((e) => e.type) }
}

const invocations = (
  payloads: (type: "TOOL_INVOCATION") => ReadonlyArray<TimelinePayload<"TOOL_INVOCATION">>
) => payloads("TOOL_INVOCATION").map((p) => [p.tool, p.status, p.error_code])

describe.each(FIXTURES.map((fx) => [fx.provider, fx] as const))("provider conformance: %s", (_name, fx) => {
  it("fixture names its documentation", () => {
    expect(fx.docs.length).toBeGreaterThan(0)
    for (const d of fx.docs) expect(d).toMatch(/^https:\/\//)
  })

  it("parallel tool calls run in order; the report is released; usage is on the ledger", async () => {
    const server = await serve(fx, (purpose, turn, hit) =>
      purpose === "router"
        ? routerReply(fx)
        : purpose === "semantic_guard"
          ? judgeReply(fx, hit)
          : turn === 1
            ? completion(fx, {
                content: null,
                tool_calls: [
                  toolCall(fx, 1, "lookup_knowledge", { query: "checkout 500" }),
                  toolCall(fx, 2, "query_logs", LOGS_ARGS)
                ]
              })
            : completion(fx, { content: report(callId(fx, 2)) })
    )
    const { result, audit, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult, result.content).toBe("DIAGNOSIS_REPORT")
    expect(audit.invocations.map((i) => [i.toolName, i.toolCallId, i.status])).toEqual([
      ["lookup_knowledge", callId(fx, 1), "READY"],
      ["query_logs", callId(fx, 2), "READY"]
    ])
    expect(payloads("AGENT_MODEL_STEP")[0]).toMatchObject({
      outcome: "tool_calls",
      tool_call_count: 2,
      finish_reason: "tool_calls"
    })
    // every call reported the documented usage: 4 ledger entries (router, 2 turns, judge)
    expect(audit.tokens.map((t) => [t.component, t.totalTokens])).toEqual([
      ["router", fx.expectUsage.totalTokens],
      ["agent_turn", fx.expectUsage.totalTokens],
      ["agent_turn", fx.expectUsage.totalTokens],
      ["semantic_guard", fx.expectUsage.totalTokens]
    ])
    expect(result.summary.totalTokens).toBe(4 * fx.expectUsage.totalTokens)
    // the request as the provider documents it: path, query, key header
    const hit = server.hits[0]!
    expect(hit.url).toBe(
      `${fx.client.path}/chat/completions${fx.client.query ? `?${new URLSearchParams(fx.client.query)}` : ""}`
    )
    if (fx.client.apiKeyHeader) {
      expect(hit.headers[fx.client.apiKeyHeader]).toBe("sk-conformance")
      expect(hit.headers.authorization).toBeUndefined()
    } else expect(hit.headers.authorization).toBe("Bearer sk-conformance")
  })

  it("arguments as a JSON object are accepted like a JSON string", async () => {
    const server = await serve(fx, (purpose, turn, hit) =>
      purpose === "router"
        ? routerReply(fx)
        : purpose === "semantic_guard"
          ? judgeReply(fx, hit)
          : turn === 1
            ? completion(fx, { tool_calls: [toolCall(fx, 1, "query_logs", LOGS_ARGS, "object")] })
            : completion(fx, { content: report(callId(fx, 1)) })
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(invocations(payloads)).toEqual([["query_logs", "READY", null]])
    // the next request carries the arguments back as a JSON string, as the format requires
    const echoed = server.hits.at(-2)!.body.messages.find((m) => m.role === "assistant") as unknown as {
      tool_calls: Array<{ function: { arguments: unknown } }>
    }
    expect(JSON.parse(echoed.tool_calls[0]!.function.arguments as string)).toEqual(LOGS_ARGS)
  })

  it("invalid JSON arguments and an unknown tool are refused by the boundary; the run goes on", async () => {
    const server = await serve(fx, (purpose, turn) =>
      purpose === "router"
        ? routerReply(fx)
        : turn === 1
          ? completion(fx, {
              tool_calls: [
                toolCall(fx, 1, "query_logs", '{"topic": "application", "query": "level:ERROR"', "string"),
                toolCall(fx, 2, "restart_pod", { pod: "checkout-service-0" })
              ]
            })
          : completion(fx, { content: EMPTY_REPORT })
    )
    const { result, audit } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    // refused before execution: no invocation status, a stable error code
    expect(audit.invocations.map((i) => [i.toolName, i.status, i.errorCode])).toEqual([
      ["query_logs", null, "INVALID_REQUEST"],
      ["restart_pod", null, "TOOL_NOT_AUTHORIZED"]
    ])
    // the model was told with stable codes only
    const toolMessages = server.hits
      .at(-1)!
      .body.messages.filter((m) => m.role === "tool")
      .map((m) => JSON.parse(String(m.content)))
    expect(toolMessages.map((m) => m.error_code)).toEqual(["INVALID_REQUEST", "TOOL_NOT_AUTHORIZED"])
  })

  it("content and tool calls in one message: the calls run, the content is kept in the history", async () => {
    const server = await serve(fx, (purpose, turn, hit) =>
      purpose === "router"
        ? routerReply(fx)
        : purpose === "semantic_guard"
          ? judgeReply(fx, hit)
          : turn === 1
            ? completion(fx, {
                content: "Let me check the application logs first.",
                tool_calls: [toolCall(fx, 1, "query_logs", LOGS_ARGS)]
              })
            : completion(fx, { content: report(callId(fx, 1)) })
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(invocations(payloads)).toEqual([["query_logs", "READY", null]])
    const assistant = server.hits.at(-2)!.body.messages.find((m) => m.role === "assistant")
    expect(assistant?.content).toBe("Let me check the application logs first.")
  })

  it("finish_reason length: cut tool arguments are refused, a cut report is retried once, then cannot conclude", async () => {
    const server = await serve(fx, (purpose, turn) =>
      purpose === "router"
        ? routerReply(fx)
        : turn === 1
          ? completion(
              fx,
              { tool_calls: [toolCall(fx, 1, "query_logs", '{"topic":"applica', "string")] },
              { finishReason: "length" }
            )
          : completion(fx, { content: report(callId(fx, 1)).slice(0, 40) }, { finishReason: "length" })
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.content).toContain("a draft report in the expected format")
    expect(payloads("AGENT_MODEL_STEP").map((p) => [p.outcome, p.finish_reason])).toEqual([
      ["tool_calls", "length"],
      ["final", "length"],
      ["final", "length"]
    ])
    expect(invocations(payloads)).toEqual([["query_logs", "ERROR", "INVALID_REQUEST"]])
  })

  it("missing usage is unknown on the ledger (never 0); partial usage as documented", async () => {
    const server = await serve(fx, (purpose, turn) =>
      purpose === "router"
        ? completion(fx, { content: '{"intent":"diagnosis"}' }, { usage: null })
        : turn === 1
          ? completion(
              fx,
              { tool_calls: [toolCall(fx, 1, "query_logs", LOGS_ARGS)] },
              { usage: fx.partialUsage }
            )
          : completion(fx, { content: EMPTY_REPORT }, { usage: null })
    )
    const { result, audit } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    const [router, turn1, turn2] = audit.tokens
    expect(router?.usageAvailable).toBe(false)
    expect(turn2?.usageAvailable).toBe(false)
    expect(turn1 && [turn1.promptTokens, turn1.completionTokens, turn1.totalTokens]).toEqual(
      fx.expectPartialUsage
        ? [
            fx.expectPartialUsage.promptTokens,
            fx.expectPartialUsage.completionTokens,
            fx.expectPartialUsage.totalTokens
          ]
        : [null, null, null]
    )
    expect(result.summary.usageComplete).toBe(false)
  })

  it("cached and reasoning tokens are read as details of the documented totals", async () => {
    const server = await serve(fx, () => completion(fx, { content: "ok" }))
    const chat = await Effect.runPromise(
      Effect.gen(function* () {
        return yield* (yield* ChatModel).chat({
          purpose: "agent",
          messages: [
            { role: "system", content: AGENT_SYSTEM_PROMPT },
            { role: "user", content: "hi" }
          ]
        })
      }).pipe(Effect.provide(OpenAICompatibleModel.layer(clientOptions(fx, server.baseUrl))))
    )
    const { cachedTokens, reasoningTokens, ...totals } = fx.expectUsage
    expect(chat.usage).toEqual(totals)
    expect(chat.usageDetails ?? {}).toEqual({
      ...(cachedTokens !== undefined ? { cachedTokens } : {}),
      ...(reasoningTokens !== undefined ? { reasoningTokens } : {})
    })
  })

  it("a rate limit (with its retry hint) and a server error are retried; the run completes", async () => {
    const server = await serve(fx, (purpose, turn, hit) =>
      purpose === "router"
        ? routerReply(fx)
        : purpose === "semantic_guard"
          ? judgeReply(fx, hit)
          : turn === 1
            ? send(fx.rateLimited)
            : turn === 2
              ? send(fx.serverError)
              : turn === 3
                ? completion(fx, { tool_calls: [toolCall(fx, 1, "query_logs", LOGS_ARGS)] })
                : turn === 4
                  ? send(fx.rateLimitedNoRetryAfter)
                  : completion(fx, { content: report(callId(fx, 1)) })
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    // retries are inside one model call: the timeline shows two successful turns
    expect(payloads("AGENT_MODEL_STEP").map((p) => p.outcome)).toEqual(["tool_calls", "final"])
  })

  it("rate limited on every attempt: the run fails (RUN_FAILED), the failed turn is on the ledger as unknown", async () => {
    const server = await serve(fx, (purpose) =>
      purpose === "router" ? routerReply(fx) : send(fx.rateLimitedNoRetryAfter)
    )
    const { result, audit, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(payloads("RUN_FINISHED")[0]).toMatchObject({ status: "FAILED" })
    expect(payloads("AGENT_MODEL_STEP")).toEqual([
      expect.objectContaining({ outcome: "error", error_reason: "RATE_LIMITED" })
    ])
    expect(audit.tokens.at(-1)).toMatchObject({
      component: "agent_turn",
      usageAvailable: false,
      model: "unknown"
    })
    expect(server.hits.filter((h) => purposeOf(h) === "agent")).toHaveLength(3) // 1 + maxRetries
  })

  it("a hung connection times out (TIMEOUT): the run fails, it does not hang", async () => {
    const server = await serve(fx, (purpose) => (purpose === "router" ? routerReply(fx) : hang))
    const { result, payloads } = await diagnose(
      clientOptions(fx, server.baseUrl, { timeoutMs: 100, maxRetries: 1 })
    )
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(payloads("AGENT_MODEL_STEP")).toEqual([
      expect.objectContaining({ outcome: "error", error_reason: "TIMEOUT" })
    ])
  })

  it("a model that never stops calling tools is stopped (STOP_REQUIRED), its extra calls refused", async () => {
    const server = await serve(fx, (purpose, turn) =>
      purpose === "router"
        ? routerReply(fx)
        : completion(fx, {
            tool_calls: [toolCall(fx, turn, "lookup_knowledge", { query: `checkout 500 attempt ${turn}` })]
          })
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl), 4)
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(payloads("STOP_REQUIRED").length).toBe(1)
    const outcomes = payloads("AGENT_MODEL_STEP").map((p) => p.outcome)
    expect(outcomes).toHaveLength(4)
    expect(outcomes.at(-1)).toBe("tool_calls_refused")
    expect(result.stopReason).not.toBeNull()
  })

  it("streams deltas: text and tool-call fragments are joined, usage from the final chunk, the draft's text is streamed", async () => {
    const deltas: string[] = []
    const server = await serve(fx, (purpose, turn, hit) => {
      expect(hit.body.stream).toBe(true)
      expect(hit.body.stream_options).toEqual({ include_usage: true })
      if (purpose === "router") return streamed(fx, { content: '{"intent":"diagnosis"}' })
      if (purpose === "semantic_guard") {
        const input = JSON.parse(String(hit.body.messages.at(-1)?.content ?? "{}")) as { claims?: unknown[] }
        const verdicts = (input.claims ?? []).map((_, claim_index) => ({
          claim_index,
          verdict: "SUPPORTED",
          reason: "cited"
        }))
        return streamed(fx, { content: JSON.stringify({ verdicts, summary_verdict: "SUPPORTED" }) })
      }
      return turn === 1
        ? streamed(fx, {
            tool_calls: [
              toolCall(fx, 1, "lookup_knowledge", { query: "checkout 500" }),
              toolCall(fx, 2, "query_logs", LOGS_ARGS)
            ]
          })
        : streamed(fx, { content: report(callId(fx, 2)) })
    })
    const { result, audit, payloads } = await diagnose(
      clientOptions(fx, server.baseUrl, {
        stream: true,
        onTextDelta: (d, purpose) => {
          if (purpose === "agent") deltas.push(d)
        }
      })
    )
    expect(result.releaseResult, result.content).toBe("DIAGNOSIS_REPORT")
    expect(invocations(payloads)).toEqual([
      ["lookup_knowledge", "READY", null],
      ["query_logs", "READY", null]
    ])
    expect(deltas.length).toBeGreaterThan(5)
    expect(deltas.join("")).toBe(report(callId(fx, 2)))
    expect(audit.tokens.every((t) => t.totalTokens === fx.expectUsage.totalTokens)).toBe(true)
  })

  it.runIf(fx.contentFilter === true)(
    "finish_reason content_filter with no content: retried once for the format, then cannot conclude",
    async () => {
      const server = await serve(fx, (purpose) =>
        purpose === "router"
          ? routerReply(fx)
          : completion(fx, { content: null }, { finishReason: "content_filter" })
      )
      const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl))
      expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
      expect(payloads("AGENT_MODEL_STEP").map((p) => p.finish_reason)).toEqual([
        "content_filter",
        "content_filter"
      ])
    }
  )
})

describe("streamed answers that break the format", () => {
  const fx = FIXTURES.find((f) => f.provider === "OpenAI")!
  it("an event stream with an unparseable chunk is MALFORMED_RESPONSE: the run fails, not crashes", async () => {
    const server = await serve(fx, (purpose) =>
      purpose === "router"
        ? routerReply(fx)
        : (res) => {
            res.writeHead(200, { "content-type": "text/event-stream" })
            res.end('data: {"choices": [{"delta": {"content": "par\n\ndata: [DONE]\n\n')
          }
    )
    const { result, payloads } = await diagnose(clientOptions(fx, server.baseUrl, { stream: true }))
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(payloads("AGENT_MODEL_STEP")).toEqual([
      expect.objectContaining({ outcome: "error", error_reason: "MALFORMED_RESPONSE" })
    ])
  })

  it("a provider that ignores stream: true and answers JSON is read as JSON", async () => {
    const server = await serve(fx, (purpose, _turn, hit) =>
      purpose === "router"
        ? routerReply(fx)
        : purpose === "semantic_guard"
          ? judgeReply(fx, hit)
          : completion(fx, { content: EMPTY_REPORT })
    )
    const { result } = await diagnose(clientOptions(fx, server.baseUrl, { stream: true }))
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
  })
})
