import {
  AuditSink,
  type AuditSinkShape,
  makeRun,
  type RunId,
  routingDecisionEvent,
  type SessionId
} from "@aiops-harness/core"
import { mysqlGate, startFaultProxy, testId } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { buildTrace, makeMysqlAudit, migrate, type MysqlAuditHandle } from "../src/index.js"
import { databaseUrl, rawConnection } from "./mysql-helpers.js"

const mysqlUp = await mysqlGate()
const url = mysqlUp
  ? await databaseUrl("aiops_reliability_audit")
  : "mysql://root@127.0.0.1:3306/aiops_reliability_audit"
if (mysqlUp) await Effect.runPromise(migrate(url))
const target = new URL(url)
const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 3306) })
afterAll(() => proxy.close())

/** Writes of one small run: start, 3 timeline events, one step, one usage, the finish. */
const smallRun = (sink: AuditSinkShape, sessionId: SessionId, runId?: RunId) =>
  Effect.gen(function* () {
    const run = yield* Effect.provideService(
      makeRun({ sessionId, ...(runId ? { runId } : {}), query: "why 500?", authorizedTools: [] }),
      AuditSink,
      sink
    )
    yield* run.recorder.tokenUsage({
      component: "router",
      componentIndex: 1,
      model: "m",
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }
    })
    yield* run.recorder.event(routingDecisionEvent({ intent: "diagnosis", source: "model" }))
    const summary = yield* run.finish({ status: "FINISHED", finalContent: "done" })
    return { runId: run.runId, summary }
  })

