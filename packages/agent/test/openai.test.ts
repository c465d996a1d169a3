import { RecordingAuditSink } from "@aiops-harness/core/testing"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { InMemoryCanonicalStore } from "@aiops-harness/core"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { afterEach, describe, expect, it } from "vitest"
import {
  ChatModel,
  type ChatRequest,
  OpenAICompatibleModel,
  type OpenAICompatibleOptions,
  parseRetryAfter,
  retryDelayMs,
  runDiagnosis,
  toolSpecsFor
} from "../src/index.js"
import { DOCS, knowledgeTool } from "./helpers.js"

interface Hit {
  readonly body: any
  readonly headers: IncomingMessage["headers"]
}
type Reply = (res: ServerResponse, hit: Hit) => void

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

/** A local chat-completions server on 127.0.0.1 (random port) answering from a script. */
const serve = async (script: ReadonlyArray<Reply>) => {
  const hits: Hit[] = []
  const server = createServer((req, res) => {
    let data = ""
    req.on("data", (c) => {
      data += c
    })
    req.on("end", () => {
      const hit = { body: JSON.parse(data || "null"), headers: req.headers }
      hits.push(hit)
      if (req.url !== "/v1/chat/completions" || req.method !== "POST") {
        res.writeHead(404).end()
        return
      }
      const reply = script[hits.length - 1]
      if (!reply) res.writeHead(500).end()
      else reply(res, hit)
    })
  })
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  return { hits, baseUrl: `http://127.0.0.1:${port}/v1` }
}

const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
const completion = (
  message: object,
  usage: object | null = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
) =>
  json({
    id: "x",
    model: "served-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    ...(usage ? { usage } : {})
  })

const options = (baseUrl: string, more: Partial<OpenAICompatibleOptions> = {}): OpenAICompatibleOptions => ({
  baseUrl,
  apiKey: "sk-test",
  model: "test-model",
  timeoutMs: 2_000,
  maxRetries: 2,
  initialBackoffMs: 5,
  maxRetryAfterMs: 50,
  ...more
})

const chat = (opts: OpenAICompatibleOptions, request: ChatRequest) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const model = yield* ChatModel
      return yield* Effect.result(model.chat(request))
    }).pipe(Effect.provide(OpenAICompatibleModel.layer(opts)))
  )

const agentRequest: ChatRequest = {
  purpose: "agent",
  messages: [
    { role: "system", content: "sys" },
    { role: "user", content: "why 500?" },
    {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "call_0", name: "lookup_knowledge", arguments: '{"query":"a"}' }]
    },
    { role: "tool", toolCallId: "call_0", content: '{"tool_call_id":"call_0"}' }
  ],
  tools: toolSpecsFor([knowledgeTool(DOCS)])
}

