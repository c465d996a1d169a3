import { Effect, Layer, Option, Ref } from "effect"
import { describe, expect, it } from "vitest"
import {
  AuditSink,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  type ToolDefinition
} from "../src/index.js"
import { RecordingAuditSink } from "../src/testing/audit-sink.js"
import {
  call,
  downStore,
  failingBackendTool,
  knowledgeTool,
  RUN_ID,
  runOptions,
  SECRET,
  setup
} from "./helpers.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** Counts backend executions of a tool. */
const counted = (tool: ToolDefinition, delayMs = 0) =>
  Effect.gen(function* () {
    const count = yield* Ref.make(0)
    const wrapped: ToolDefinition = {
      ...tool,
      execute: (request, context) =>
        Ref.update(count, (n) => n + 1).pipe(
          Effect.andThen(delayMs > 0 ? Effect.sleep(delayMs) : Effect.void),
          Effect.andThen(tool.execute(request, context))
        )
    }
    return { tool: wrapped, count: Ref.get(count) }
  })

describe("ToolBoundary: successful calls", () => {
  it("READY + EVIDENCE_FOUND: bounded observation, control view, canonical record with raw", () =>
    run(
      Effect.gen(function* () {
        const { boundary, store } = yield* setup([knowledgeTool()])
        const outcome = yield* boundary.call({ ...call("call-1"), stepId: "step-1" })
        expect(outcome.error).toBeNull()
        expect(outcome.observation).toEqual({
          tool_call_id: "call-1",
          tool: "lookup_knowledge",
          status: "READY",
          evidence_status: "EVIDENCE_FOUND",
          truncated: false,
          evidence: [{ document_id: "runbook-db", excerpt: "pool exhausted for checkout" }]
        })
        expect(outcome.control).toMatchObject({
          toolCallId: "call-1",
          recordCreated: true,
          status: "READY",
          evidenceStatus: "EVIDENCE_FOUND",
          errorCode: null,
          returnedCount: 1,
          scope: { query: "checkout" }
        })
        // A digest: equal scopes give equal identities, and no request text reaches the audit.
        expect(outcome.control.duplicateIdentity).toMatch(/^lookup_knowledge:[0-9a-f]{32}$/)
        // Control facts never reach the model.
        expect(JSON.stringify(outcome.observation)).not.toContain("returnedCount")
        expect(JSON.stringify(outcome.observation)).not.toContain("budget")
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
        expect(record.status).toBe("READY")
        if (record.status === "READY") {
          expect(record.rawResponse).toEqual({
            hits: [{ id: "runbook-db", text: "pool exhausted for checkout" }]
          })
          expect(record.agentResult).toEqual(outcome.observation)
          expect(record.stepId).toBe("step-1")
        }
      })
    ))

  it("the raw response is serialized once per call, and stored as that JSON text", () =>
    run(
      Effect.gen(function* () {
        let serialized = 0
        const hit = {
          id: "runbook-db",
          text: "pool exhausted",
          toJSON() {
            serialized++
            return { id: this.id, text: this.text, when: new Date(0) }
          }
        }
        const tool = knowledgeTool({
          execute: () => Effect.succeed({ hits: [hit], skipped: undefined } as never)
        })
        const { boundary, store } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-once"))
        expect(outcome.observation.status).toBe("READY")
        expect(serialized).toBe(1)
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-once" as never))
        expect(record.status === "READY" && record.rawResponse).toEqual({
          hits: [{ id: "runbook-db", text: "pool exhausted", when: "1970-01-01T00:00:00.000Z" }]
        })
        expect(outcome.control.rawBytes).toBe(Buffer.byteLength(JSON.stringify({ hits: [hit] }), "utf8"))
        expect(serialized).toBe(2)
      })
    ))

  it("a successful empty result is READY + NO_EVIDENCE, not an error", () =>
    run(
      Effect.gen(function* () {
        const { boundary, store } = yield* setup([knowledgeTool({ hits: [] })])
        const outcome = yield* boundary.call(call("call-empty"))
        expect(outcome.observation.status).toBe("READY")
        expect(outcome.observation.evidence_status).toBe("NO_EVIDENCE")
        expect(outcome.control.errorCode).toBeNull()
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-empty" as never))
        expect([record.status, record.evidenceStatus]).toEqual(["READY", "NO_EVIDENCE"])
      })
    ))

  it("accepts arguments as an already parsed object", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        const outcome = yield* boundary.call({ ...call("call-obj"), arguments: { query: "checkout" } })
        expect(outcome.observation.status).toBe("READY")
      })
    ))
})

