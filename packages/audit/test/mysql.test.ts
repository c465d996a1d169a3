import { createServer, type Server, type Socket } from "node:net"
import {
  AuditSink,
  type AuditSinkShape,
  AuditWriteError,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  type RunId,
  type SessionId,
  type ToolDefinition
} from "@aiops-harness/core"
import { mysqlGate, testId } from "@aiops-harness/core/testing"
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
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
import { makeInMemoryAudit } from "../src/index.js"
import { databaseUrl, dumpDatabase, rawConnection } from "./mysql-helpers.js"

const mysqlUp = await mysqlGate()
const url = mysqlUp ? await databaseUrl("aiops_audit_test") : "mysql://root@127.0.0.1:3306/aiops_audit_test"
if (mysqlUp) await Effect.runPromise(migrate(url))

/** A TCP server that accepts connections and never says a word (a hung database). */
const silentServer = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on("error", () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  return {
    url: `mysql://root@127.0.0.1:${port}/hung`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

const echoTool: ToolDefinition<{ query: string }, { evidence: Array<{ source: string }> }> = {
  name: "lookup_knowledge",
  description: "echo",
  readOnly: true,
  requestSchema: z.object({ query: z.string().min(1) }).strict(),
  execute: (req) => Effect.succeed({ evidence: [{ source: `doc-${req.query}` }] }),
  project: ({ raw }) =>
    Effect.succeed({
      evidenceStatus: "EVIDENCE_FOUND",
      observation: { evidence: raw.evidence.map((e) => ({ document_id: e.source })) },
      truncated: false,
      returnedCount: raw.evidence.length
    })
}

/** One tool call through core's run and boundary over `sink`; the outcome and the run's summary. */
const toolCallRun = (sink: AuditSinkShape, sessionId: SessionId, runId: RunId) =>
  Effect.gen(function* () {
    const run = yield* Effect.provideService(
      makeRun({ sessionId, runId, query: "q", authorizedTools: ["lookup_knowledge"] }),
      AuditSink,
      sink
    )
    const boundary = yield* makeToolBoundary({ run, tools: [echoTool] })
    const started = Date.now()
    const outcome = yield* boundary.call({
      runId,
      toolCallId: "call-1",
      toolName: "lookup_knowledge",
      arguments: { query: "pool" },
      stepId: null
    })
    const callMs = Date.now() - started
    const summary = yield* run.finish({ status: "FINISHED" })
    return { outcome, callMs, summary }
  }).pipe(Effect.provide(InMemoryCanonicalStore.layer()))

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
  make: backend({ timelineBatch: { maxEvents: 4, maxDelayMs: 20 } }),
  timelineBuffered: true
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
              payload: { attempt: 1, outcome: "PARSED" }
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

  it("a hung database: each write fails after writeTimeoutMs, the tool result is unchanged, gaps counted", async () => {
    const hung = await silentServer()
    try {
      const sessionId = testId("session") as SessionId
      const runId = testId("run") as RunId
      const result = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            // connect and query limits far above writeTimeoutMs: only the write limit can end these.
            const h = yield* makeMysqlAudit({
              url: hung.url,
              connectTimeoutMs: 20_000,
              queryTimeoutMs: 20_000,
              writeTimeoutMs: 300
            })
            const started = Date.now()
            const writeExit = yield* Effect.exit(
              h.sink.startRun({ runId: testId("run") as RunId, sessionId, query: "q", startedAt: 1 })
            )
            const writeMs = Date.now() - started
            const hungRun = yield* toolCallRun(h.sink, sessionId, runId)
            const memory = yield* makeInMemoryAudit()
            const okRun = yield* toolCallRun(memory.sink, sessionId, runId)
            yield* Effect.promise(() => hung.close())
            return { writeExit, writeMs, hungRun, okRun }
          })
        )
      )
      expect(failureOf(result.writeExit)).toBeInstanceOf(AuditWriteError)
      expect(failureOf(result.writeExit).record).toBe("diagnosis_run")
      // Far below the 20 s connect/query limits (not a timing benchmark: an upper bound).
      expect(result.writeMs).toBeLessThan(10_000)
      expect(result.hungRun.callMs).toBeLessThan(10_000)
      const { latencyMs: _a, ...hungControl } = result.hungRun.outcome.control
      const { latencyMs: _b, ...okControl } = result.okRun.outcome.control
      expect(result.hungRun.outcome.observation).toEqual(result.okRun.outcome.observation)
      expect(hungControl).toEqual(okControl)
      expect(result.hungRun.outcome.control.status).toBe("READY")
      // start, RUN_STARTED, tool invocation, TOOL_INVOCATION event, RUN_FINISHED, finish record
      expect(result.okRun.summary.failedWrites).toBe(0)
      expect(result.hungRun.summary.failedWrites).toBe(6)
    } finally {
      await hung.close()
    }
  })

  it("a locked table: a write fails after writeTimeoutMs with AuditWriteError", async () => {
    const lockedUrl = await databaseUrl("aiops_audit_write_lock_test")
    await Effect.runPromise(migrate(lockedUrl))
    const conn = await rawConnection(lockedUrl)
    try {
      await conn.query("LOCK TABLES diagnosis_run WRITE")
      const { exit, ms } = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const h = yield* makeMysqlAudit({ url: lockedUrl, queryTimeoutMs: 20_000, writeTimeoutMs: 300 })
            const started = Date.now()
            const exit = yield* Effect.exit(
              h.sink.startRun({
                runId: testId("run") as RunId,
                sessionId: testId("session") as SessionId,
                query: "q",
                startedAt: 1
              })
            )
            return { exit, ms: Date.now() - started }
          })
        )
      )
      expect(failureOf(exit)).toMatchObject({ _tag: "AuditWriteError", record: "diagnosis_run" })
      expect(ms).toBeLessThan(10_000)
    } finally {
      await conn.query("UNLOCK TABLES").catch(() => undefined)
      await conn.end()
    }
  })

  it("the pool queue is bounded: a write past queueLimit fails at once with AuditWriteError", async () => {
    const hung = await silentServer()
    try {
      const exits = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const h = yield* makeMysqlAudit({
              url: hung.url,
              connectionLimit: 1,
              queueLimit: 1,
              connectTimeoutMs: 20_000,
              writeTimeoutMs: 500,
              // The startup repair would take the one connection this test counts on.
              repairOnStart: false
            })
            const write = h.sink.startRun({
              runId: testId("run") as RunId,
              sessionId: testId("session") as SessionId,
              query: "q",
              startedAt: 1
            })
            const exits = yield* Effect.all([write, write, write].map(Effect.exit), {
              concurrency: "unbounded"
            })
            yield* Effect.promise(() => hung.close())
            return exits
          })
        )
      )
      const errors = exits.map(failureOf)
      for (const e of errors) expect(e).toBeInstanceOf(AuditWriteError)
      expect(errors.filter((e) => /Queue limit/.test(String((e.cause as Error)?.message)))).toHaveLength(1)
    } finally {
      await hung.close()
    }
  })

  it("a bad config is AuditConfigError", async () => {
    for (const [config, field] of [
      [{ url: "not a url" }, "url"],
      [{ url: "postgres://x/y" }, "url"],
      [{ url, connectionLimit: 0 }, "connectionLimit"],
      [{ url, queryTimeoutMs: -1 }, "queryTimeoutMs"],
      [{ url, writeTimeoutMs: 0 }, "writeTimeoutMs"],
      [{ url, queueLimit: 0 }, "queueLimit"],
      [{ url, timelineBatch: { maxEvents: 0, maxDelayMs: 10 } }, "timelineBatch.maxEvents"]
    ] as const) {
      const exit = await Effect.runPromise(Effect.exit(Effect.scoped(makeMysqlAudit(config))))
      expect(failureOf(exit)).toMatchObject({ _tag: "AuditConfigError", field })
    }
    // The URL rules are the mysql client's (one place); the reason never echoes the URL.
    for (const [bad, reason] of [
      ["not a url", "url is not a URL"],
      [Redacted.make("postgres://u:s3cret@x/y"), "url must be mysql:// or mariadb://"]
    ] as const) {
      const exit = await Effect.runPromise(Effect.exit(Effect.scoped(makeMysqlAudit({ url: bad }))))
      const error = failureOf(exit)
      expect(error).toMatchObject({ _tag: "AuditConfigError", field: "url", reason })
      expect(JSON.stringify(error)).not.toContain("s3cret")
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
