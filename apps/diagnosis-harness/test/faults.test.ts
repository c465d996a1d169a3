/**
 * The fault suite (`pnpm test:faults`, also part of `pnpm test`): the app over real Redis and
 * MariaDB through TCP proxies on 127.0.0.1 that refuse, kill, blackhole or pause the
 * connections, then heal. Asserts fail-closed release, bounded run time (generous bounds: this
 * is correctness, not speed), the recorded gap and the recovery. Timings are printed.
 */
import {
  mysqlGate,
  redisGate,
  redisUrl,
  startFaultProxy,
  testId,
  type FaultProxy
} from "@aiops-harness/core/testing"
import type { Hono } from "hono"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { SCENARIOS } from "../src/demo/index.js"
import { makeHttpApp } from "../src/http.js"
import { type AppRuntime, makeAppRuntime, migrateAll } from "../src/runtime.js"
import { auditLayer } from "@aiops-harness/audit"
import { Effect, Layer, Redacted } from "effect"
import { auditObserver, makeAppMetrics } from "../src/ops.js"
import { captureJsonLogs, databaseUrl, eventually, logged, timedRun, traceOf } from "./fault-helpers.js"
import { capturingOfflineModel } from "./helpers.js"

const [hasRedis, hasMysql] = await Promise.all([redisGate(), mysqlGate()])
const QUESTION = SCENARIOS["db-pool-exhaustion"].sampleQuestion
const timings: Record<string, number> = {}

