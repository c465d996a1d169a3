import { AuditSink, AuditWriteError, makeRun, type RunId, type SessionId } from "@aiops-harness/core"
import { mysqlGate, testId } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  AUDIT_TABLES,
  auditLayerFromEnv,
  makeMysqlAudit,
  migrate,
  MysqlAudit,
  type MysqlAuditConfig,
  TraceQuery
} from "../src/index.js"
import { auditConformance, driveRun, failureOf } from "./conformance.js"
import { databaseUrl, dumpDatabase, rawConnection } from "./mysql-helpers.js"

const mysqlUp = await mysqlGate()
const url = mysqlUp ? await databaseUrl("aiops_audit_test") : "mysql://root@127.0.0.1:3306/aiops_audit_test"
if (mysqlUp) await Effect.runPromise(migrate(url))

const backend = (config: Omit<MysqlAuditConfig, "url">) => () =>
  Effect.map(makeMysqlAudit({ url, ...config }), (h) => ({
    sink: h.sink,
    trace: h.trace,
    dump: Effect.promise(() => dumpDatabase(url))
  }))

auditConformance({ name: "MySQL (unbatched)", skip: !mysqlUp, make: backend({}) })
auditConformance({
  name: "MySQL (timeline batched every 4 events / 20 ms)",
  skip: !mysqlUp,
  make: backend({ timelineBatch: { maxEvents: 4, maxDelayMs: 20 } })
})