describe("ToolBoundary: rule matrix", () => {
  it("run not active -> RUN_NOT_ACTIVE, backend not executed", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary, run } = yield* setup([tool])
        yield* run.finish({ status: "FINISHED" })
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("RUN_NOT_ACTIVE")
        expect(outcome.control.recordCreated).toBe(false)
        expect(yield* count).toBe(0)
      })
    ))

  it("envelope runId differs from the current run -> RUN_MISMATCH", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool])
        const outcome = yield* boundary.call({ ...call("call-1"), runId: "run-other" })
        expect(outcome.observation.error_code).toBe("RUN_MISMATCH")
        expect(yield* count).toBe(0)
      })
    ))

  it.each([
    ["empty", ""],
    ["colon", "call:1"],
    ["hash tag braces", "{run}x"],
    ["whitespace", "call 1"],
    ["glob", "call*"],
    ["too long", "c".repeat(129)],
    ["leading dash", "-call"]
  ])("malformed toolCallId (%s) -> INVALID_TOOL_CALL_ID, nothing created", (_, id) =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool])
        const outcome = yield* boundary.call(call(id))
        expect(outcome.observation.error_code).toBe("INVALID_TOOL_CALL_ID")
        expect(outcome.observation.tool_call_id).toBeNull()
        expect(outcome.control.recordCreated).toBe(false)
        expect(yield* count).toBe(0)
      })
    )
  )

  it("non-string toolCallId -> INVALID_TOOL_CALL_ID", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        const outcome = yield* boundary.call({ ...call("x"), toolCallId: 42 as unknown as string })
        expect(outcome.observation.error_code).toBe("INVALID_TOOL_CALL_ID")
      })
    ))

  it("duplicate toolCallId -> DUPLICATE_TOOL_CALL_ID, the first record is untouched", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary, store } = yield* setup([tool])
        const first = yield* boundary.call(call("call-1"))
        const second = yield* boundary.call(call("call-1", { query: "other" }))
        expect(first.observation.status).toBe("READY")
        expect(second.observation.error_code).toBe("DUPLICATE_TOOL_CALL_ID")
        expect(yield* count).toBe(1)
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
        expect(record.status).toBe("READY")
        expect(record.request).toEqual({ query: "checkout" })
      })
    ))

  it("two concurrent calls with the same id: exactly one executes the backend", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool(), 20)
        const { boundary } = yield* setup([tool])
        const outcomes = yield* Effect.all([boundary.call(call("call-c")), boundary.call(call("call-c"))], {
          concurrency: "unbounded"
        })
        expect(yield* count).toBe(1)
        const codes = outcomes.map((o) => o.observation.error_code ?? o.observation.status).sort()
        expect(codes).toEqual(["DUPLICATE_TOOL_CALL_ID", "READY"])
      })
    ))

  it("a second harness instance sharing the store cannot reuse a toolCallId (create-if-absent)", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const runA = yield* makeRun(runOptions())
        const runB = yield* makeRun(runOptions())
        const a = yield* makeToolBoundary({ run: runA, tools: [tool] })
        const b = yield* makeToolBoundary({ run: runB, tools: [tool] })
        yield* a.call(call("call-shared"))
        const outcome = yield* b.call(call("call-shared"))
        expect(outcome.observation.error_code).toBe("DUPLICATE_TOOL_CALL_ID")
        expect(yield* count).toBe(1)
      }).pipe(Effect.provide(Layer.merge(InMemoryCanonicalStore.layer(), AuditSink.noop)))
    ))

  it("tool not authorized for the run -> TOOL_NOT_AUTHORIZED", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool], { run: { authorizedTools: ["query_logs"] } })
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("TOOL_NOT_AUTHORIZED")
        expect(yield* count).toBe(0)
        expect(boundary.tools).toEqual([])
      })
    ))

  it("authorized but unregistered tool -> UNKNOWN_TOOL", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        const outcome = yield* boundary.call(call("call-1", {}, "query_logs"))
        expect(outcome.observation.error_code).toBe("UNKNOWN_TOOL")
      })
    ))

  it("tool not declared read-only -> TOOL_NOT_READ_ONLY, never executed", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted({ ...knowledgeTool(), name: "write_tool", readOnly: false })
        const { boundary } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1", { query: "x" }, "write_tool"))
        expect(outcome.observation.error_code).toBe("TOOL_NOT_READ_ONLY")
        expect(yield* count).toBe(0)
        expect(boundary.tools.map((t) => t.name)).not.toContain("write_tool")
      })
    ))

  it.each([
    ["not JSON", "{query: checkout"],
    ["missing field", JSON.stringify({})],
    ["wrong type", JSON.stringify({ query: 42 })],
    ["unknown field", JSON.stringify({ query: "x", extra: "drop table" })],
    ["too long value", JSON.stringify({ query: "q".repeat(300) })]
  ])("request invalid for its schema (%s) -> INVALID_REQUEST, nothing created", (_, args) =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary, run } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1", args))
        expect(outcome.observation.error_code).toBe("INVALID_REQUEST")
        expect(outcome.control.recordCreated).toBe(false)
        expect(JSON.stringify(outcome.observation)).not.toContain("drop table")
        expect(yield* count).toBe(0)
        // A refused preflight reserves nothing.
        expect((yield* run.budget.used).toolCalls).toBe(0)
      })
    )
  )

  it("call budget exhausted -> BUDGET_EXHAUSTED", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool], { run: { budget: { maxToolCalls: 1 } } })
        expect((yield* boundary.call(call("call-1"))).observation.status).toBe("READY")
        const second = yield* boundary.call(call("call-2"))
        expect(second.observation.error_code).toBe("BUDGET_EXHAUSTED")
        expect(second.error?._tag === "BudgetExhausted" && second.error.dimension).toBe("toolCalls")
        expect(yield* count).toBe(1)
      })
    ))

  it("request over the per-call limit -> REQUEST_TOO_LARGE", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()], {
          run: { budget: { maxRequestBytesPerCall: 30 } }
        })
        const outcome = yield* boundary.call(call("call-1", { query: "a fairly long query text here" }))
        expect(outcome.observation.error_code).toBe("REQUEST_TOO_LARGE")
      })
    ))

  it("request bytes of the run exhausted -> BUDGET_EXHAUSTED (requestBytes)", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()], {
          run: { budget: { maxRequestBytesPerRun: 30 } }
        })
        expect((yield* boundary.call(call("call-1"))).observation.status).toBe("READY")
        const second = yield* boundary.call(call("call-2"))
        expect(second.observation.error_code).toBe("BUDGET_EXHAUSTED")
        expect(second.error?._tag === "BudgetExhausted" && second.error.dimension).toBe("requestBytes")
      })
    ))

  it("raw over its per-call limit -> RAW_TOO_LARGE: record ERROR, raw neither stored nor exposed", () =>
    run(
      Effect.gen(function* () {
        const big = "Z".repeat(5000)
        const { boundary, store } = yield* setup([knowledgeTool({ hits: [{ id: "big", text: big }] })], {
          run: { budget: { maxRawBytesPerCall: 1000 } }
        })
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("RAW_TOO_LARGE")
        expect(JSON.stringify(outcome)).not.toContain("ZZZZ")
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
        expect([record.status, record.evidenceStatus]).toEqual(["ERROR", "ERROR"])
        expect(JSON.stringify(record)).not.toContain("ZZZZ")
        expect(outcome.control.rawBytes).toBeGreaterThan(1000)
      })
    ))

  it("raw bytes of the run exhausted -> BUDGET_EXHAUSTED (rawBytes)", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()], { run: { budget: { maxRawBytesPerRun: 100 } } })
        expect((yield* boundary.call(call("call-1"))).observation.status).toBe("READY")
        const second = yield* boundary.call(call("call-2"))
        expect(second.observation.error_code).toBe("BUDGET_EXHAUSTED")
        expect(second.error?._tag === "BudgetExhausted" && second.error.dimension).toBe("rawBytes")
      })
    ))

  it("projection bytes of the run exhausted -> BUDGET_EXHAUSTED (projectionBytes)", () =>
    run(
      Effect.gen(function* () {
        const { boundary, store } = yield* setup([knowledgeTool()], {
          run: { budget: { maxProjectionBytesPerRun: 250 } }
        })
        expect((yield* boundary.call(call("call-1"))).observation.status).toBe("READY")
        const second = yield* boundary.call(call("call-2"))
        expect(second.observation.error_code).toBe("BUDGET_EXHAUSTED")
        expect(second.error?._tag === "BudgetExhausted" && second.error.dimension).toBe("projectionBytes")
        expect(Option.getOrThrow(yield* store.get(RUN_ID, "call-2" as never)).status).toBe("ERROR")
      })
    ))

  it("projection over the per-call byte limit -> PROJECTION_ERROR", () =>
    run(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool({ hits: [{ id: "a", text: "x".repeat(80) }] })], {
          run: { budget: { maxProjectionBytesPerCall: 120 } }
        })
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("PROJECTION_ERROR")
      })
    ))

  it("projector failure -> PROJECTION_ERROR, record ERROR", () =>
    run(
      Effect.gen(function* () {
        const { ProjectionError } = yield* Effect.promise(() => import("../src/index.js"))
        const tool = knowledgeTool({
          project: () => Effect.fail(new ProjectionError({ reason: "UNEXPECTED_SHAPE" }))
        })
        const { boundary, store } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("PROJECTION_ERROR")
        expect(Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never)).status).toBe("ERROR")
      })
    ))

  it("projector defect (throw) -> PROJECTION_ERROR", () =>
    run(
      Effect.gen(function* () {
        const tool = knowledgeTool({
          project: () => {
            throw new Error(`boom ${SECRET}`)
          }
        })
        const { boundary } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("PROJECTION_ERROR")
        expect(JSON.stringify(outcome.observation)).not.toContain(SECRET)
      })
    ))

  it("backend failure whose message contains a secret -> BACKEND_ERROR, the secret is in no agent-visible output", () =>
    run(
      Effect.gen(function* () {
        const { boundary, store } = yield* setup([failingBackendTool()])
        const outcome = yield* boundary.call(call("call-1", { query: "x" }, "query_logs"))
        expect(outcome.observation).toEqual({
          tool_call_id: "call-1",
          tool: "query_logs",
          status: "ERROR",
          evidence_status: "ERROR",
          error_code: "BACKEND_ERROR"
        })
        expect(JSON.stringify(outcome.observation)).not.toContain(SECRET)
        expect(JSON.stringify(outcome.control)).not.toContain(SECRET)
        expect(JSON.stringify(outcome.observation)).not.toContain("10.0.0.12")
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
        expect(JSON.stringify(record)).not.toContain(SECRET)
        expect(record.status).toBe("ERROR")
      })
    ))

  it("backend defect (throw) -> BACKEND_ERROR without its text", () =>
    run(
      Effect.gen(function* () {
        const tool = knowledgeTool({
          execute: () => {
            throw new Error(`ECONNREFUSED password=${SECRET}`)
          }
        })
        const { boundary } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("BACKEND_ERROR")
        expect(JSON.stringify(outcome.observation)).not.toContain(SECRET)
      })
    ))

  it("backend over its time limit -> BACKEND_TIMEOUT, record ERROR", () =>
    run(
      Effect.gen(function* () {
        const tool = knowledgeTool({ execute: () => Effect.never, timeoutMillis: 30 })
        const { boundary, store } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("BACKEND_TIMEOUT")
        expect(Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never)).status).toBe("ERROR")
      })
    ))

  it("store down -> STORE_ERROR, backend not executed, no store text leaks", () =>
    run(
      Effect.gen(function* () {
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool], { store: downStore })
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("STORE_ERROR")
        expect(JSON.stringify(outcome.observation)).not.toContain(SECRET)
        expect(yield* count).toBe(0)
      })
    ))

  it("a record over the store's size limit -> RECORD_TOO_LARGE, record ERROR", () =>
    run(
      Effect.gen(function* () {
        const { boundary, store } = yield* setup(
          [knowledgeTool({ hits: [{ id: "a", text: "y".repeat(3000) }] })],
          {
            store: InMemoryCanonicalStore.layer({ maxRecordBytes: 2000 })
          }
        )
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("RECORD_TOO_LARGE")
        expect(Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never)).status).toBe("ERROR")
      })
    ))
})

