import { AUDIT_TABLES, MysqlAudit, type MysqlAuditHandle, TraceQuery } from "@aiops-harness/audit"
import { AuditSink, revealed } from "@aiops-harness/core"
import { mysqlGate, mysqlUrl, redisGate, redisUrl } from "@aiops-harness/core/testing"
import { Context, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { SCENARIOS } from "../src/demo/index.js"
import { main, runDiagnoseCommand } from "../src/main.js"
import { type AppRuntime, makeAppRuntime } from "../src/runtime.js"
import {
  capturingOfflineModel,
  captureIo,
  expectCitationsReady,
  expectNoLeak,
  type ModelCapture,
  NOW,
  RELEASED_TIMELINE
} from "./helpers.js"

const [hasRedis, hasMysql] = await Promise.all([redisGate(), mysqlGate()])

describe.runIf(hasRedis && hasMysql)("diagnose end to end on Redis + MySQL (query_mysql included)", () => {
  // query_mysql runs as a SELECT-only user that `migrate` creates from MYSQL_QUERY_URL.
  const queryUrl = new URL(mysqlUrl())
  queryUrl.username = "aiops_app_query"
  queryUrl.password = "aiops-app-query-pw"
  const env = {
    REDIS_URL: redisUrl(),
    MYSQL_URL: mysqlUrl(),
    MYSQL_QUERY_URL: queryUrl.toString(),
    SCENARIO: "slow-query-orders"
  }
  const config = loadConfig(env)
  const model: ModelCapture = { requests: [] }
  let runtime: AppRuntime
  let audit: MysqlAuditHandle | undefined

  beforeAll(async () => {
    const migrate = captureIo(env)
    expect(await main(["migrate"], migrate.io), migrate.err.join("\n")).toBe(0)
    expect(migrate.out.join("\n")).toContain("demo business schema")
    expect(migrate.out.join("\n")).toContain("query user: aiops_app_query has SELECT on")
    // The app's MySQL audit, with its handle kept to read every row afterwards.
    const auditLayer = Layer.effectContext(
      Effect.map(MysqlAudit.make({ url: revealed(config.mysqlUrl!), migrate: true }), (handle) => {
        audit = handle
        return Context.make(AuditSink, handle.sink).pipe(Context.add(TraceQuery, handle.trace))
      })
    ).pipe(Layer.orDie)
    runtime = makeAppRuntime(config, { now: NOW, auditLayer, modelLayer: capturingOfflineModel(model) })
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  it("releases a cited report using query_mysql; audit rows leak nothing", async () => {
    const { io, out, err } = captureIo(env)
    const { exitCode, outcome } = await runDiagnoseCommand(
      { question: SCENARIOS["slow-query-orders"].sampleQuestion },
      config,
      io,
      { runtime }
    )
    expect(exitCode, err.join("\n")).toBe(0)
    const { result, trace } = outcome!
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    await expectCitationsReady(runtime, outcome!)
    expect(trace.found).toBe(true)
    if (!trace.found) return
    expect(trace.trace.timeline.map((e) => e.type).join(" ")).toMatch(RELEASED_TIMELINE)
    expect(trace.trace.reconciliation.tokens_reconciled).toBe(true)
    expect(trace.trace.reconciliation.audit_complete).toBe(true)
    const calls = trace.trace.agent_steps.flatMap((s) => s.tool_invocations)
    const mysqlCalls = calls.filter((c) => c.tool_name === "query_mysql")
    expect(mysqlCalls.length).toBeGreaterThan(0)
    expect(mysqlCalls.some((c) => c.status === "READY")).toBe(true)
    expect(err.some((l) => /tool query_mysql .* -> READY/.test(l))).toBe(true)
    // The database check tests the claim over the incident window (rows per status), citing each row it names.
    const dbClaim = result.report!.claims.find((c) => c.text.startsWith("Database check in"))
    expect(dbClaim?.text).toMatch(
      /orders written \(updated_at\) between \S+ \S+ and \S+ \S+ UTC.*by status: status=/
    )
    expect(dbClaim?.citations.length).toBeGreaterThan(1)
    // Released row refs are quoted evidence, brackets neutralized (guards README, "Released text").
    for (const c of dbClaim!.citations) expect(c.ref).toMatch(/^"rows\(\d+\)\.status=[A-Z]+"$/)

    // The password hashes of the business schema never reach the model or the report.
    const hashes = (await audit!.pool.query("SELECT password_hash FROM users")) as unknown as [
      Array<{ password_hash: string }>
    ]
    expect(hashes[0].length).toBeGreaterThan(0)
    const observed = model.requests.join("\n")
    for (const { password_hash } of hashes[0]) {
      expect(observed.includes(password_hash)).toBe(false)
      expect(result.content.includes(password_hash)).toBe(false)
    }

    // Every column of every audit row of this run.
    const rows: unknown[] = []
    for (const table of AUDIT_TABLES) {
      const [found] = (await audit!.pool.query(`SELECT * FROM ${table} WHERE run_id = ?`, [
        result.runId
      ])) as unknown as [unknown[]]
      expect(found.length, table).toBeGreaterThan(0)
      rows.push(...found)
    }
    const dump = JSON.stringify(rows)
    expectNoLeak("MySQL audit rows", dump)
    for (const { password_hash } of hashes[0]) expect(dump.includes(password_hash)).toBe(false)
    expectNoLeak("model observations", observed)
    expectNoLeak("report", result.content)
    expectNoLeak("CLI output", [...out, ...err].join("\n"))
  })
})
