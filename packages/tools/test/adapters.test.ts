import {
  AuditSink,
  BackendError,
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  type RunId,
  type SessionId,
  type ToolCallOutcome,
  type ToolDefinition,
  type ToolCallId
} from "@aiops-harness/core"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import {
  EmbeddedKnowledgeSearch,
  EmbeddedLogBackend,
  KnowledgeSearch,
  type KnowledgeSearchShape,
  LogBackend,
  type LogBackendShape,
  type LogQueryRequest,
  lookupKnowledgeTool,
  lookupKnowledgeToolFromContext,
  queryLogsTool,
  queryLogsToolFromContext,
  toolSpecOf,
  toolSpecs
} from "../src/index.js"
import { LOGS_NOW, logFixturePath, PLANTED_SENSITIVE, runbooksDir } from "./fixtures/logs.js"

const layer = Layer.mergeAll(AuditSink.noop, InMemoryCanonicalStore.layer(), TestClock.layer())

type Call = (toolCallId: string, toolName: string, args: unknown) => Effect.Effect<ToolCallOutcome>

/** Runs `body` with a fresh run + boundary over `tools` at the fixtures' "now". */
const withBoundary = <A>(
  tools: ReadonlyArray<ToolDefinition>,
  body: (call: Call, runId: RunId) => Effect.Effect<A, unknown, CanonicalInvocationStore>
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      yield* TestClock.setTime(LOGS_NOW)
      const run = yield* makeRun({
        sessionId: "session-1" as SessionId,
        query: "why is checkout returning 500s?",
        authorizedTools: tools.map((t) => t.name)
      })
      const boundary = yield* makeToolBoundary({ run, tools })
      return yield* body(
        (toolCallId, toolName, args) =>
          boundary.call({ runId: run.runId, toolCallId, toolName, arguments: args }),
        run.runId
      )
    }).pipe(Effect.provide(layer))
  )

/** The canonical record of one call (the harness's copy, raw response included). */
const recordOf = (runId: RunId, toolCallId: string) =>
  Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    return Option.getOrThrow(yield* store.get(runId, toolCallId as ToolCallId))
  })

const knowledge = () => Effect.runPromise(EmbeddedKnowledgeSearch.fromDirectory(runbooksDir))
const logs = () =>
  Effect.runPromise(
    EmbeddedLogBackend.fromFiles([
      { path: logFixturePath("application.ndjson"), topic: "application" },
      { path: logFixturePath("slow-queries.ndjson") }
    ])
  )

const counting = (search: KnowledgeSearchShape) => {
  const calls: Array<{ query: string; topK: number }> = []
  const spy: KnowledgeSearchShape = {
    search: (r) =>
      Effect.suspend(() => {
        calls.push(r)
        return search.search(r)
      })
  }
  return { spy, calls }
}