describe("ToolBoundary: hostile tools and interruption", () => {
  it("a projection cannot forge the envelope (status, ids) -> PROJECTION_ERROR", () =>
    run(
      Effect.gen(function* () {
        const tool = knowledgeTool({
          project: () =>
            Effect.succeed({
              evidenceStatus: "EVIDENCE_FOUND" as const,
              observation: { status: "ERROR", tool_call_id: "forged", evidence: [] },
              truncated: false,
              returnedCount: 0
            })
        })
        const { boundary, store } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("PROJECTION_ERROR")
        expect(outcome.observation.tool_call_id).toBe("call-1")
        const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
        expect(record.status).toBe("ERROR")
      })
    ))

  it("a raw response that is not JSON-serializable (BigInt) -> BACKEND_ERROR, never a defect", () =>
    run(
      Effect.gen(function* () {
        const tool = knowledgeTool({ execute: () => Effect.succeed({ hits: [], n: 10n } as never) })
        const { boundary, store } = yield* setup([tool])
        const outcome = yield* boundary.call(call("call-1"))
        expect(outcome.observation.error_code).toBe("BACKEND_ERROR")
        expect(Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never)).status).toBe("ERROR")
      })
    ))

  it("a circular observation -> PROJECTION_ERROR, never a defect", () =>
    run(
      Effect.gen(function* () {
        const circular: Record<string, unknown> = {}
        circular.self = circular
        const tool = knowledgeTool({
          project: () =>
            Effect.succeed({
              evidenceStatus: "EVIDENCE_FOUND" as const,
              observation: circular as never,
              truncated: false,
              returnedCount: 1
            })
        })
        const { boundary } = yield* setup([tool])
        expect((yield* boundary.call(call("call-1"))).observation.error_code).toBe("PROJECTION_ERROR")
      })
    ))

  it("the projector's byte budget leaves room for the real envelope (long id and tool name)", () =>
    run(
      Effect.gen(function* () {
        const longName = `lookup_knowledge_${"x".repeat(100)}`
        const id = `c${"a".repeat(127)}`
        // A projector that fills its budget exactly.
        const tool = knowledgeTool({
          name: longName,
          project: ({ maxBytes }) =>
            Effect.succeed({
              evidenceStatus: "EVIDENCE_FOUND" as const,
              observation: { pad: "p".repeat(maxBytes - '{"pad":""}'.length) },
              truncated: false,
              returnedCount: 1
            })
        })
        const { boundary } = yield* setup([tool], {
          run: { authorizedTools: [longName], budget: { maxProjectionBytesPerCall: 2048 } }
        })
        const outcome = yield* boundary.call(call(id, { query: "q" }, longName))
        expect(outcome.observation.status).toBe("READY")
        expect(outcome.control.projectionBytes).toBeLessThanOrEqual(2048)
      })
    ))

  it("an interrupted call moves its record to ERROR (CANCELLED) and is audited", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink()
        const result = yield* Effect.gen(function* () {
          const r = yield* makeRun(runOptions())
          const tool = knowledgeTool({ execute: () => Effect.never })
          const boundary = yield* makeToolBoundary({ run: r, tools: [tool] })
          const store = yield* (yield* Effect.promise(() => import("../src/index.js")))
            .CanonicalInvocationStore
          const timedOut = yield* Effect.exit(Effect.timeout(boundary.call(call("call-1")), 50))
          const record = Option.getOrThrow(yield* store.get(RUN_ID, "call-1" as never))
          return { timedOut, record }
        }).pipe(Effect.provide(Layer.merge(InMemoryCanonicalStore.layer(), audit.layer)))
        expect(result.timedOut._tag).toBe("Failure")
        expect([result.record.status, result.record.status === "ERROR" && result.record.errorCode]).toEqual([
          "ERROR",
          "CANCELLED"
        ])
        expect(audit.invocations.map((a) => a.errorCode)).toEqual(["CANCELLED"])
      })
    ))

  it("store failing at the READY transition after the backend ran -> STORE_ERROR", () =>
    run(
      Effect.gen(function* () {
        const { StoreError, CanonicalInvocationStore } = yield* Effect.promise(
          () => import("../src/index.js")
        )
        const memory = yield* InMemoryCanonicalStore.make()
        const flaky = Layer.succeed(CanonicalInvocationStore, {
          ...memory,
          transition: () =>
            Effect.fail(new StoreError({ operation: "transition", reason: "TIMEOUT", cause: SECRET }))
        })
        const { tool, count } = yield* counted(knowledgeTool())
        const { boundary } = yield* setup([tool], { store: flaky })
        const outcome = yield* boundary.call(call("call-1"))
        expect(yield* count).toBe(1)
        expect(outcome.observation.error_code).toBe("STORE_ERROR")
        expect(JSON.stringify(outcome.observation)).not.toContain("pool exhausted")
        expect(JSON.stringify(outcome.observation)).not.toContain(SECRET)
      })
    ))
})

