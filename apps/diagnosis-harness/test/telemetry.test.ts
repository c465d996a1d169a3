import { type ChatModel, ModelError, OfflineModel } from "@aiops-harness/agent"
import { ScriptedChatModel, ScriptedTurn } from "@aiops-harness/agent/testing"
import { InMemoryAudit, TraceQuery } from "@aiops-harness/audit"
import { AuditSink, revealed } from "@aiops-harness/core"
import { Effect, Layer } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { InvalidConfig, loadConfig } from "../src/config.js"
import { DEMO_SECRETS, SCENARIOS } from "../src/demo/index.js"
import { type DiagnoseOutcome, diagnose } from "../src/diagnose.js"
import { makeAppRuntime } from "../src/runtime.js"
import { DEFAULT_SERVICE_NAME, telemetryConfigFromEnv } from "../src/telemetry.js"
import { expectNoLeak, NOW } from "./helpers.js"
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js"

const SECRET = DEMO_SECRETS[0]!
/** The demo question with a secret in it: neither may appear in a span. */
const QUESTION = `${SCENARIOS["db-pool-exhaustion"].sampleQuestion} (password=${SECRET})`

/** One run on in-memory backends with spans exported to `receiver`; the runtime is disposed (spans flushed). */
const runExported = async (
  env: Record<string, string>,
  options: { readonly model?: Layer.Layer<ChatModel>; readonly sessionId?: string } = {}
): Promise<DiagnoseOutcome> => {
  const config = loadConfig({ SCENARIO: "db-pool-exhaustion", ...env })
  const handle = await Effect.runPromise(InMemoryAudit.make())
  const auditLayer = Layer.mergeAll(
    Layer.succeed(AuditSink, handle.sink),
    Layer.succeed(TraceQuery, handle.trace)
  )
  const runtime = makeAppRuntime(config, {
    now: NOW,
    auditLayer,
    modelLayer: options.model ?? OfflineModel.layer()
  })
  try {
    return await runtime.runPromise(
      diagnose({ question: QUESTION, sessionId: options.sessionId ?? "s-otel-1" })
    )
  } finally {
    await runtime.dispose()
  }
}

const byName = (spans: ReadonlyArray<ReceivedSpan>, name: string) => spans.filter((s) => s.name === name)
const one = (spans: ReadonlyArray<ReceivedSpan>, name: string) => {
  const found = byName(spans, name)
  expect(
    found.map((s) => s.name),
    `exactly one ${name}`
  ).toEqual([name])
  return found[0]!
}

