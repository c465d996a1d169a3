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

  it("auditLayerFromEnv without MYSQL_URL is the in-memory audit", async () => {
    const ok = await Effect.runPromise(
      Effect.gen(function* () {
        const sink = yield* AuditSink
        const query = yield* TraceQuery
        return typeof sink.startRun === "function" && typeof query.getTrace === "function"
      }).pipe(Effect.provide(auditLayerFromEnv({ MYSQL_URL: "  " })))
    )
    expect(ok).toBe(true)
  })
})
