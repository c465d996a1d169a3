import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import {
  AuditSink,
  canonicalInvocationKey,
  InMemoryCanonicalStore,
  makeRun,
  makeRunBudget,
  defaultRunBudgetLimits,
  parseRunId,
  parseToolCallId,
  type RunId,
  runTransition,
  toToolErrorCode,
  TOOL_ERROR_CODES,
  type ToolCallId
} from "../src/index.js"
import { RecordingAuditSink } from "../src/testing/audit-sink.js"
import { runOptions } from "./helpers.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

describe("ids", () => {
  it("accepts UUIDs and model-framework call ids", () =>
    run(
      Effect.gen(function* () {
        expect(yield* parseRunId("27415045-e674-41af-9cea-de01f27ce040")).toBe(
          "27415045-e674-41af-9cea-de01f27ce040"
        )
        expect(yield* parseToolCallId("call_abc123")).toBe("call_abc123")
      })
    ))

  it.each([
    ["", 0],
    ["a:b", 3],
    ["{x}", 3],
    ["a b", 3],
    ["x".repeat(129), 129],
    ["ü", 1]
  ])("rejects %j with a typed InvalidId carrying only the length", (value, length) =>
    run(
      Effect.gen(function* () {
        const error = yield* Effect.flip(parseToolCallId(value))
        expect(error._tag).toBe("InvalidId")
        expect(error.kind).toBe("ToolCallId")
        expect(error.length).toBe(length)
        expect(error.message).not.toContain(value || "\u0000")
      })
    )
  )

  it("rejects non-strings", () =>
    run(
      Effect.gen(function* () {
        expect((yield* Effect.flip(parseRunId(42))).length).toBe(-1)
      })
    ))

  it("key builder uses a per-run hash tag and refuses invalid ids", () => {
    expect(canonicalInvocationKey("aiops", "r1" as RunId, "c1" as ToolCallId)).toBe("aiops:run:{r1}:inv:c1")
    expect(() => canonicalInvocationKey("aiops", "r}1" as RunId, "c1" as ToolCallId)).toThrow(TypeError)
  })

  it("a key prefix with a hash tag (or empty) is refused: it would put every run on one slot", () => {
    expect(() => canonicalInvocationKey("{aiops}", "r1" as RunId, "c1" as ToolCallId)).toThrow(TypeError)
    expect(() => InMemoryCanonicalStore.layer({ keyPrefix: "a{b}" })).toThrow(TypeError)
    expect(() => InMemoryCanonicalStore.layer({ keyPrefix: "" })).toThrow(TypeError)
    expect(() => InMemoryCanonicalStore.layer({ ttlMillis: 0 })).toThrow(RangeError)
  })
})

describe("run lifecycle", () => {
  it.each(["FINISHED", "FAILED", "CANCELLED"] as const)("ACTIVE -> %s is legal", (to) =>
    run(Effect.map(runTransition("ACTIVE", to), (s) => expect(s).toBe(to)))
  )

  it.each([
    ["ACTIVE", "ACTIVE"],
    ["FINISHED", "FAILED"],
    ["FAILED", "FINISHED"],
    ["CANCELLED", "ACTIVE"]
  ] as const)("%s -> %s is a typed IllegalRunTransition", (from, to) =>
    run(
      Effect.gen(function* () {
        const error = yield* Effect.flip(runTransition(from, to))
        expect(error._tag).toBe("IllegalRunTransition")
        expect([error.from, error.to]).toEqual([from, to])
      })
    )
  )

  it("finish twice fails, writes RUN_FINISHED once with the ledger total", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink()
        yield* Effect.gen(function* () {
          const r = yield* makeRun(runOptions())
          yield* r.recorder.tokenUsage({
            component: "router",
            componentIndex: 1,
            model: "m",
            usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }
          })
          yield* r.recorder.tokenUsage({
            component: "agent_turn",
            componentIndex: 1,
            model: "m",
            usage: null
          })
          const summary = yield* r.finish({ status: "FINISHED", releaseResult: "DIAGNOSIS_REPORT" })
          expect(summary.totalTokens).toBe(15)
          expect(summary.usageComplete).toBe(false)
          const again = yield* Effect.exit(r.finish({ status: "FAILED" }))
          expect(Exit.isFailure(again)).toBe(true)
          expect(yield* r.state).toBe("FINISHED")
        }).pipe(Effect.provide(audit.layer))
        const events = audit.events as any[]
        expect(events.map((e) => e.type)).toEqual([
          "RUN_STARTED",
          "MODEL_TOKEN_USAGE",
          "MODEL_TOKEN_USAGE",
          "RUN_FINISHED"
        ])
        expect(events.at(-1).payload.run_total_tokens).toBe(15)
        const usages = audit.tokens
        // Missing usage is recorded as unavailable, never as 0.
        expect(usages[1]).toMatchObject({ usageAvailable: false, totalTokens: null, promptTokens: null })
        const finish = audit.finished[0]!
        expect(finish.expected).toEqual({
          timelineEvents: 4,
          agentSteps: 0,
          toolInvocations: 0,
          tokenUsages: 2
        })
        expect(finish.totalTokens).toBe(15)
      })
    ))
})