const eventually = async <A>(attempt: () => Promise<A>, deadlineMs = 15_000): Promise<A> => {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

const withAudit = <A>(
  config: Parameters<typeof makeMysqlAudit>[0],
  body: (h: MysqlAuditHandle) => Effect.Effect<A, unknown>
) => Effect.runPromise(Effect.scoped(Effect.flatMap(makeMysqlAudit(config), body)))

describe.skipIf(!mysqlUp)("MySQL audit under faults (circuit breaker, dropped writes, repair)", () => {
  it("a blackholed MySQL: the breaker opens after failureThreshold timeouts, later writes fail at once", async () => {
    proxy.blackhole()
    try {
      const result = await withAudit(
        {
          url: proxy.urlFor(url),
          // Far above writeTimeoutMs (only the write limit ends a write), short enough for pool.end().
          connectTimeoutMs: 4000,
          queryTimeoutMs: 4000,
          writeTimeoutMs: 1000,
          breaker: { failureThreshold: 3, resetAfterMs: 60_000 }
        },
        (h) =>
          Effect.gen(function* () {
            const started = Date.now()
            const sessionId = testId("session") as SessionId
            // 4 runs x 7 writes: without a breaker 28 x 1 s, with it about 3 x 1 s.
            const runs = []
            for (let i = 0; i < 4; i++) runs.push(yield* smallRun(h.sink, sessionId))
            const elapsedMs = Date.now() - started
            return { runs, elapsedMs, status: yield* h.status }
          })
      )
      // Generous bound (correctness, not speed): far below the 28 s of waiting out every write.
      expect(result.elapsedMs).toBeLessThan(12_000)
      // start, RUN_STARTED, usage, MODEL_TOKEN_USAGE, ROUTING_DECISION, RUN_FINISHED, finish
      expect(result.runs.map((r) => r.summary.failedWrites)).toEqual([7, 7, 7, 7])
      expect(result.status.breaker).toMatchObject({ state: "OPEN", opened: 1 })
      expect(result.status.breaker.rejected).toBeGreaterThanOrEqual(28 - 3)
      // Every dropped write is counted: 4 runs x 7 writes.
      expect(result.status.droppedWrites).toBe(28)
      // The finish records were lost: remembered for the repair pass.
      expect(result.status.pendingRepairs).toBe(4)
    } finally {
      proxy.restore()
    }
  }, 60_000)

  it("MySQL killed mid-run, then back: the breaker closes and the repair pass marks the run AUDIT_INCOMPLETE", async () => {
    const sessionId = testId("session") as SessionId
    const { midRun, downRun, reads } = await withAudit(
      {
        url: proxy.urlFor(url),
        writeTimeoutMs: 500,
        breaker: { failureThreshold: 2, resetAfterMs: 200, openAfterQuietMs: 0 }
      },
      (h) =>
        Effect.gen(function* () {
          // Started while MySQL answers, killed before it finishes.
          const run = yield* Effect.provideService(
            makeRun({ sessionId, query: "mid-run", authorizedTools: [] }),
            AuditSink,
            h.sink
          )
          proxy.kill()
          yield* run.recorder.event(routingDecisionEvent({ intent: "diagnosis", source: "model" }))
          yield* run.finish({ status: "FINISHED", finalContent: "x" })
          // A whole run while MySQL is down: no row at all yet.
          const down = yield* smallRun(h.sink, sessionId)
          const before = yield* h.status
          expect(before.breaker.state).toBe("OPEN")
          proxy.restore()
          yield* Effect.promise(() =>
            eventually(async () => {
              const s = await Effect.runPromise(h.status)
              if (s.breaker.state !== "CLOSED" || s.pendingRepairs !== 0) throw new Error("not repaired yet")
            })
          )
          const reads = {
            mid: yield* h.trace.getTrace(sessionId, run.runId),
            down: yield* h.trace.getTrace(sessionId, down.runId)
          }
          return { midRun: run.runId, downRun: down.runId, reads }
        })
    )
    expect(midRun).not.toBe(downRun)
    for (const trace of [reads.mid, reads.down]) {
      expect(trace.run.status).toBe("AUDIT_INCOMPLETE")
      expect(trace.reconciliation.audit_complete).toBe(false)
      expect(trace.reconciliation.counts_match).toBe(false)
      expect(trace.reconciliation.missing_writes).toBeGreaterThan(0)
    }
    // The finish record was written by the repair: what the run expected is known.
    expect(reads.down.run.expected).toMatchObject({ timeline_events: 4, token_usages: 1 })
    expect(reads.down.reconciliation.run_start_recorded).toBe(false)
    expect(reads.mid.reconciliation.run_start_recorded).toBe(true)
  }, 60_000)

  it("startup repair: a run left RUNNING past staleRunMs becomes AUDIT_INCOMPLETE, a fresh one stays RUNNING", async () => {
    const sessionId = testId("session")
    const stale = testId("run")
    const fresh = testId("run")
    const conn = await rawConnection(url)
    try {
      await conn.query(
        "INSERT INTO diagnosis_run (run_id, session_id, `query`, status, started_at) VALUES (?, ?, 'q', 'RUNNING', ?), (?, ?, 'q', 'RUNNING', ?)",
        [stale, sessionId, Date.now() - 60_000, fresh, sessionId, Date.now()]
      )
    } finally {
      await conn.end()
    }
    const { staleTrace, freshTrace, report } = await withAudit({ url, staleRunMs: 30_000 }, (h) =>
      Effect.gen(function* () {
        return {
          report: yield* h.lastRepair,
          staleTrace: yield* h.trace.getTrace(sessionId, stale),
          freshTrace: yield* h.trace.getTrace(sessionId, fresh)
        }
      })
    )
    expect(report?.staleRuns).toBeGreaterThanOrEqual(1)
    expect(staleTrace.run.status).toBe("AUDIT_INCOMPLETE")
    expect(staleTrace.reconciliation).toMatchObject({ audit_complete: false, run_finish_recorded: false })
    expect(staleTrace.reconciliation.missing_writes).toBeGreaterThanOrEqual(1)
    expect(freshTrace.run.status).toBe("RUNNING")
  }, 60_000)
})

describe("trace reconciliation of incomplete runs", () => {
  const base = {
    run_id: "r1",
    session_id: "s1",
    query: "q",
    intent: null,
    release_result: null,
    latency_ms: null,
    total_token_count: null,
    usage_complete: null,
    final_content: null,
    started_at: 1,
    finished_at: null,
    expected: null,
    failed_writes: null
  }
  const rows = (run: typeof base & { status: "RUNNING" | "AUDIT_INCOMPLETE" }) => ({
    sessionId: "s1",
    runId: "r1",
    run,
    timeline: [{ seq: 1, type: "RUN_STARTED" as const, at: 1, payload: { query_chars: 5 } }],
    agentSteps: [],
    toolInvocations: [],
    tokenLedger: []
  })

  it("AUDIT_INCOMPLETE without a finish record: its loss is a missing write", async () => {
    const trace = await Effect.runPromise(buildTrace(rows({ ...base, status: "AUDIT_INCOMPLETE" })))
    expect(trace.reconciliation).toMatchObject({
      counts_match: false,
      audit_complete: false,
      run_finish_recorded: false,
      missing_writes: 1
    })
  })

  it("a RUNNING run is in progress: nothing is known to be missing yet", async () => {
    const trace = await Effect.runPromise(buildTrace(rows({ ...base, status: "RUNNING" })))
    expect(trace.reconciliation).toMatchObject({ audit_complete: false, missing_writes: 0 })
  })
})