describe.runIf(hasRedis && hasMysql)("fault suite: app over Redis and MariaDB through fault proxies", () => {
  const logs = captureJsonLogs()
  let redis: FaultProxy
  let mysqlProxy: FaultProxy
  let runtime: AppRuntime
  let app: Hono
  let normalMs = 0

  beforeAll(async () => {
    const url = await databaseUrl("aiops_reliability_faults")
    await Effect.runPromise(migrateAll(Redacted.make(url)))
    const r = new URL(redisUrl())
    redis = await startFaultProxy({ host: r.hostname, port: Number(r.port || 6379) })
    const m = new URL(url)
    mysqlProxy = await startFaultProxy({ host: m.hostname, port: Number(m.port || 3306) })
    // The audit's MySQL goes through the proxy; the business datasource (`query_mysql`) talks to
    // the server directly, so a fault of the audit is the only fault the run sees.
    const config = loadConfig({
      REDIS_URL: redis.urlFor(redisUrl()),
      MYSQL_URL: url,
      CANONICAL_STORE_KEY_PREFIX: `aiops_reliability_${testId("f").replaceAll("-", "_")}`,
      REDIS_COMMAND_TIMEOUT_MS: "500",
      REDIS_CONNECT_TIMEOUT_MS: "1000",
      REDIS_RECONNECT_MAX_DELAY_MS: "200",
      AUDIT_MYSQL_CONNECT_TIMEOUT_MS: "1000",
      AUDIT_MYSQL_WRITE_TIMEOUT_MS: "300",
      AUDIT_BREAKER_RESET_MS: "200",
      SCENARIO: "db-pool-exhaustion"
    })
    const metrics = makeAppMetrics()
    if (config.audit._tag !== "Mysql") throw new Error("expected the MySQL audit")
    const proxiedAudit = auditLayer(
      { _tag: "Mysql", mysql: { ...config.audit.mysql, url: Redacted.make(mysqlProxy.urlFor(url)) } },
      { observer: auditObserver(metrics) }
    ).pipe(Layer.orDie)
    runtime = makeAppRuntime(config, {
      modelLayer: capturingOfflineModel({ requests: [] }),
      auditLayer: proxiedAudit,
      metrics
    })
    await runtime.context()
    app = makeHttpApp(runtime, config)
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
    await redis?.close()
    await mysqlProxy?.close()
    console.log(`fault suite timings (ms): ${JSON.stringify(timings)}`)
  })

  const readyz = async () => {
    const response = await app.request("/readyz")
    return { status: response.status, body: (await response.json()) as any }
  }
  const metrics = async () => (await app.request("/metrics")).text()

  it("healthy: a released report, ready, metrics", async () => {
    await timedRun(runtime, { question: QUESTION }) // warm-up (pools, demo world)
    const { outcome, ms } = await timedRun(runtime, { question: QUESTION })
    normalMs = timings.normal = ms
    expect(outcome.result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(traceOf(outcome).reconciliation.audit_complete).toBe(true)
    const ready = await readyz()
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({
      ready: true,
      canonical_store: { ready: true, backend: "redis" },
      audit: { ready: true, backend: "mysql", breaker: "CLOSED" }
    })
    const text = await metrics()
    expect(text).toMatch(/aiops_runs_total\{outcome="DIAGNOSIS_REPORT"\} [1-9]/)
    expect(text).toMatch(/aiops_tool_calls_total\{tool="query_logs",status="READY",error_code=""\} [1-9]/)
    expect(text).toMatch(/aiops_model_tokens_total\{kind="total"\} [1-9]/)
    expect(text).toMatch(/aiops_canonical_store_seconds_count\{operation="create",outcome="ok"\} [1-9]/)
    expect(text).toMatch(/aiops_audit_seconds_count\{kind="write",outcome="ok"\} [1-9]/)
    expect(text).toContain('aiops_audit_breaker_state{state="CLOSED"} 1')
    expect(text).toContain("aiops_audit_dropped_writes 0")
  }, 60_000)

  it("Redis refused: fails closed, says the evidence store is unavailable, not ready, logged; then recovers", async () => {
    logs.clear()
    redis.kill()
    try {
      const { outcome, ms } = await timedRun(runtime, { question: QUESTION })
      timings.redisRefused = ms
      expect(ms).toBeLessThan(normalMs + 15_000)
      expect(outcome.result.releaseResult).toBe("CANNOT_CONCLUDE")
      expect(outcome.result.content).toContain("the evidence store is unavailable")
      expect(outcome.result.content).not.toContain("stopped early")
      const trace = traceOf(outcome)
      const release = trace.timeline.find((e) => e.type === "RELEASE_DECISION")
      expect(release?.payload.store_available).toBe(false)
      const guard = trace.timeline.find((e) => e.type === "EVIDENCE_GUARD_INITIAL")
      if (guard) expect(guard.payload.store_available).toBe(false)
      const ready = await readyz()
      expect(ready.status).toBe(503)
      expect(ready.body.canonical_store.ready).toBe(false)
      expect(ready.body.audit.ready).toBe(true)
      const line = logged(logs.lines, "canonical store unavailable")
      expect(line?.level).toBe("ERROR")
      expect(line?.annotations.component).toBe("canonical_store")
      expect(await metrics()).toMatch(
        /aiops_tool_calls_total\{tool="[a-z_]+",status="[A-Z]+",error_code="STORE_ERROR"\} [1-9]/
      )
    } finally {
      redis.restore()
    }
    const started = Date.now()
    await eventually(async () => expect((await readyz()).status).toBe(200))
    timings.redisRecovery = Date.now() - started
    const { outcome } = await timedRun(runtime, { question: QUESTION })
    expect(outcome.result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(logged(logs.lines, "canonical store recovered")?.level).toBe("INFO")
  }, 60_000)

  it("Redis killed mid-run, then blackholed: fail closed within bounds, never a released report", async () => {
    let killed = false
    const mid = await timedRun(runtime, { question: QUESTION }, (event) => {
      if (event.type === "tool_call" && !killed) {
        killed = true
        redis.kill()
      }
    })
    timings.redisKilledMidRun = mid.ms
    expect(killed).toBe(true)
    expect(mid.outcome.result.releaseResult).not.toBe("DIAGNOSIS_REPORT")
    expect(mid.ms).toBeLessThan(normalMs + 15_000)
    redis.restore()
    await eventually(async () => expect((await readyz()).status).toBe(200))
    redis.blackhole()
    try {
      const hung = await timedRun(runtime, { question: QUESTION })
      timings.redisBlackholed = hung.ms
      expect(hung.outcome.result.releaseResult).not.toBe("DIAGNOSIS_REPORT")
      expect(hung.outcome.result.content).toContain("the evidence store is unavailable")
      expect(hung.ms).toBeLessThan(normalMs + 20_000)
    } finally {
      redis.restore()
    }
    await eventually(async () => expect((await readyz()).status).toBe(200))
    expect((await timedRun(runtime, { question: QUESTION })).outcome.result.releaseResult).toBe(
      "DIAGNOSIS_REPORT"
    )
  }, 60_000)

  it("MySQL blackholed: runs still release at about normal cost, the breaker opens, the gap is recorded and repaired", async () => {
    logs.clear()
    const sessionId = testId("s")
    mysqlProxy.blackhole()
    const runs: Array<{ ms: number; runId: string; releaseResult: string }> = []
    try {
      for (let i = 0; i < 4; i++) {
        const { outcome, ms } = await timedRun(runtime, { question: QUESTION, sessionId })
        runs.push({ ms, runId: outcome.result.runId, releaseResult: outcome.result.releaseResult })
        // The trace read fails fast (breaker open): never a hang.
        expect(outcome.trace).toMatchObject({ found: false, reason: "AUDIT_UNAVAILABLE" })
      }
      timings.mysqlBlackholedFirst = runs[0]!.ms
      timings.mysqlBlackholedNext = Math.max(...runs.slice(1).map((r) => r.ms))
      // Audit is fail-open: the answer does not depend on it.
      expect(runs.every((r) => r.releaseResult === "DIAGNOSIS_REPORT")).toBe(true)
      // The first run pays for detection (3 x 300 ms); the others about nothing (bound: generous).
      expect(runs[0]!.ms).toBeLessThan(normalMs + 5_000)
      for (const r of runs.slice(1)) expect(r.ms).toBeLessThan(normalMs + 2_000)
      const ready = await readyz()
      expect(ready.status).toBe(503)
      // OPEN, or HALF_OPEN while the background probe (every 200 ms here) is in flight.
      expect(ready.body.audit).toMatchObject({ ready: false, reason: "CIRCUIT_OPEN" })
      expect(["OPEN", "HALF_OPEN"]).toContain(ready.body.audit.breaker)
      const text = await metrics()
      expect(text).toContain('aiops_audit_breaker_state{state="CLOSED"} 0')
      expect(text).toMatch(/aiops_audit_breaker_opened [1-9]/)
      expect(text).toMatch(/aiops_audit_dropped_writes [1-9]/)
      expect(text).toMatch(/aiops_audit_pending_repairs [1-9]/)
      expect(logged(logs.lines, "audit circuit breaker opened")?.level).toBe("WARN")
    } finally {
      mysqlProxy.restore()
    }
    const started = Date.now()
    await eventually(async () => expect((await readyz()).status).toBe(200), 20_000)
    timings.mysqlRecovery = Date.now() - started
    expect(logged(logs.lines, "audit circuit breaker closed")?.level).toBe("INFO")
    // The repair pass wrote every lost finish: AUDIT_INCOMPLETE, with the gap counted.
    for (const r of runs) {
      const trace = await eventually(async () => {
        const response = await app.request(`/api/trace?sessionId=${sessionId}&runId=${r.runId}`)
        expect(response.status).toBe(200)
        const body = (await response.json()) as any
        expect(body.run.status).toBe("AUDIT_INCOMPLETE")
        return body
      })
      expect(trace.reconciliation.audit_complete).toBe(false)
      expect(trace.reconciliation.counts_match).toBe(false)
      expect(trace.reconciliation.missing_writes).toBeGreaterThan(0)
    }
    expect(await metrics()).toContain("aiops_audit_pending_repairs 0")
    const after = await timedRun(runtime, { question: QUESTION })
    expect(traceOf(after.outcome).reconciliation.audit_complete).toBe(true)
  }, 60_000)

  it("MySQL killed mid-run, and paused: never a silent RUNNING; recovery after resume", async () => {
    let killed = false
    const mid = await timedRun(runtime, { question: QUESTION }, (event) => {
      if (event.type === "tool_call" && !killed) {
        killed = true
        mysqlProxy.kill()
      }
    })
    timings.mysqlKilledMidRun = mid.ms
    expect(killed).toBe(true)
    // The audit is fail-open: its loss never changes the answer.
    expect(mid.outcome.result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(mid.ms).toBeLessThan(normalMs + 15_000)
    mysqlProxy.restore()
    const trace = await eventually(async () => {
      const { sessionId, runId } = mid.outcome.result
      const response = await app.request(`/api/trace?sessionId=${sessionId}&runId=${runId}`)
      const body = (await response.json()) as any
      expect(body.run?.status).toBe("AUDIT_INCOMPLETE")
      return body
    }, 20_000)
    expect(trace.reconciliation.missing_writes).toBeGreaterThan(0)
    mysqlProxy.pause()
    try {
      const paused = await timedRun(runtime, { question: QUESTION })
      timings.mysqlPaused = paused.ms
      expect(paused.outcome.result.releaseResult).toBe("DIAGNOSIS_REPORT")
      expect(paused.ms).toBeLessThan(normalMs + 5_000)
    } finally {
      mysqlProxy.restore()
    }
    await eventually(async () => expect((await readyz()).status).toBe(200), 20_000)
  }, 60_000)
})