describe("ToolBoundary: durable audit", () => {
  it("writes one tool_invocation row and one TOOL_INVOCATION event, bound to the step", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink()
        yield* Effect.gen(function* () {
          const r = yield* makeRun(runOptions())
          const boundary = yield* makeToolBoundary({ run: r, tools: [knowledgeTool(), failingBackendTool()] })
          yield* boundary.call({ ...call("call-1"), stepId: "step-1" })
          yield* boundary.call({ ...call("call-2", { query: "x" }, "query_logs"), stepId: "step-1" })
        }).pipe(Effect.provide(Layer.merge(InMemoryCanonicalStore.layer(), audit.layer)))
        expect(audit.invocations.map((i) => [i.toolCallId, i.stepId, i.status, i.errorCode])).toEqual([
          ["call-1", "step-1", "READY", null],
          ["call-2", "step-1", "ERROR", "BACKEND_ERROR"]
        ])
        expect(audit.events.map((e) => [e.seq, e.type])).toEqual([
          [1, "RUN_STARTED"],
          [2, "TOOL_INVOCATION"],
          [3, "TOOL_INVOCATION"]
        ])
        expect(JSON.stringify(audit.writes)).not.toContain(SECRET)
        expect(JSON.stringify(audit.writes)).not.toContain("pool exhausted")
      })
    ))

  it("a failing audit sink gives the same tool result as a working one, and the gap is counted", () =>
    run(
      Effect.gen(function* () {
        const outcomeWith = (audit: Layer.Layer<AuditSink>) =>
          Effect.gen(function* () {
            const r = yield* makeRun(runOptions())
            const boundary = yield* makeToolBoundary({
              run: r,
              tools: [knowledgeTool(), failingBackendTool()]
            })
            const ok = yield* boundary.call(call("call-1"))
            const bad = yield* boundary.call(call("call-2", { query: "x" }, "query_logs"))
            const summary = yield* r.recorder.summary
            return { ok: ok.observation, bad: bad.observation, failedWrites: summary.failedWrites }
          }).pipe(Effect.provide(Layer.merge(InMemoryCanonicalStore.layer(), audit)))
        const working = yield* outcomeWith(AuditSink.noop)
        const failing = yield* outcomeWith(AuditSink.failing)
        expect(failing.ok).toEqual(working.ok)
        expect(failing.bad).toEqual(working.bad)
        expect(working.failedWrites).toBe(0)
        // run start + RUN_STARTED + 2 x (tool_invocation + TOOL_INVOCATION)
        expect(failing.failedWrites).toBe(6)
      })
    ))

  it("the durable audit record carries the budget left after the call (counts only) and the duplicate identity", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink()
        const runContext = yield* Effect.provideService(
          makeRun(runOptions({ budget: { maxToolCalls: 5 } })),
          AuditSink,
          audit
        )
        const boundary = yield* makeToolBoundary({
          run: runContext,
          tools: [knowledgeTool(), failingBackendTool()]
        })
        const ok = yield* boundary.call(call("call-b1"))
        yield* boundary.call(call("call-b2", { query: "x" }, "query_logs"))
        const records = audit.invocations as any[]
        expect(records).toHaveLength(2)
        expect(records[0].metadata).toEqual({
          duplicate_identity: ok.control.duplicateIdentity,
          budget_remaining: {
            tool_calls: 4,
            request_bytes: ok.control.budgetRemaining.requestBytes,
            raw_bytes: ok.control.budgetRemaining.rawBytes,
            projection_bytes: ok.control.budgetRemaining.projectionBytes
          }
        })
        // A failed call has no duplicate identity, but still its budget left.
        expect(records[1].metadata.duplicate_identity).toBeUndefined()
        expect(records[1].metadata.budget_remaining.tool_calls).toBe(3)
        expect(JSON.stringify(records)).not.toContain("checkout")
      }).pipe(Effect.provide(InMemoryCanonicalStore.layer()))
    ))
})
