import { HttpAgent, verifyEvents } from "@ag-ui/client"
import { EventSchemas } from "@ag-ui/core/schemas"
import { ChatModel, OfflineModel } from "@aiops-harness/agent"
import { ScriptedChatModel, ScriptedTurn } from "@aiops-harness/agent/testing"
import { InMemoryAudit, TraceQuery } from "@aiops-harness/audit"
import { AuditSink } from "@aiops-harness/core"
import { DefaultChatTransport, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from "ai"
import { Effect, Layer } from "effect"
import type { Hono } from "hono"
import { from, lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { DEMO_SECRETS, SCENARIOS } from "../src/demo/index.js"
import { readTrace } from "../src/diagnose.js"
import { InFlightRuns, makeHttpApp } from "../src/http.js"
import { type AppRuntime, makeAppRuntime } from "../src/runtime.js"
import { type RunningServer, startServer } from "../src/server.js"
import { agUiEncoder } from "../src/streams/ag-ui.js"
import { aiSdkEncoder } from "../src/streams/ai-sdk.js"
import type { RunEvent, SseFrame } from "../src/streams/run-events.js"
import { expectNoLeak, NOW } from "./helpers.js"

const QUESTION = SCENARIOS["db-pool-exhaustion"].sampleQuestion

/** A runtime on in-memory backends with `model` (default: the offline model). */
const makeRuntime = (
  env: Record<string, string> = {},
  model: Layer.Layer<ChatModel> = OfflineModel.layer()
) => {
  const config = loadConfig({ SCENARIO: "db-pool-exhaustion", PORT: "0", ...env })
  const auditLayer = Layer.unwrap(
    Effect.map(InMemoryAudit.make(), (h) =>
      Layer.mergeAll(Layer.succeed(AuditSink, h.sink), Layer.succeed(TraceQuery, h.trace))
    )
  )
  return { config, runtime: makeAppRuntime(config, { now: NOW, auditLayer, modelLayer: model }) }
}

const traceOf = async (runtime: AppRuntime, sessionId: string, runId: string) => {
  const outcome = await runtime.runPromise(readTrace(sessionId, runId))
  if (!outcome.found) throw new Error(`no trace for ${runId}: ${outcome.reason}`)
  return outcome.trace
}

/** The SSE blocks of a raw stream: `id`, `event`, `data` lines, and comment lines. */
const sseBlocks = (text: string) =>
  text
    .split(/\n\n+/)
    .filter((b) => b.trim() !== "")
    .map((block) => {
      const lines = block.split("\n")
      return {
        id: lines.find((l) => l.startsWith("id: "))?.slice(4),
        event: lines.find((l) => l.startsWith("event: "))?.slice(7),
        data: lines
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("\n"),
        comment: lines.every((l) => l.startsWith(":"))
      }
    })

const post = (app: Hono, path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const agUiBody = (threadId: string, runId: string, question = QUESTION) => ({
  threadId,
  runId,
  state: {},
  tools: [],
  context: [],
  forwardedProps: {},
  messages: [{ id: "m-1", role: "user", content: question }]
})

const aiSdkBody = (id: string, question = QUESTION) => ({
  id,
  trigger: "submit-message",
  messages: [{ id: "u-1", role: "user", parts: [{ type: "text", text: question }] }]
})

describe("AG-UI and AI SDK streams over a real socket", () => {
  let server: RunningServer
  let runtime: AppRuntime
  let base: string
  beforeAll(async () => {
    const built = makeRuntime()
    runtime = built.runtime
    server = await startServer(runtime, built.config)
    base = `http://127.0.0.1:${server.port}`
  })
  afterAll(async () => {
    await server.close()
  })

  it("POST /api/ag-ui: @ag-ui/client's HttpAgent runs it (schemas + event verifier) and the events tell the timeline's story", async () => {
    const agent = new HttpAgent({
      url: `${base}/api/ag-ui`,
      threadId: "s-agui-1",
      initialMessages: [{ id: "m-1", role: "user", content: QUESTION }]
    })
    const events: any[] = []
    const { newMessages } = await agent.runAgent(
      { runId: "r-agui-1" },
      {
        onEvent: ({ event }) => {
          events.push(event)
        }
      }
    )
    const types = events.map((e) => e.type)
    expect(types[0]).toBe("RUN_STARTED")
    expect(events[0]).toMatchObject({ threadId: "s-agui-1", runId: "r-agui-1" })
    expect(types.at(-1)).toBe("RUN_FINISHED")
    for (const e of events) expect(EventSchemas.safeParse(e).success, JSON.stringify(e)).toBe(true)

    const trace = await traceOf(runtime, "s-agui-1", "r-agui-1")
    expect(trace.run.status).toBe("FINISHED")
    // Steps: the timeline's step ids, each started and finished once.
    const started = events.filter((e) => e.type === "STEP_STARTED").map((e) => e.stepName)
    expect(started).toEqual(trace.agent_steps.map((s) => s.step_id))
    expect(events.filter((e) => e.type === "STEP_FINISHED").map((e) => e.stepName)).toEqual(started)
    // Tool calls: the audit's ids; the result is the redacted observation the model got.
    const audited = trace.agent_steps.flatMap((s) => s.tool_invocations)
    const results = events.filter((e) => e.type === "TOOL_CALL_RESULT")
    expect(events.filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallId)).toEqual(
      audited.map((t) => t.tool_call_id)
    )
    expect(results.map((e) => e.toolCallId)).toEqual(audited.map((t) => t.tool_call_id))
    for (const r of results) {
      const observation = JSON.parse(r.content)
      expect(observation.tool_call_id).toBe(r.toolCallId)
      expect(observation.evidence_status).toBe(
        audited.find((t) => t.tool_call_id === r.toolCallId)!.evidence_status
      )
    }
    const args = events.filter((e) => e.type === "TOOL_CALL_ARGS")
    for (const a of args) expect(() => JSON.parse(a.delta)).not.toThrow()
    // Guards and release as CUSTOM events, in order.
    expect(events.filter((e) => e.type === "CUSTOM").map((e) => [e.name, e.value])).toEqual([
      ["aiops.routing", { intent: "diagnosis", source: "model" }],
      ["aiops.evidence_guard", { passed: true, failures: 0 }],
      ["aiops.semantic_guard", { verdict: "SUPPORTED" }],
      ["aiops.release_decision", { decision: "PUBLISH_REPORT" }]
    ])
    // The released report, as the client's new assistant message.
    const content = events.find((e) => e.type === "TEXT_MESSAGE_CONTENT").delta
    expect(content).toBe(trace.run.final_content)
    expect(newMessages.find((m) => m.role === "assistant" && m.content === content)).toBeDefined()
    // Usage per model: adds up to the reconciled ledger.
    const finished = events.at(-1)
    expect(finished.result).toMatchObject({ releaseResult: "DIAGNOSIS_REPORT", intent: "diagnosis" })
    const total = finished.usage.reduce((n: number, u: any) => n + u.totalTokens, 0)
    expect(total).toBe(trace.reconciliation.ledger_total_tokens)
    expect(finished.usage.map((u: any) => u.model)).toEqual(["offline-rule-v1"])
    expectNoLeak("AG-UI events", JSON.stringify(events))
  })

  it("POST /api/ai-sdk/chat: the ai package's transport and readUIMessageStream rebuild the message", async () => {
    const transport = new DefaultChatTransport({ api: `${base}/api/ai-sdk/chat` })
    const stream = await transport.sendMessages({
      chatId: "s-aisdk-1",
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
      messages: [{ id: "u-1", role: "user", parts: [{ type: "text", text: QUESTION }] }]
    })
    let message: UIMessage | undefined
    const errors: unknown[] = []
    for await (const m of readUIMessageStream({
      stream,
      onError: (e) => errors.push(e),
      terminateOnError: true
    })) {
      message = m
    }
    expect(errors).toEqual([])
    expect(message).toBeDefined()
    const metadata = message!.metadata as any
    expect(metadata.sessionId).toBe("s-aisdk-1")
    const trace = await traceOf(runtime, "s-aisdk-1", metadata.runId)
    expect(metadata).toMatchObject({ releaseResult: "DIAGNOSIS_REPORT", intent: "diagnosis" })
    expect(metadata.usage.totalTokens).toBe(trace.reconciliation.ledger_total_tokens)
    expect(metadata.usage.complete).toBe(true)

    const parts = message!.parts as any[]
    expect(parts.filter((p) => p.type === "step-start").length).toBe(trace.agent_steps.length)
    const audited = trace.agent_steps.flatMap((s) => s.tool_invocations)
    const toolParts = parts.filter((p) => p.type.startsWith("tool-"))
    expect(toolParts.map((p) => [p.type, p.toolCallId, p.state])).toEqual(
      audited.map((t) => [`tool-${t.tool_name}`, t.tool_call_id, "output-available"])
    )
    for (const p of toolParts) {
      expect(p.output.tool_call_id).toBe(p.toolCallId)
      expect(typeof p.input).toBe("object")
    }
    expect(parts.filter((p) => p.type.startsWith("data-")).map((p) => [p.type, p.data])).toEqual([
      ["data-routing", { intent: "diagnosis", source: "model" }],
      ["data-evidence-guard", { passed: true, failures: 0 }],
      ["data-semantic-guard", { verdict: "SUPPORTED" }],
      ["data-release-decision", { decision: "PUBLISH_REPORT" }]
    ])
    const text = parts.filter((p) => p.type === "text")
    expect(text.map((p) => [p.text, p.state])).toEqual([[trace.run.final_content, "done"]])
    expectNoLeak("UI message", JSON.stringify(message))
  })

  it("the raw AI SDK stream: protocol header, SSE ids, schema-valid chunks, then [DONE]", async () => {
    const response = await fetch(`${base}/api/ai-sdk/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(aiSdkBody("s-aisdk-2"))
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const blocks = sseBlocks(await response.text()).filter((b) => !b.comment)
    expect(blocks.map((b) => Number(b.id))).toEqual(blocks.map((_, i) => i + 1))
    expect(blocks.at(-1)!.data).toBe("[DONE]")
    const chunks = blocks.slice(0, -1).map((b) => JSON.parse(b.data))
    const schema = uiMessageChunkSchema()
    for (const c of chunks) expect((await schema.validate!(c)).success, JSON.stringify(c)).toBe(true)
    const types = chunks.map((c) => c.type)
    expect(types[0]).toBe("start")
    expect(types.at(-1)).toBe("finish")
    expect(types.filter((t) => t === "start-step").length).toBe(
      types.filter((t) => t === "finish-step").length
    )
    expect(types.slice(-4)).toEqual(["text-start", "text-delta", "text-end", "finish"])
  })
})

/** A model that waits for `gate` before its first answer (to observe a heartbeat deterministically). */
const gatedModel = (gate: Promise<void>) =>
  Layer.effect(
    ChatModel,
    Effect.gen(function* () {
      const inner = yield* ChatModel
      return {
        ...inner,
        chat: (request: Parameters<typeof inner.chat>[0]) =>
          Effect.promise(() => gate).pipe(Effect.andThen(inner.chat(request)))
      }
    })
  ).pipe(Layer.provide(OfflineModel.layer()))

describe.each([
  ["/api/chat", { question: QUESTION, sessionId: "s-hb" }],
  ["/api/ag-ui", agUiBody("s-hb", "r-hb-agui")],
  ["/api/ai-sdk/chat", aiSdkBody("s-hb")]
])("%s SSE framing", (path, body) => {
  it("numbers every event with id: and writes a heartbeat comment while the run is quiet", async () => {
    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const { runtime, config } = makeRuntime({}, gatedModel(gate))
    const app = makeHttpApp(runtime, config, { heartbeatMs: 5 })
    try {
      const response = await post(app, path, body)
      expect(response.status).toBe(200)
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (!text.includes(": heartbeat\n\n"))
        text += decoder.decode((await reader.read()).value, { stream: true })
      open()
      for (;;) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += decoder.decode(chunk.value, { stream: true })
      }
      const blocks = sseBlocks(text)
      expect(blocks.some((b) => b.comment)).toBe(true)
      const framed = blocks.filter((b) => !b.comment)
      expect(framed.map((b) => Number(b.id))).toEqual(framed.map((_, i) => i + 1))
      expect(framed.length).toBeGreaterThan(5)
      expectNoLeak(`${path} stream`, text)
    } finally {
      await runtime.dispose()
    }
  })
})

/** A model whose one call never answers: the run is still going when the client leaves. */
const hungModel = () => new ScriptedChatModel([ScriptedTurn.hang()]).layer

describe.each([
  [
    "/api/chat",
    (s: string) => ({ question: QUESTION, sessionId: s }),
    (text: string) => /"runId":"([^"]+)"/.exec(text)?.[1]
  ],
  [
    "/api/ag-ui",
    (s: string) => agUiBody(s, `${s}-run`),
    (text: string) => /"runId":"([^"]+)"/.exec(text)?.[1]
  ],
  ["/api/ai-sdk/chat", (s: string) => aiSdkBody(s), (text: string) => /"runId":"([^"]+)"/.exec(text)?.[1]]
])("%s: a client that disconnects", (path, body, runIdOf) => {
  it("cancels its run: RUN_FINISHED CANCELLED in the audit", async () => {
    const { runtime, config } = makeRuntime({ SHUTDOWN_GRACE_MS: "100" }, hungModel())
    const server = await startServer(runtime, config)
    const sessionId = `s-gone-${path.replace(/\W/g, "")}`
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body(sessionId))
      })
      const reader = response.body!.getReader()
      const decoder = new TextDecoder()
      let text = ""
      while (runIdOf(text) === undefined)
        text += decoder.decode((await reader.read()).value, { stream: true })
      const runId = runIdOf(text)!
      expect(server.inFlight()).toBe(1)
      await reader.cancel() // the client goes away mid-run

      let status: string | null = null
      for (let i = 0; i < 100 && status !== "CANCELLED"; i++) {
        await new Promise((r) => setTimeout(r, 50))
        const outcome = await runtime.runPromise(readTrace(sessionId, runId))
        status = outcome.found ? outcome.trace.run.status : null
      }
      expect(status).toBe("CANCELLED")
      for (let i = 0; i < 100 && server.inFlight() > 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(server.inFlight()).toBe(0)
    } finally {
      await server.close()
    }
  })
})

describe.each([
  [
    "/api/ag-ui",
    (s: string) => agUiBody(s, `${s}-run`),
    { type: "RUN_FINISHED", outcome: { type: "cancelled" } }
  ],
  ["/api/ai-sdk/chat", (s: string) => aiSdkBody(s), { type: "abort" }]
])("%s during a shutdown", (path, body, last) => {
  it("the open run is cancelled and the stream ends with the protocol's cancellation", async () => {
    const { runtime, config } = makeRuntime({ SHUTDOWN_GRACE_MS: "5000" }, hungModel())
    const server = await startServer(runtime, config)
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body(`s-stop-${path.replace(/\W/g, "")}`))
    })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    while (!text.includes("\n\n")) text += decoder.decode((await reader.read()).value, { stream: true })
    const report = server.shutdown()
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      text += decoder.decode(chunk.value, { stream: true })
    }
    expect((await report).cancelledRuns).toBe(1)
    const data = sseBlocks(text)
      .filter((b) => !b.comment)
      .map((b) => b.data)
    const events = data.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d))
    expect(events.at(-1)).toMatchObject(last)
    if (path === "/api/ai-sdk/chat") expect(data.at(-1)).toBe("[DONE]")
  })
})

describe("request validation of the protocol routes", () => {
  let app: Hono
  let runtime: AppRuntime
  const runs = new InFlightRuns()
  beforeAll(() => {
    const built = makeRuntime()
    runtime = built.runtime
    app = makeHttpApp(runtime, built.config, { runs })
  })
  afterAll(async () => {
    await runtime.dispose()
  })

  const tooLong = "x".repeat(2001)
  it.each([
    ["/api/ag-ui", "not json", "body is not valid JSON"],
    ["/api/ag-ui", [], "body must be a JSON object"],
    ["/api/ag-ui", { ...agUiBody("s-1", "r-1"), threadId: "bad id!" }, "threadId must be 1-128 characters"],
    ["/api/ag-ui", { ...agUiBody("s-1", "r-1"), runId: undefined }, "runId is required"],
    ["/api/ag-ui", { ...agUiBody("s-1", "r-1"), messages: "hi" }, "messages must be an array"],
    [
      "/api/ag-ui",
      { ...agUiBody("s-1", "r-1"), messages: [{ id: "a", role: "assistant", content: "hi" }] },
      "messages must contain a user message"
    ],
    ["/api/ag-ui", agUiBody("s-1", "r-1", "   "), "the last user message has no text"],
    ["/api/ag-ui", agUiBody("s-1", "r-1", tooLong), "question is limited to 2000 characters"],
    ["/api/ai-sdk/chat", { ...aiSdkBody("s-1"), id: 5 }, "id must be a string"],
    ["/api/ai-sdk/chat", { messages: [] }, "id is required"],
    ["/api/ai-sdk/chat", { id: "s-1", messages: [] }, "messages must contain a user message"],
    [
      "/api/ai-sdk/chat",
      { id: "s-1", messages: [{ role: "user", parts: [{ type: "file", url: "x" }] }] },
      "the last user message has no text"
    ],
    ["/api/ai-sdk/chat", aiSdkBody("s-1", tooLong), "question is limited to 2000 characters"]
  ])("%s %j -> 400 %s", async (path, body, message) => {
    const response = await post(app, path, body)
    expect(response.status).toBe(400)
    const json = (await response.json()) as any
    expect(json.error).toBe("INVALID_REQUEST")
    expect(json.message).toContain(message)
  })

  it("takes the text of the last user message (AG-UI content parts; earlier turns are context)", async () => {
    const response = await post(app, "/api/ag-ui", {
      ...agUiBody("s-parts", "r-parts"),
      messages: [
        { id: "1", role: "user", content: "hello" },
        { id: "2", role: "assistant", content: "hi" },
        { id: "3", role: "user", content: [{ type: "text", text: "hello there" }] }
      ]
    })
    expect(response.status).toBe(200)
    const events = sseBlocks(await response.text())
      .filter((b) => !b.comment)
      .map((b) => JSON.parse(b.data))
    expect(events.find((e) => e.type === "CUSTOM" && e.name === "aiops.routing").value.intent).toBe("other")
    expect(events.at(-1).type).toBe("RUN_FINISHED")
    expect(events.at(-1).result.releaseResult).toBe("NOT_A_DIAGNOSIS")
  })

  it("/api/ag-ui: a runId the thread already used is 409 RUN_ID_IN_USE (the first run is untouched)", async () => {
    const first = await post(app, "/api/ag-ui", agUiBody("s-reuse", "r-reuse"))
    expect(first.status).toBe(200)
    await first.text()
    const again = await post(app, "/api/ag-ui", agUiBody("s-reuse", "r-reuse"))
    expect(again.status).toBe(409)
    expect(((await again.json()) as any).error).toBe("RUN_ID_IN_USE")
    const trace = await traceOf(runtime, "s-reuse", "r-reuse")
    expect(trace.run.release_result).toBe("DIAGNOSIS_REPORT")
  })

  it.each(["/api/ag-ui", "/api/ai-sdk/chat"])("%s: 415 without JSON, 405 for GET", async (path) => {
    const wrongType = await post(app, path, "{}", { "content-type": "text/plain" })
    expect(wrongType.status).toBe(415)
    const get = await app.request(path)
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST")
  })

  it("503 SHUTTING_DOWN once the runs are being cancelled", async () => {
    runs.cancelAll()
    for (const [path, body] of [
      ["/api/ag-ui", agUiBody("s-1", "r-1")],
      ["/api/ai-sdk/chat", aiSdkBody("s-1")]
    ] as const) {
      const response = await post(app, path, body)
      expect(response.status).toBe(503)
      expect(((await response.json()) as any).error).toBe("SHUTTING_DOWN")
    }
  })
})

describe("encoders: the ends of a run that did not publish", () => {
  const ids = { sessionId: "s-e", runId: "r-e" }
  const failedResult = {
    sessionId: "s-e",
    runId: "r-e",
    intent: "diagnosis",
    releaseResult: "RUN_FAILED",
    content: "The diagnosis could not be completed because the model was unavailable. Nothing was concluded.",
    report: null,
    summary: {
      timelineEvents: 3,
      agentSteps: 1,
      toolInvocations: 0,
      tokenUsages: 2,
      totalTokens: null,
      usageComplete: false,
      failedWrites: 0
    },
    checked: [],
    evidenceGuard: null,
    semanticGuard: null,
    stopReason: null
  } as const
  const ends: ReadonlyArray<[string, RunEvent]> = [
    ["cancelled", { type: "failed", ids, error: "CANCELLED", message: "the run was cancelled" }],
    [
      "internal",
      { type: "failed", ids, error: "INTERNAL", message: "the diagnosis could not run; see the server log" }
    ],
    [
      "run failed",
      {
        type: "answer",
        ids,
        result: failedResult as any,
        usage: { byModel: [], totalTokens: null, complete: false }
      }
    ]
  ]
  const run = (encoder: { encode: (e: RunEvent) => ReadonlyArray<SseFrame> }, end: RunEvent) =>
    [
      { type: "started", ids } as RunEvent,
      { type: "progress", event: { type: "run_started", session_id: "s-e", run_id: "r-e" } } as RunEvent,
      { type: "progress", event: { type: "agent_step", step_index: 1 } } as RunEvent,
      end
    ].flatMap((e) => encoder.encode(e))

  it.each(ends)(
    "AG-UI %s: valid events the verifier accepts, closed by RUN_FINISHED cancelled or RUN_ERROR",
    async (name, end) => {
      const events = run(agUiEncoder(), end).map((f) => JSON.parse(f.data))
      for (const e of events) expect(EventSchemas.safeParse(e).success, JSON.stringify(e)).toBe(true)
      const verified = await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()))
      expect(verified.length).toBe(events.length)
      expect(events.map((e) => e.type)).toContain("STEP_FINISHED")
      const last = events.at(-1)
      if (name === "cancelled")
        expect(last).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } })
      else
        expect(last).toMatchObject({
          type: "RUN_ERROR",
          code: name === "internal" ? "INTERNAL" : "RUN_FAILED"
        })
    }
  )

  it.each(ends)("AI SDK %s: schema-valid chunks, then [DONE]", async (name, end) => {
    const frames = run(aiSdkEncoder(), end)
    expect(frames.at(-1)!.data).toBe("[DONE]")
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.data))
    const schema = uiMessageChunkSchema()
    for (const c of chunks) expect((await schema.validate!(c)).success, JSON.stringify(c)).toBe(true)
    const last = chunks.at(-1)
    if (name === "cancelled") expect(last.type).toBe("abort")
    else if (name === "internal")
      expect(last).toMatchObject({
        type: "error",
        errorText: "the diagnosis could not run; see the server log"
      })
    else
      expect(last).toMatchObject({
        type: "finish",
        finishReason: "error",
        messageMetadata: { releaseResult: "RUN_FAILED" }
      })
  })

  it("no secret from the demo logs in a stream of a question that carries one", async () => {
    const { runtime, config } = makeRuntime()
    const app = makeHttpApp(runtime, config)
    try {
      for (const [path, body] of [
        ["/api/ag-ui", agUiBody("s-secret", "r-secret", `${QUESTION} password=${DEMO_SECRETS[0]}`)],
        ["/api/ai-sdk/chat", aiSdkBody("s-secret", `${QUESTION} password=${DEMO_SECRETS[0]}`)]
      ] as const) {
        const text = await (await post(app, path, body)).text()
        expect(text.length).toBeGreaterThan(100)
        expectNoLeak(path, text)
      }
    } finally {
      await runtime.dispose()
    }
  })
})