describe("OpenTelemetry GenAI spans over OTLP/HTTP", () => {
  let receiver: OtlpReceiver
  beforeEach(async () => {
    receiver = await startOtlpReceiver()
  })
  afterEach(async () => {
    await receiver.close()
  })

  it("http/json: a demo run is one span tree that tells the timeline's story, with no content", async () => {
    const { result, trace } = await runExported({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "harness-under-test",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test,service.name=ignored"
    })
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(trace.found).toBe(true)
    if (!trace.found) return
    expect(receiver.requests.length).toBeGreaterThan(0)
    for (const r of receiver.requests) {
      expect(r.path).toBe("/v1/traces")
      expect(r.contentType).toContain("application/json")
    }
    const spans = receiver.spans()
    for (const s of spans) {
      expect(s.resource["service.name"]).toBe("harness-under-test")
      expect(s.resource["deployment.environment"]).toBe("test")
    }

    // The root: invoke_agent, with the session as conversation and the run id of the audit.
    const root = one(spans, "invoke_agent aiops-diagnosis")
    expect(root.parentSpanId).toBeUndefined()
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "aiops-diagnosis",
      "gen_ai.conversation.id": "s-otel-1",
      "gen_ai.provider.name": "aiops-offline",
      "gen_ai.request.model": "offline-rule-v1",
      "aiops.run.id": result.runId,
      "aiops.session.id": "s-otel-1",
      "aiops.release_result": "DIAGNOSIS_REPORT",
      "aiops.intent": "diagnosis",
      "aiops.usage.complete": true
    })
    expect(root.status.code).toBe(1)
    // Every span of the run is in the root's trace.
    for (const s of spans) expect(s.traceId).toBe(root.traceId)
    const ids = new Set(spans.map((s) => s.spanId))
    for (const s of spans)
      if (s !== root) expect(ids.has(s.parentSpanId!), `${s.name} has its parent`).toBe(true)
    const parentName = (s: ReceivedSpan) => spans.find((p) => p.spanId === s.parentSpanId)?.name

    // Router: a span with its decision, its model call a child chat span.
    const router = one(spans, "route_question")
    expect(router.parentSpanId).toBe(root.spanId)
    expect(router.attributes).toMatchObject({
      "aiops.routing.intent": "diagnosis",
      "aiops.routing.source": "model"
    })

    const chats = byName(spans, "chat offline-rule-v1")
    for (const chat of chats) {
      expect(chat.kind).toBe(3) // CLIENT
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "aiops-offline",
        "gen_ai.request.model": "offline-rule-v1",
        "gen_ai.response.model": "offline-rule-v1"
      })
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0)
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0)
    }
    const purposes = chats.map((c) => [c.attributes["aiops.chat.purpose"], parentName(c)])
    expect(purposes.filter(([p]) => p === "router")).toEqual([["router", "route_question"]])
    expect(purposes.filter(([p]) => p === "semantic_guard")).toEqual([
      ["semantic_guard", "guard semantic_guard"]
    ])
    const agentChats = purposes.filter(([p]) => p === "agent")
    expect(agentChats.length).toBe(trace.trace.agent_steps.length)
    for (const [, parent] of agentChats) expect(parent).toBe("invoke_agent aiops-diagnosis")

    // Token sums: chat spans = invoke_agent = the audit's ledger.
    const ledger = trace.trace.token_ledger
    const sum = (key: string) => chats.reduce((n, c) => n + (c.attributes[key] as number), 0)
    expect(chats.length).toBe(ledger.length)
    expect(sum("gen_ai.usage.input_tokens")).toBe(ledger.reduce((n, e) => n + (e.prompt_tokens ?? 0), 0))
    expect(sum("gen_ai.usage.output_tokens")).toBe(ledger.reduce((n, e) => n + (e.completion_tokens ?? 0), 0))
    expect(root.attributes["gen_ai.usage.input_tokens"]).toBe(sum("gen_ai.usage.input_tokens"))
    expect(root.attributes["gen_ai.usage.output_tokens"]).toBe(sum("gen_ai.usage.output_tokens"))

    // Tools: one execute_tool span per audited invocation, same ids, step ids and statuses.
    const audited = trace.trace.agent_steps.flatMap((s) =>
      s.tool_invocations.map((t) => ({ ...t, step_id: s.step_id }))
    )
    const tools = spans.filter((s) => s.name.startsWith("execute_tool "))
    expect(tools.length).toBe(audited.length)
    expect(tools.length).toBeGreaterThan(1)
    for (const t of audited) {
      const span = tools.find((s) => s.attributes["gen_ai.tool.call.id"] === t.tool_call_id)
      expect(span, `span of ${t.tool_call_id}`).toBeDefined()
      expect(span!.name).toBe(`execute_tool ${t.tool_name}`)
      expect(span!.parentSpanId).toBe(root.spanId)
      expect(span!.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": t.tool_name,
        "gen_ai.tool.type": "function",
        "aiops.run.id": result.runId,
        "aiops.step.id": t.step_id,
        "aiops.tool.invocation_status": t.status,
        "aiops.tool.evidence_status": t.evidence_status,
        "aiops.tool.request_bytes": t.request_bytes,
        "aiops.tool.projection_bytes": t.projection_bytes
      })
      expect(span!.attributes["gen_ai.tool.call.result"]).toBeUndefined()
    }

    // Guards and the release decision, in the timeline's order.
    const evidence = one(spans, "guard evidence_guard")
    const semantic = one(spans, "guard semantic_guard")
    const release = one(spans, "release_decision")
    for (const s of [evidence, semantic, release]) expect(s.parentSpanId).toBe(root.spanId)
    expect(evidence.attributes).toMatchObject({ "aiops.guard.passed": true, "aiops.guard.failures": 0 })
    expect(semantic.attributes).toMatchObject({
      "aiops.guard.passed": true,
      "aiops.guard.verdict": "SUPPORTED"
    })
    expect(release.attributes).toMatchObject({
      "aiops.release.decision": "PUBLISH_REPORT",
      "aiops.release_result": "DIAGNOSIS_REPORT"
    })
    expect(release.events.map((e) => [e.name, e.attributes["aiops.guard.name"]])).toEqual([
      ["gen_ai.guardrail.result", "evidence_guard"],
      ["gen_ai.guardrail.result", "semantic_guard"]
    ])

    // No content by default: no secret, no question, no report text, no message attributes.
    const exported = receiver.requests.map((r) => r.body.toString("utf8")).join("\n")
    expectNoLeak("OTLP export", exported)
    expect(exported).not.toContain(SECRET)
    expect(exported).not.toContain("returning 500s")
    expect(exported).not.toContain(result.content.slice(0, 40))
    expect(exported).not.toContain("gen_ai.output.messages")
    expect(exported).not.toContain("gen_ai.input.messages")
  })

  it("the calm world: the stop decision is an event on invoke_agent with the timeline's reason and step", async () => {
    const { result, trace } = await runExported({
      SCENARIO: "calm",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
    })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(trace.found).toBe(true)
    if (!trace.found) return
    const stop = trace.trace.timeline.find((e) => e.type === "STOP_REQUIRED")
    expect(stop).toBeDefined()
    const root = one(receiver.spans(), "invoke_agent aiops-diagnosis")
    expect(root.events.filter((e) => e.name === "aiops.stop_required").map((e) => e.attributes)).toEqual([
      { "aiops.stop.reason": stop!.payload.reason, "aiops.step.id": stop!.payload.step_id }
    ])
    expect(root.attributes).toMatchObject({
      "aiops.release_result": "CANNOT_CONCLUDE",
      "aiops.stop_reason": result.stopReason
    })
    const release = one(receiver.spans(), "release_decision")
    expect(release.attributes["aiops.release.decision"]).toBe("CANNOT_CONCLUDE")
  })

  it("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT attaches the redacted observation and released report, never raw", async () => {
    const { result } = await runExported({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true"
    })
    const spans = receiver.spans()
    const root = one(spans, "invoke_agent aiops-diagnosis")
    const output = JSON.parse(root.attributes["gen_ai.output.messages"] as string)
    expect(output).toEqual([{ role: "assistant", parts: [{ type: "text", content: result.content }] }])
    const tools = spans.filter((s) => s.name.startsWith("execute_tool "))
    for (const t of tools) {
      const observation = JSON.parse(t.attributes["gen_ai.tool.call.result"] as string)
      expect(observation.tool_call_id).toBe(t.attributes["gen_ai.tool.call.id"])
    }
    expectNoLeak("OTLP export with content", receiver.requests.map((r) => r.body.toString("utf8")).join("\n"))
  })

  it("http/protobuf (the OTel default protocol) posts protobuf bodies", async () => {
    await runExported({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces` })
    expect(receiver.requests.length).toBeGreaterThan(0)
    for (const r of receiver.requests) {
      expect(r.path).toBe("/custom/traces")
      expect(r.contentType).toBe("application/x-protobuf")
    }
    const bytes = Buffer.concat(receiver.requests.map((r) => r.body))
    // Protobuf strings are UTF-8 bytes: the span names and the service name are in there.
    for (const name of [
      "invoke_agent aiops-diagnosis",
      "execute_tool query_logs",
      "release_decision",
      DEFAULT_SERVICE_NAME
    ]) {
      expect(bytes.includes(Buffer.from(name, "utf8")), name).toBe(true)
    }
    expectNoLeak("OTLP protobuf export", bytes.toString("latin1"))
  })

  it("a failed model call is a chat span with error.type = the stable reason, never the provider's text", async () => {
    const error = new ModelError({
      reason: "HTTP_STATUS",
      status: 500,
      attempts: 1,
      detail: `upstream said ${SECRET}`
    })
    // The router falls back to keywords; the first agent turn's failure ends the run.
    const failing = new ScriptedChatModel(
      [ScriptedTurn.fail(error, { purpose: "router" }), ScriptedTurn.fail(error, { purpose: "agent" })],
      { info: { provider: "openai", model: "gpt-test" } }
    )
    const { result } = await runExported(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      { model: failing.layer }
    )
    failing.verify()
    expect(result.releaseResult).toBe("RUN_FAILED")
    const spans = receiver.spans()
    const chats = byName(spans, "chat gpt-test")
    expect(chats.length).toBeGreaterThan(0)
    for (const chat of chats) {
      expect(chat.attributes["error.type"]).toBe("HTTP_STATUS")
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeUndefined()
    }
    const failedAgentTurn = chats.find((c) => c.attributes["aiops.chat.purpose"] === "agent")
    expect(failedAgentTurn?.status.code).toBe(2)
    expect(failedAgentTurn?.status.message).toBe("HTTP_STATUS")
    const root = one(spans, "invoke_agent aiops-diagnosis")
    expect(root.attributes).toMatchObject({ "error.type": "RUN_FAILED", "aiops.usage.complete": false })
    expect(root.attributes["gen_ai.usage.input_tokens"]).toBeUndefined()
    const exported = receiver.requests.map((r) => r.body.toString("utf8")).join("\n")
    expect(exported).not.toContain(SECRET)
    expect(exported).not.toContain("upstream said")
  })

  it("a collector that is down never changes the run (the last flush is bounded by OTEL_EXPORTER_OTLP_TIMEOUT)", async () => {
    await receiver.close()
    const { result, trace } = await runExported({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TIMEOUT: "200"
    })
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(trace.found).toBe(true)
    receiver = await startOtlpReceiver()
  })

  it("exports nothing without an endpoint", async () => {
    expect(loadConfig({}).telemetry).toBeNull()
    const { result } = await runExported({})
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(receiver.requests).toEqual([])
  })
})

describe("telemetryConfigFromEnv", () => {
  it("reads endpoint, protocol, service name, headers and the content flag", () => {
    expect(
      telemetryConfigFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc,x-tenant = t1",
        OTEL_SERVICE_NAME: "svc",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "TRUE"
      })
    ).toMatchObject({
      tracesUrl: "http://127.0.0.1:4318/v1/traces",
      protocol: "http/protobuf",
      serviceName: "svc",
      resourceAttributes: {},
      captureContent: true,
      exportIntervalMs: 5000,
      exportTimeoutMs: 3000
    })
    const withHeaders = telemetryConfigFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc,x-tenant = t1",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod%201, team = sre"
    })
    // Headers carry credentials: Redacted, revealed only into the exporter.
    expect(revealed(withHeaders!.headers)).toEqual({ Authorization: "Basic abc", "x-tenant": "t1" })
    expect(JSON.stringify(withHeaders)).not.toContain("abc")
    expect(withHeaders?.resourceAttributes).toEqual({ "deployment.environment": "prod 1", team: "sre" })
    const langfuse = telemetryConfigFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://cloud.example/api/public/otel",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
    })
    expect(langfuse?.tracesUrl).toBe("https://cloud.example/api/public/otel/v1/traces")
    expect(langfuse?.protocol).toBe("http/json")
    expect(langfuse?.serviceName).toBe(DEFAULT_SERVICE_NAME)
  })

  it("is off when unset or disabled", () => {
    expect(telemetryConfigFromEnv({})).toBeNull()
    expect(telemetryConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBeNull()
    expect(
      telemetryConfigFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_SDK_DISABLED: "true"
      })
    ).toBeNull()
  })

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }, "OTEL_EXPORTER_OTLP_ENDPOINT", "an http(s) URL"],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://x/v1/traces" },
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      "http(s)"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "grpc is not supported"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "xml" },
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "http/protobuf or http/json"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_HEADERS: "secretvalue" },
      "OTEL_EXPORTER_OTLP_HEADERS",
      "key=value"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_HEADERS: "a=%E0%A4%A" },
      "OTEL_EXPORTER_OTLP_HEADERS",
      "URL-encoded"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_BSP_SCHEDULE_DELAY: "0" },
      "OTEL_BSP_SCHEDULE_DELAY",
      "1..600000"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_EXPORTER_OTLP_TIMEOUT: "soon" },
      "OTEL_EXPORTER_OTLP_TIMEOUT",
      "1..600000"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_RESOURCE_ATTRIBUTES: "=x" },
      "OTEL_RESOURCE_ATTRIBUTES",
      "key=value"
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_RESOURCE_ATTRIBUTES: "a=%E0%A4%A" },
      "OTEL_RESOURCE_ATTRIBUTES",
      "URL-encoded"
    ]
  ])("%j is an InvalidConfig naming the variable, never a secret value", (env, field, reason) => {
    let error: unknown
    try {
      telemetryConfigFromEnv(env)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(InvalidConfig)
    expect((error as InvalidConfig).variable).toBe(field)
    expect((error as InvalidConfig).expected).toContain(reason)
    expect((error as InvalidConfig).message).not.toContain("secretvalue")
    // loadConfig reports it too, before anything is built.
    expect(() => loadConfig(env)).toThrow(InvalidConfig)
  })
})