describe("lookup_knowledge through the ToolBoundary", () => {
  it("is a read-only tool whose spec is generated from its schema", async () => {
    const tool = lookupKnowledgeTool({ search: await knowledge() })
    expect(tool.readOnly).toBe(true)
    expect(toolSpecOf(tool)).toEqual(toolSpecs[0])
  })

  it("returns projected evidence; traces and scores stay in the canonical record", async () => {
    const tool = lookupKnowledgeTool({ search: await knowledge() })
    const outcome = await withBoundary([tool], (call) =>
      call("call-1", "lookup_knowledge", '{"query":"payment gateway timeout","top_k":3}')
    )
    expect(outcome.error).toBeNull()
    expect(outcome.observation).toMatchObject({
      tool_call_id: "call-1",
      tool: "lookup_knowledge",
      status: "READY",
      evidence_status: "EVIDENCE_FOUND",
      query: "payment gateway timeout"
    })
    const evidence = outcome.observation.evidence as Array<Record<string, unknown>>
    expect(evidence.length).toBeGreaterThan(0)
    expect(evidence.length).toBeLessThanOrEqual(3)
    expect(Object.keys(evidence[0]!).sort()).toEqual(
      ["breadcrumb", "document_id", "excerpt", "relevance_level", "source", "title"].sort()
    )
    expect(evidence[0]?.relevance_level).toBe("HIGH")
    expect(evidence.map((e) => e.document_id)).toContain("checkout-5xx.md#check-the-payment-gateway")
    const text = JSON.stringify(outcome.observation)
    expect(text).not.toContain("retrieval_trace")
    expect(text).not.toContain("score")
    expect(outcome.control.scope).toEqual({ query: "payment gateway timeout", top_k: 3 })
  })

  it("keeps the raw response (with its retrieval trace) in the canonical store", async () => {
    const tool = lookupKnowledgeTool({ search: await knowledge() })
    const record = await withBoundary([tool], (call, runId) =>
      Effect.gen(function* () {
        yield* call("call-1", "lookup_knowledge", { query: "redis latency" })
        return yield* recordOf(runId, "call-1")
      })
    )
    expect(record.status).toBe("READY")
    expect(record.request).toEqual({ query: "redis latency", top_k: 5 })
    expect(JSON.stringify(record.status === "READY" ? record.rawResponse : null)).toContain("retrieval_trace")
  })

  it("a search without hits is READY + NO_EVIDENCE end to end", async () => {
    const tool = lookupKnowledgeTool({ search: await knowledge() })
    const outcome = await withBoundary([tool], (call) =>
      call("call-empty", "lookup_knowledge", { query: "quantum flux capacitor" })
    )
    expect(outcome.error).toBeNull()
    expect(outcome.observation).toMatchObject({
      status: "READY",
      evidence_status: "NO_EVIDENCE",
      evidence: []
    })
    expect(outcome.control).toMatchObject({
      status: "READY",
      evidenceStatus: "NO_EVIDENCE",
      returnedCount: 0
    })
  })

  it("an invalid request never reaches the search", async () => {
    const { spy, calls } = counting(await knowledge())
    const tool = lookupKnowledgeTool({ search: spy })
    const outcomes = await withBoundary([tool], (call) =>
      Effect.all([
        call("c1", "lookup_knowledge", { query: "redis", top_k: 50 }),
        call("c2", "lookup_knowledge", { query: "" }),
        call("c3", "lookup_knowledge", "{not json")
      ])
    )
    expect(outcomes.map((o) => o.observation.error_code)).toEqual([
      "INVALID_REQUEST",
      "INVALID_REQUEST",
      "INVALID_REQUEST"
    ])
    expect(calls).toEqual([])
  })

  it("caps top_k with maxTopK and maps backend failures to BACKEND_ERROR", async () => {
    const { spy, calls } = counting(await knowledge())
    const capped = lookupKnowledgeTool({ search: spy, maxTopK: 2 })
    await withBoundary([capped], (call) => call("c1", "lookup_knowledge", { query: "redis", top_k: 9 }))
    expect(calls).toEqual([{ query: "redis", topK: 2 }])

    const failing = lookupKnowledgeTool({
      search: {
        search: () =>
          Effect.fail(new BackendError({ toolName: "lookup_knowledge", cause: "secret-host:9200 refused" }))
      }
    })
    const outcome = await withBoundary([failing], (call) =>
      call("c1", "lookup_knowledge", { query: "redis" })
    )
    expect(outcome.observation).toEqual({
      tool_call_id: "c1",
      tool: "lookup_knowledge",
      status: "ERROR",
      evidence_status: "ERROR",
      error_code: "BACKEND_ERROR"
    })
  })

  it("equal questions have equal duplicate identities", async () => {
    const tool = lookupKnowledgeTool({ search: await knowledge() })
    const [a, b] = await withBoundary([tool], (call) =>
      Effect.all([
        call("c1", "lookup_knowledge", { query: "Redis  latency" }),
        call("c2", "lookup_knowledge", { query: " redis latency ", top_k: 5 })
      ])
    )
    expect(a?.control.duplicateIdentity).toBe(b?.control.duplicateIdentity)
  })

  it("can take the search from the KnowledgeSearch service", async () => {
    const tool = await Effect.runPromise(
      lookupKnowledgeToolFromContext().pipe(
        Effect.provide(EmbeddedKnowledgeSearch.layerFromDirectory(runbooksDir))
      )
    )
    const outcome = await withBoundary([tool], (call) =>
      call("c1", "lookup_knowledge", { query: "disk full" })
    )
    expect(outcome.observation.evidence_status).toBe("EVIDENCE_FOUND")
    expect(KnowledgeSearch.key).toBe("@aiops-harness/tools/KnowledgeSearch")
  })
})