describe("OpenAICompatibleModel", () => {
  it("a Redacted apiKey is revealed only into the request header (Bearer or a custom header)", async () => {
    const server = await serve([completion({ content: "ok" }), completion({ content: "ok" })])
    const apiKey = Redacted.make("sk-redacted-key")
    const opts = options(server.baseUrl, { apiKey })
    expect(JSON.stringify(opts)).not.toContain("sk-redacted-key")
    expect(String(opts.apiKey)).not.toContain("sk-redacted-key")
    expect((await chat(opts, agentRequest))._tag).toBe("Success")
    expect(server.hits[0]!.headers.authorization).toBe("Bearer sk-redacted-key")
    expect(
      (await chat(options(server.baseUrl, { apiKey, apiKeyHeader: "api-key" }), agentRequest))._tag
    ).toBe("Success")
    expect(server.hits[1]!.headers["api-key"]).toBe("sk-redacted-key")
  })

  it("sends tools as JSON Schema functions and parses tool_calls and usage", async () => {
    const server = await serve([
      completion({
        content: null,
        tool_calls: [
          {
            id: "call_abc",
            type: "function",
            function: { name: "lookup_knowledge", arguments: '{"query":"pool"}' }
          }
        ]
      })
    ])
    const r = await chat(options(server.baseUrl), agentRequest)
    expect(r._tag).toBe("Success")
    if (r._tag !== "Success") return
    expect(r.success).toEqual({
      message: {
        content: null,
        toolCalls: [{ id: "call_abc", name: "lookup_knowledge", arguments: '{"query":"pool"}' }]
      },
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
      model: "served-model",
      finishReason: "stop"
    })
    const { body, headers } = server.hits[0]!
    expect(headers.authorization).toBe("Bearer sk-test")
    expect(body.model).toBe("test-model")
    expect(body.tool_choice).toBe("auto")
    expect(body.tools[0]).toMatchObject({
      type: "function",
      function: {
        name: "lookup_knowledge",
        parameters: {
          type: "object",
          properties: { query: { type: "string", minLength: 1, maxLength: 500 } },
          required: ["query"]
        }
      }
    })
    expect(body.tools[0].function.parameters.$schema).toBeUndefined()
    expect(body.messages[2]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_0", type: "function", function: { name: "lookup_knowledge", arguments: '{"query":"a"}' } }
      ]
    })
    expect(body.messages[3]).toEqual({
      role: "tool",
      tool_call_id: "call_0",
      content: '{"tool_call_id":"call_0"}'
    })
  })

  it("returns usage: null when the provider reports none, and accepts object arguments", async () => {
    const server = await serve([
      completion(
        { content: "hi", tool_calls: [{ id: "", function: { name: "t", arguments: { a: 1 } } }] },
        null
      )
    ])
    const r = await chat(options(server.baseUrl), {
      purpose: "router",
      messages: [{ role: "user", content: "x" }],
      responseFormat: "json"
    })
    expect(r._tag === "Success" && r.success.usage).toBeNull()
    expect(r._tag === "Success" && r.success.message.toolCalls[0]?.arguments).toBe('{"a":1}')
    expect(r._tag === "Success" && r.success.message.toolCalls[0]?.id).toMatch(/^call-/)
    expect(server.hits[0]!.body.response_format).toEqual({ type: "json_object" })
    expect(server.hits[0]!.body.tools).toBeUndefined()
  })

  it("retries a 429 (honouring Retry-After within the cap) and then succeeds", async () => {
    const server = await serve([
      json({ error: "slow down" }, 429, { "retry-after": "1" }),
      completion({ content: "ok" })
    ])
    const r = await chat(options(server.baseUrl), {
      purpose: "router",
      messages: [{ role: "user", content: "x" }]
    })
    expect(r._tag === "Success" && r.success.message.content).toBe("ok")
    expect(server.hits).toHaveLength(2)
  })

  it("fails with a typed ModelError after 500 x (maxRetries + 1)", async () => {
    const server = await serve([
      json({}, 500),
      json({}, 500),
      json({}, 500),
      completion({ content: "too late" })
    ])
    const r = await chat(options(server.baseUrl, { maxRetries: 2 }), { purpose: "agent", messages: [] })
    expect(r._tag).toBe("Failure")
    expect(r._tag === "Failure" && r.failure).toMatchObject({
      _tag: "ModelError",
      reason: "HTTP_STATUS",
      status: 500,
      attempts: 3
    })
    expect(server.hits).toHaveLength(3)
  })

  it("fails with MALFORMED_RESPONSE on a body that is not JSON, or not a completion, without retrying", async () => {
    const server = await serve([
      (res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{not json")
      },
      json({ choices: [] })
    ])
    const r1 = await chat(options(server.baseUrl), { purpose: "agent", messages: [] })
    expect(r1._tag === "Failure" && r1.failure).toMatchObject({
      _tag: "ModelError",
      reason: "MALFORMED_RESPONSE",
      attempts: 1
    })
    const r2 = await chat(options(server.baseUrl), { purpose: "agent", messages: [] })
    expect(r2._tag === "Failure" && r2.failure).toMatchObject({ reason: "MALFORMED_RESPONSE" })
    expect(server.hits).toHaveLength(2)
  })

  it("does not retry other 4xx statuses", async () => {
    const server = await serve([json({ error: "bad key" }, 401), completion({ content: "no" })])
    const r = await chat(options(server.baseUrl), { purpose: "agent", messages: [] })
    expect(r._tag === "Failure" && r.failure).toMatchObject({
      reason: "HTTP_STATUS",
      status: 401,
      attempts: 1
    })
    expect(server.hits).toHaveLength(1)
  })

  it("times out an attempt via AbortSignal and reports TIMEOUT", async () => {
    const server = await serve([
      (res) => setTimeout(() => completion({ content: "late" })(res, null as never), 500)
    ])
    const r = await chat(options(server.baseUrl, { timeoutMs: 50, maxRetries: 0 }), {
      purpose: "agent",
      messages: []
    })
    expect(r._tag === "Failure" && r.failure).toMatchObject({ reason: "TIMEOUT", attempts: 1 })
  })

  it("a server that accepts and never answers gives TIMEOUT, not a hang", async () => {
    const server = await serve([() => undefined, () => undefined]) // never writes a response
    const r = await chat(options(server.baseUrl, { timeoutMs: 200, maxRetries: 1, initialBackoffMs: 10 }), {
      purpose: "agent",
      messages: []
    })
    expect(r._tag === "Failure" && r.failure).toMatchObject({ reason: "TIMEOUT", attempts: 2 })
  })

  it("a fetch that ignores its abort signal is still bounded by the Effect clock", async () => {
    const neverSettles = (() => new Promise<Response>(() => undefined)) as typeof fetch
    // The Effect clock is a TestClock: the bound (timeoutMs + 1 s) passes without waiting for it.
    const r = await Effect.runPromise(
      Effect.gen(function* () {
        const model = yield* ChatModel
        const call = yield* Effect.forkChild(Effect.result(model.chat({ purpose: "agent", messages: [] })))
        yield* Effect.yieldNow
        yield* TestClock.adjust(1_099)
        expect(call.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(1)
        return yield* Fiber.join(call)
      }).pipe(
        Effect.provide(
          Layer.merge(
            OpenAICompatibleModel.layer(
              options("http://127.0.0.1:9/v1", { timeoutMs: 100, maxRetries: 0, fetch: neverSettles })
            ),
            TestClock.layer()
          )
        )
      )
    )
    expect(r._tag === "Failure" && r.failure).toMatchObject({ reason: "TIMEOUT", attempts: 1 })
  })

  it("reports NETWORK when nothing listens", async () => {
    const server = await serve([])
    const url = server.baseUrl
    await new Promise((r) => servers.pop()!.close(r))
    const r = await chat(options(url, { maxRetries: 1 }), { purpose: "agent", messages: [] })
    expect(r._tag === "Failure" && r.failure).toMatchObject({ reason: "NETWORK", attempts: 2 })
  })

  it("computes retry delays: capped Retry-After, else capped exponential backoff", () => {
    const policy = { initialBackoffMs: 100, maxBackoffMs: 1000, maxRetryAfterMs: 5000 }
    expect([1, 2, 3, 4, 5].map((a) => retryDelayMs(a, null, policy))).toEqual([100, 200, 400, 800, 1000])
    expect(retryDelayMs(1, 2000, policy)).toBe(2000)
    expect(retryDelayMs(1, 60_000, policy)).toBe(5000)
  })

  it("parses Retry-After seconds and dates", () => {
    expect(parseRetryAfter("2")).toBe(2000)
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000)
    expect(parseRetryAfter("soon")).toBeNull()
    expect(parseRetryAfter(null)).toBeNull()
  })

  it("drives a whole diagnosis over HTTP; a reply without usage is recorded as usage_available=false", async () => {
    const draft = {
      summary: "pool exhausted",
      claims: [
        {
          text: "The runbook ties HikariPool timeouts to pool exhaustion.",
          citations: [
            { tool_call_id: "call_k1", kind: "document", ref: "runbooks/db-connection-pool-exhaustion.md" }
          ]
        }
      ]
    }
    const server = await serve([
      completion({ content: '{"intent":"diagnosis"}' }),
      completion({
        content: null,
        tool_calls: [
          {
            id: "call_k1",
            type: "function",
            function: { name: "lookup_knowledge", arguments: '{"query":"checkout 500"}' }
          }
        ]
      }),
      completion({ content: JSON.stringify(draft) }, null),
      completion({
        content:
          '{"verdicts":[{"claim_index":0,"verdict":"SUPPORTED","reason":"cited"}],"summary_verdict":"SUPPORTED"}'
      })
    ])
    const audit = new RecordingAuditSink()
    const result = await Effect.runPromise(
      runDiagnosis(
        { sessionId: "s-http", question: "why is checkout returning 500s?" },
        { tools: [knowledgeTool(DOCS)] }
      ).pipe(
        Effect.provide(
          Layer.mergeAll(
            OpenAICompatibleModel.layer(options(server.baseUrl)),
            InMemoryCanonicalStore.layer(),
            audit.layer
          )
        )
      )
    )
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(audit.events).toHaveLength(15)
    const usageEvents = audit.events.filter((e) => e.type === "MODEL_TOKEN_USAGE").map((e) => e.payload)
    expect(usageEvents.map((p) => p.usage_available)).toEqual([true, true, false, true])
    expect(usageEvents[2]?.total_tokens).toBeNull()
    expect(audit.tokens[2]).toMatchObject({
      usageAvailable: false,
      totalTokens: null,
      promptTokens: null
    })
    expect(result.summary.usageComplete).toBe(false)
    expect(result.summary.totalTokens).toBe(54)
    expect(audit.events.at(-1)?.payload).toMatchObject({ run_total_tokens: 54, usage_complete: false })
    // the second agent turn carried the tool result as a `tool` message answering call_k1
    const turn2 = server.hits[2]!.body
    expect(turn2.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_k1" })
    expect(JSON.parse(turn2.messages.at(-1).content)).toMatchObject({
      tool_call_id: "call_k1",
      evidence_status: "EVIDENCE_FOUND"
    })
  })
})