describe("token totals", () => {
  it("no usage from any model call -> total is null (unknown), never 0", () =>
    run(
      Effect.gen(function* () {
        const r = yield* makeRun(runOptions())
        yield* r.recorder.tokenUsage({ component: "router", componentIndex: 1, model: "m", usage: null })
        const summary = yield* r.finish({ status: "FINISHED" })
        expect(summary.totalTokens).toBeNull()
        expect(summary.usageComplete).toBe(false)
      }).pipe(Effect.provide(AuditSink.noop))
    ))

  it("no model call at all -> total 0, usage complete", () =>
    run(
      Effect.gen(function* () {
        const r = yield* makeRun(runOptions())
        const summary = yield* r.finish({ status: "FAILED" })
        expect(summary.totalTokens).toBe(0)
        expect(summary.usageComplete).toBe(true)
      }).pipe(Effect.provide(AuditSink.noop))
    ))
})

describe("run budget", () => {
  it("concurrent reservations never overspend", () =>
    run(
      Effect.gen(function* () {
        const budget = yield* makeRunBudget({ ...defaultRunBudgetLimits, maxToolCalls: 10 })
        const exits = yield* Effect.all(
          Array.from({ length: 100 }, () => Effect.exit(budget.reserve({ toolCalls: 1 }))),
          { concurrency: "unbounded" }
        )
        expect(exits.filter(Exit.isSuccess).length).toBe(10)
        expect((yield* budget.used).toolCalls).toBe(10)
      })
    ))

  it("a multi-dimension reservation is all or nothing", () =>
    run(
      Effect.gen(function* () {
        const budget = yield* makeRunBudget({ ...defaultRunBudgetLimits, maxRequestBytesPerRun: 100 })
        const error = yield* Effect.flip(budget.reserve({ toolCalls: 1, requestBytes: 101 }))
        expect(error).toMatchObject({
          _tag: "BudgetExhausted",
          dimension: "requestBytes",
          requested: 101,
          remaining: 100
        })
        expect(yield* budget.used).toEqual({ toolCalls: 0, requestBytes: 0, rawBytes: 0, projectionBytes: 0 })
      })
    ))
})

describe("error codes", () => {
  it("every tagged error maps to a stable code; unknown -> INTERNAL_ERROR", () => {
    expect(toToolErrorCode({ _tag: "BackendError", timeout: true })).toBe("BACKEND_TIMEOUT")
    expect(toToolErrorCode({ _tag: "InvocationAlreadyExists" })).toBe("DUPLICATE_TOOL_CALL_ID")
    expect(toToolErrorCode({ _tag: "Whatever" })).toBe("INTERNAL_ERROR")
    expect(TOOL_ERROR_CODES).toContain("STORE_ERROR")
  })
})