describe.skipIf(!mysqlUp)("MysqlAudit", () => {
  it("layer: one scoped pool serves AuditSink and TraceQuery; migrate: true is idempotent", async () => {
    const trace = await Effect.runPromise(
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const run = yield* makeRun({ sessionId, query: "layer", authorizedTools: [] })
        yield* run.recorder.tokenUsage({ component: "router", componentIndex: 1, model: "m", usage: null })
        yield* run.finish({ status: "FINISHED" })
        return yield* (yield* TraceQuery).getTrace(sessionId, run.runId)
      }).pipe(Effect.provide(MysqlAudit.layer({ url, migrate: true, connectionLimit: 2 })))
    )
    expect(trace.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "MODEL_TOKEN_USAGE", "RUN_FINISHED"])
    expect(trace.token_ledger[0]).toMatchObject({ usage_available: false, total_tokens: null })
    expect(trace.reconciliation).toMatchObject({
      usage_complete: false,
      tokens_reconciled: true,
      audit_complete: true
    })
  })

  it("a missing usage is stored as usage_available=0 with NULL tokens, never 0", async () => {
    const { run } = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeMysqlAudit({ url }), (h) => driveRun(h.sink, { secondTurnUsage: null }))
      )
    )
    const conn = await rawConnection(url)
    try {
      const [rows] = await conn.query(
        "SELECT usage_available, prompt_tokens, completion_tokens, total_tokens FROM model_token_usage WHERE run_id = ? AND seq = 3",
        [run.runId]
      )
      expect(rows).toEqual([
        { usage_available: 0, prompt_tokens: null, completion_tokens: null, total_tokens: null }
      ])
    } finally {
      await conn.end()
    }
  })

  it("the pool is released with the layer's scope", async () => {
    const pool = await Effect.runPromise(Effect.scoped(Effect.map(makeMysqlAudit({ url }), (h) => h.pool)))
    await expect(pool.query("SELECT 1")).rejects.toThrow()
  })

  it("batched events still buffered are written when the layer is released", async () => {
    const sessionId = testId("session") as SessionId
    const runId = testId("run") as RunId
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* makeMysqlAudit({ url, timelineBatch: { maxEvents: 1000, maxDelayMs: 60_000 } })
          yield* h.sink.startRun({ runId, sessionId, query: "q", startedAt: 1 })
          for (let seq = 1; seq <= 5; seq++) {
            yield* h.sink.appendTimelineEvent({
              runId,
              sessionId,
              seq,
              type: "ROUTING_ATTEMPT",
              at: seq,
              payload: {}
            })
          }
        })
      )
    )
    const trace = await Effect.runPromise(
      Effect.scoped(Effect.flatMap(makeMysqlAudit({ url }), (h) => h.trace.getTrace(sessionId, runId)))
    )
    expect(trace.timeline.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5])
  })

  it("a corrupt row is AuditReadError CORRUPT_RECORD", async () => {
    const sessionId = testId("session")
    const runId = testId("run")
    const conn = await rawConnection(url)
    try {
      await conn.query(
        "INSERT INTO diagnosis_run (run_id, session_id, status, started_at) VALUES (?, ?, 'BOGUS', 1)",
        [runId, sessionId]
      )
    } finally {
      await conn.end()
    }
    const exit = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeMysqlAudit({ url }), (h) => Effect.exit(h.trace.getTrace(sessionId, runId)))
      )
    )
    const error = failureOf(exit)
    expect(error).toMatchObject({ _tag: "AuditReadError", reason: "CORRUPT_RECORD" })
  })

  it("a trace read past queryTimeoutMs is AuditReadError TIMEOUT", async () => {
    const lockedUrl = await databaseUrl("aiops_audit_lock_test")
    await Effect.runPromise(migrate(lockedUrl))
    const conn = await rawConnection(lockedUrl)
    try {
      await conn.query(`LOCK TABLES ${AUDIT_TABLES.map((t) => `${t} WRITE`).join(", ")}`)
      const exit = await Effect.runPromise(
        Effect.scoped(
          Effect.flatMap(makeMysqlAudit({ url: lockedUrl, queryTimeoutMs: 200 }), (h) =>
            Effect.exit(h.trace.getTrace(testId("session"), testId("run")))
          )
        )
      )
      expect(failureOf(exit)).toMatchObject({ _tag: "AuditReadError", reason: "TIMEOUT" })
    } finally {
      await conn.query("UNLOCK TABLES").catch(() => undefined)
      await conn.end()
    }
  })

  it("a server that does not answer: writes fail with AuditWriteError, reads with AuditReadError", async () => {
    const { writeExit, readExit, summary } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* makeMysqlAudit({
            url: "mysql://root@127.0.0.1:1/none",
            connectTimeoutMs: 300,
            queryTimeoutMs: 300
          })
          const writeExit = yield* Effect.exit(
            h.sink.startRun({
              runId: testId("run") as RunId,
              sessionId: testId("session") as SessionId,
              query: "q",
              startedAt: 1
            })
          )
          const readExit = yield* Effect.exit(h.trace.getTrace(testId("session"), testId("run")))
          // Fail-open: a whole run against a dead audit completes, every write counted.
          const run = yield* Effect.provideService(
            makeRun({ sessionId: testId("session") as SessionId, query: "q", authorizedTools: [] }),
            AuditSink,
            h.sink
          )
          const summary = yield* run.finish({ status: "FINISHED" })
          return { writeExit, readExit, summary }
        })
      )
    )
    expect(failureOf(writeExit)).toBeInstanceOf(AuditWriteError)
    expect(failureOf(writeExit).record).toBe("diagnosis_run")
    expect(failureOf(readExit)).toMatchObject({ _tag: "AuditReadError", reason: "UNAVAILABLE" })
    // start, RUN_STARTED, RUN_FINISHED and the finish record
    expect(summary.failedWrites).toBe(4)
  })

  it("a bad config is AuditConfigError", async () => {
    for (const [config, field] of [
      [{ url: "not a url" }, "url"],
      [{ url: "postgres://x/y" }, "url"],
      [{ url, connectionLimit: 0 }, "connectionLimit"],
      [{ url, queryTimeoutMs: -1 }, "queryTimeoutMs"],
      [{ url, timelineBatch: { maxEvents: 0, maxDelayMs: 10 } }, "timelineBatch.maxEvents"]
    ] as const) {
      const exit = await Effect.runPromise(Effect.exit(Effect.scoped(makeMysqlAudit(config))))
      expect(failureOf(exit)).toMatchObject({ _tag: "AuditConfigError", field })
    }
  })

  it("auditLayerFromEnv with MYSQL_URL migrates and uses MySQL", async () => {
    const envUrl = await databaseUrl("aiops_audit_env_test", true)
    const sessionId = testId("session") as SessionId
    const runId = await Effect.runPromise(
      Effect.gen(function* () {
        const run = yield* makeRun({ sessionId, query: "env", authorizedTools: [] })
        yield* run.finish({ status: "FINISHED" })
        return run.runId
      }).pipe(Effect.provide(auditLayerFromEnv({ MYSQL_URL: envUrl })))
    )
    expect(await dumpDatabase(envUrl)).toContain(runId)
  })
})