const spyBackend = (backend: LogBackendShape) => {
  const calls: LogQueryRequest[] = []
  const spy: LogBackendShape = {
    query: (r) =>
      Effect.suspend(() => {
        calls.push(r)
        return backend.query(r)
      })
  }
  return { spy, calls }
}

describe("query_logs through the ToolBoundary", () => {
  it("projects logs with secrets, IPs and hosts removed; the canonical raw keeps them", async () => {
    const tool = queryLogsTool({ backend: await logs(), sourceLimit: 500 })
    const { outcome, record } = await withBoundary([tool], (call, runId) =>
      Effect.gen(function* () {
        const outcome = yield* call("call-logs", "query_logs", {
          topic: "application",
          query: "*",
          lookback_minutes: 180
        })
        return { outcome, record: yield* recordOf(runId, "call-logs") }
      })
    )
    expect(outcome.error).toBeNull()
    expect(outcome.observation).toMatchObject({
      status: "READY",
      evidence_status: "EVIDENCE_FOUND",
      source_kind: "embedded_ndjson",
      scope: {
        topic: "application",
        query: "*",
        service: null,
        start_time: "2025-03-14T07:00:00.000Z",
        end_time: "2025-03-14T10:00:00.000Z"
      }
    })
    expect((outcome.observation.patterns as unknown[]).length).toBeGreaterThan(0)
    expect((outcome.observation.timeline as unknown[]).length).toBeGreaterThan(0)
    expect(outcome.control.returnedCount).toBe(10)
    const text = JSON.stringify(outcome.observation)
    for (const sensitive of PLANTED_SENSITIVE) expect(text, sensitive).not.toContain(sensitive)
    expect(text).toContain("PaymentGatewayTimeout")
    // Raw is the harness's internal fact: it still has everything.
    const raw = JSON.stringify(record.status === "READY" ? record.rawResponse : null)
    for (const sensitive of PLANTED_SENSITIVE) expect(raw, sensitive).toContain(sensitive)
  })

  it("computes the window from the boundary clock and injects source limit and default service", async () => {
    const { spy, calls } = spyBackend(await logs())
    const tool = queryLogsTool({ backend: spy, sourceLimit: 7, defaultService: "checkout" })
    const outcomes = await withBoundary([tool], (call) =>
      Effect.all([
        call("c1", "query_logs", { topic: "application", query: "level:ERROR", lookback_minutes: 15 }),
        call("c2", "query_logs", { topic: "application", query: "level:ERROR", service: "cart" })
      ])
    )
    expect(calls).toEqual([
      {
        topic: "application",
        query: "level:ERROR",
        service: "checkout",
        startTime: LOGS_NOW - 15 * 60_000,
        endTime: LOGS_NOW,
        limit: 7
      },
      {
        topic: "application",
        query: "level:ERROR",
        service: "cart",
        startTime: LOGS_NOW - 60 * 60_000,
        endTime: LOGS_NOW,
        limit: 7
      }
    ])
    expect(outcomes[0]?.observation).toMatchObject({
      evidence_status: "NO_EVIDENCE",
      scope: { service: "checkout", start_time: "2025-03-14T09:45:00.000Z" }
    })
    expect(outcomes[1]?.observation).toMatchObject({
      evidence_status: "EVIDENCE_FOUND",
      scope: { service: "cart" }
    })
  })

  it("searches an absolute window (start_time/end_time), cut at now; out-of-reach windows are refused", async () => {
    const { spy, calls } = spyBackend(await logs())
    const tool = queryLogsTool({ backend: spy, sourceLimit: 9 })
    const iso = (t: number) => new Date(t).toISOString()
    const outcomes = await withBoundary([tool], (call) =>
      Effect.all([
        call("w1", "query_logs", {
          topic: "application",
          query: "*",
          start_time: iso(LOGS_NOW - 90 * 60_000),
          end_time: iso(LOGS_NOW - 30 * 60_000)
        }),
        // zone offsets are honoured; an end in the future is cut at now
        call("w2", "query_logs", {
          topic: "application",
          query: "level:ERROR",
          start_time: "2025-03-14T10:40:00+02:00",
          end_time: iso(LOGS_NOW + 3_600_000)
        }),
        call("w3", "query_logs", {
          topic: "application",
          query: "*",
          start_time: iso(LOGS_NOW - 1441 * 60_000)
        }),
        call("w4", "query_logs", {
          topic: "application",
          query: "*",
          start_time: iso(LOGS_NOW - 10 * 60_000),
          end_time: iso(LOGS_NOW - 20 * 60_000)
        })
      ])
    )
    expect(calls).toEqual([
      {
        topic: "application",
        query: "*",
        service: null,
        startTime: LOGS_NOW - 90 * 60_000,
        endTime: LOGS_NOW - 30 * 60_000,
        limit: 9
      },
      {
        topic: "application",
        query: "level:ERROR",
        service: null,
        startTime: Date.parse("2025-03-14T08:40:00Z"),
        endTime: LOGS_NOW,
        limit: 9
      }
    ])
    expect(outcomes[0]?.observation).toMatchObject({
      scope: { start_time: iso(LOGS_NOW - 90 * 60_000), end_time: iso(LOGS_NOW - 30 * 60_000) }
    })
    expect(outcomes.slice(2).map((o) => o.observation.error_code)).toEqual([
      "INVALID_REQUEST",
      "INVALID_REQUEST"
    ])
  })

  it("the model cannot set internal controls", async () => {
    const { spy, calls } = spyBackend(await logs())
    const tool = queryLogsTool({ backend: spy, sourceLimit: 5 })
    const outcomes = await withBoundary([tool], (call) =>
      Effect.all([
        call("c1", "query_logs", { topic: "application", query: "*", limit: 100000 }),
        call("c2", "query_logs", { topic: "application", query: "*", start_time: "2020-01-01" }),
        call("c3", "query_logs", { topic: "application", query: "*", lookback_minutes: 100000 })
      ])
    )
    expect(outcomes.map((o) => o.observation.error_code)).toEqual([
      "INVALID_REQUEST",
      "INVALID_REQUEST",
      "INVALID_REQUEST"
    ])
    expect(calls).toEqual([])
  })

  it("a query without matches is READY + NO_EVIDENCE end to end", async () => {
    const tool = queryLogsTool({ backend: await logs(), sourceLimit: 100 })
    const outcome = await withBoundary([tool], (call) =>
      call("c1", "query_logs", { topic: "application", query: 'message:"kernel panic"' })
    )
    expect(outcome.error).toBeNull()
    expect(outcome.observation).toMatchObject({
      status: "READY",
      evidence_status: "NO_EVIDENCE",
      patterns: [],
      timeline: [],
      scope: { topic: "application", query: 'message:"kernel panic"' }
    })
    expect(outcome.control).toMatchObject({
      status: "READY",
      evidenceStatus: "NO_EVIDENCE",
      returnedCount: 0
    })
  })

  it.each(["(level:ERROR", "level:ERROR AND", "response_time:>abc", "message:time~2", "status:[500 TO 599]"])(
    "unsupported syntax %j is INVALID_REQUEST with reason QUERY_SYNTAX, never an empty result",
    async (query) => {
      const tool = queryLogsTool({ backend: await logs(), sourceLimit: 100 })
      const { outcome, record } = await withBoundary([tool], (call, runId) =>
        Effect.gen(function* () {
          const outcome = yield* call("c1", "query_logs", { topic: "application", query })
          return { outcome, record: yield* recordOf(runId, "c1") }
        })
      )
      expect(outcome.observation).toMatchObject({
        status: "ERROR",
        evidence_status: "ERROR",
        error_code: "INVALID_REQUEST"
      })
      expect(outcome.error).toMatchObject({ _tag: "InvalidRequest", reason: "QUERY_SYNTAX" })
      expect(record.status).toBe("ERROR")
    }
  )

  it("a backend error report or failure is BACKEND_ERROR", async () => {
    const reporting = queryLogsTool({
      backend: {
        query: () => Effect.succeed({ error: { code: "UNAVAILABLE", message: "es-node-3 10.0.0.9 down" } })
      },
      sourceLimit: 10
    })
    const failing = queryLogsTool({
      backend: { query: () => Effect.fail(new BackendError({ toolName: "query_logs", timeout: true })) },
      sourceLimit: 10
    })
    const a = await withBoundary([reporting], (call) =>
      call("c1", "query_logs", { topic: "application", query: "*" })
    )
    const b = await withBoundary([failing], (call) =>
      call("c1", "query_logs", { topic: "application", query: "*" })
    )
    expect(a.observation.error_code).toBe("BACKEND_ERROR")
    expect(JSON.stringify(a.observation)).not.toContain("10.0.0.9")
    expect(b.observation.error_code).toBe("BACKEND_TIMEOUT")
  })

  it("normalized scope: case and whitespace do not change the duplicate identity", async () => {
    const tool = queryLogsTool({ backend: await logs(), sourceLimit: 100 })
    const [a, b, c] = await withBoundary([tool], (call) =>
      Effect.all([
        call("c1", "query_logs", { topic: "application", query: "Level:ERROR  timeout" }),
        call("c2", "query_logs", {
          topic: "application",
          query: "level:error timeout",
          lookback_minutes: 60
        }),
        call("c3", "query_logs", { topic: "application", query: "level:error timeout", lookback_minutes: 30 })
      ])
    )
    expect(a?.control.duplicateIdentity).toBe(b?.control.duplicateIdentity)
    expect(c?.control.duplicateIdentity).not.toBe(a?.control.duplicateIdentity)
  })

  it("scopeOf normalizes query, service and window", () => {
    const tool = queryLogsTool({
      backend: { query: () => Effect.die("unused") },
      sourceLimit: 1,
      defaultService: "Checkout"
    })
    expect(
      tool.scopeOf?.(
        { topic: "application", query: " Level:ERROR   AND x ", lookback_minutes: 60 },
        {} as never
      )
    ).toEqual({ topic: "application", query: "level:error and x", service: "checkout", lookback_minutes: 60 })
    expect(() => queryLogsTool({ backend: { query: () => Effect.die("unused") }, sourceLimit: 0 })).toThrow(
      RangeError
    )
  })

  it("can take the backend from the LogBackend service", async () => {
    const tool = await Effect.runPromise(
      queryLogsToolFromContext({ sourceLimit: 10 }).pipe(
        Effect.provide(
          EmbeddedLogBackend.layerFromFiles([
            { path: logFixturePath("application.ndjson"), topic: "application" }
          ])
        )
      )
    )
    const outcome = await withBoundary([tool], (call) =>
      call("c1", "query_logs", { topic: "application", query: "redis" })
    )
    expect(outcome.observation.evidence_status).toBe("EVIDENCE_FOUND")
    expect(LogBackend.key).toBe("@aiops-harness/tools/LogBackend")
  })
})
