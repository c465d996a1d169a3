import { AuditSink, makeRun, type SessionId } from "@aiops-harness/core"
import { testId } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { auditLayerFromEnv, InMemoryAudit, makeInMemoryAudit, TraceQuery } from "../src/index.js"
import { auditConformance } from "./conformance.js"

auditConformance({
  name: "in-memory",
  make: () =>
    Effect.map(makeInMemoryAudit(), (h) => ({ sink: h.sink, trace: h.trace, dump: Effect.sync(h.dump) }))
})

describe("InMemoryAudit.layer", () => {
  it("provides AuditSink and TraceQuery over one store", async () => {
    const trace = await Effect.runPromise(
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const run = yield* makeRun({ sessionId, query: "q", authorizedTools: [] })
        yield* run.finish({ status: "CANCELLED" })
        const query = yield* TraceQuery
        return yield* query.getTrace(sessionId, run.runId)
      }).pipe(Effect.provide(InMemoryAudit.layer))
    )
    expect(trace.run.status).toBe("CANCELLED")
    expect(trace.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"])
    expect(trace.reconciliation).toMatchObject({ audit_complete: true, tokens_reconciled: true })
  })

  it("auditLayerFromEnv without MYSQL_URL is the in-memory audit: a run written and read back", async () => {
    const sessionId = testId("session") as SessionId
    const { runId, trace } = await Effect.runPromise(
      Effect.gen(function* () {
        const run = yield* makeRun({ sessionId, query: "env in-memory", authorizedTools: [] })
        yield* run.recorder.tokenUsage({
          component: "router",
          componentIndex: 1,
          model: "m",
          usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 }
        })
        yield* run.finish({ status: "FINISHED", finalContent: "done" })
        const trace = yield* (yield* TraceQuery).getTrace(sessionId, run.runId)
        return { runId: run.runId, trace }
      }).pipe(Effect.provide(auditLayerFromEnv({ MYSQL_URL: "  " })))
    )
    expect(trace.run).toMatchObject({
      run_id: runId,
      session_id: sessionId,
      query: "env in-memory",
      status: "FINISHED",
      total_token_count: 7,
      final_content: "done"
    })
    expect(trace.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "MODEL_TOKEN_USAGE", "RUN_FINISHED"])
    expect(trace.reconciliation).toMatchObject({ audit_complete: true, tokens_reconciled: true })
  })
})

describe("in-memory audit bound", () => {
  it("keeps the newest maxRuns runs: the oldest run and its rows are forgotten", async () => {
    const sessionId = testId("session") as SessionId
    const { runIds, traces, dump } = await Effect.runPromise(
      Effect.gen(function* () {
        const h = yield* makeInMemoryAudit({ maxRuns: 2 })
        const runIds: string[] = []
        for (let i = 0; i < 3; i++) {
          const run = yield* Effect.provideService(
            makeRun({ sessionId, query: `q${i}`, authorizedTools: [] }),
            AuditSink,
            h.sink
          )
          yield* run.finish({ status: "FINISHED" })
          runIds.push(run.runId)
        }
        const traces = yield* Effect.forEach(runIds, (id) => Effect.exit(h.trace.getTrace(sessionId, id)))
        return { runIds, traces, dump: h.dump() }
      })
    )
    expect(traces[0]?._tag).toBe("Failure")
    expect(traces.slice(1).map((t) => t._tag)).toEqual(["Success", "Success"])
    expect(dump).not.toContain(runIds[0])
  })

  it("rejects a non-positive maxRuns", () => {
    expect(() => Effect.runSync(makeInMemoryAudit({ maxRuns: 0 }))).toThrow(RangeError)
  })
})
