/**
 * `/metrics` exports (and `/readyz` reports, without failing on it) the `query_mysql` executor's
 * circuit breaker (`query-mysql`) when the app runs `query_mysql` against MariaDB: the query
 * user's connections go through a fault proxy, so the test can kill them and watch the breaker
 * open, then heal them and watch it close.
 */
import type { RunId, SessionId, ToolCallId, ToolDefinition } from "@aiops-harness/core"
import { type FaultProxy, mysqlGate, startFaultProxy, testId } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import type { Hono } from "hono"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { makeHttpApp } from "../src/http.js"
import { type AppRuntime, DiagnosisTools, makeAppRuntime } from "../src/runtime.js"
import { databaseUrl, eventually } from "./fault-helpers.js"
import { capturingOfflineModel } from "./helpers.js"

const hasMysql = await mysqlGate()

/** One `query_mysql` call as the boundary makes it: the BackendError's cause code, or "READY". */
const callQueryMysql = (tool: ToolDefinition) => {
  const id = testId("c")
  return Effect.runPromise(
    tool
      .execute(
        { datasource: "shop", sql: "SELECT id, status FROM orders" },
        {
          runId: testId("r") as RunId,
          sessionId: testId("s") as SessionId,
          toolCallId: id as ToolCallId,
          stepId: null,
          now: Date.now()
        }
      )
      .pipe(
        Effect.as("READY"),
        Effect.catch((error) =>
          Effect.succeed(
            error._tag === "BackendError" ? String((error.cause as { code?: unknown }).code) : error._tag
          )
        )
      )
  )
}

describe.runIf(hasMysql)("/metrics: the query_mysql circuit breaker (MariaDB through a fault proxy)", () => {
  let proxy: FaultProxy
  let runtime: AppRuntime
  let app: Hono
  let tool: ToolDefinition

  beforeAll(async () => {
    const url = await databaseUrl("aiops_query_mysql_breaker")
    const m = new URL(url)
    proxy = await startFaultProxy({ host: m.hostname, port: Number(m.port || 3306) })
    // query_mysql runs as a SELECT-only user (created at startup), through the proxy; the audit
    // talks to the server directly.
    const queryUrl = new URL(proxy.urlFor(url))
    queryUrl.username = "aiops_app_breaker_query"
    queryUrl.password = "aiops-app-breaker-pw"
    const config = loadConfig({ MYSQL_URL: url, MYSQL_QUERY_URL: queryUrl.toString() })
    runtime = makeAppRuntime(config, { modelLayer: capturingOfflineModel({ requests: [] }) })
    const { tools } = await runtime.runPromise(DiagnosisTools)
    const found = tools.find((t) => t.name === "query_mysql")
    if (found === undefined) throw new Error("query_mysql is not offered")
    tool = found
    app = makeHttpApp(runtime, config)
  }, 60_000)
  afterAll(async () => {
    await runtime?.dispose()
    await proxy?.close()
  })

  const metrics = async () => (await app.request("/metrics")).text()
  const readyz = async () => {
    const response = await app.request("/readyz")
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  it("closed at start: CLOSED 1, OPEN 0, HALF_OPEN 0, opened 0 (next to the audit's breaker)", async () => {
    expect(await callQueryMysql(tool)).toBe("READY")
    const text = await metrics()
    expect(text).toContain('aiops_query_mysql_breaker_state{state="CLOSED"} 1')
    expect(text).toContain('aiops_query_mysql_breaker_state{state="OPEN"} 0')
    expect(text).toContain('aiops_query_mysql_breaker_state{state="HALF_OPEN"} 0')
    expect(text).toMatch(/^aiops_query_mysql_breaker_opened 0$/m)
    expect(text).toContain('aiops_audit_breaker_state{state="CLOSED"} 1')
    expect(await readyz()).toMatchObject({
      status: 200,
      body: { ready: true, audit: { breaker: "CLOSED" }, query_mysql: { breaker: "CLOSED", opened: 0 } }
    })
  })

  it("connections killed: the breaker opens (OPEN 1, opened >= 1); healed: it closes, opened stays", async () => {
    proxy.kill()
    const codes: Array<string> = []
    try {
      // Default breaker: opens after 3 consecutive connection failures.
      for (let i = 0; i < 4; i++) codes.push(await callQueryMysql(tool))
      expect(codes.slice(0, 3)).toEqual(["CONNECTION_FAILED", "CONNECTION_FAILED", "CONNECTION_FAILED"])
      expect(codes[3]).toBe("CIRCUIT_OPEN")
      const text = await metrics()
      expect(text).toContain('aiops_query_mysql_breaker_state{state="OPEN"} 1')
      expect(text).toContain('aiops_query_mysql_breaker_state{state="CLOSED"} 0')
      expect(text).toContain('aiops_query_mysql_breaker_state{state="HALF_OPEN"} 0')
      expect(text).toMatch(/^aiops_query_mysql_breaker_opened [1-9]\d*$/m)
      // The audit's breaker is another breaker: still closed.
      expect(text).toContain('aiops_audit_breaker_state{state="CLOSED"} 1')
      // /readyz shows the open breaker but stays 200: the business database being down is what
      // the harness may be asked to diagnose.
      const ready = await readyz()
      expect(ready.status).toBe(200)
      expect(ready.body).toMatchObject({ ready: true, query_mysql: { breaker: "OPEN" } })
      expect((ready.body.query_mysql as { opened: number }).opened).toBeGreaterThanOrEqual(1)
    } finally {
      proxy.restore()
    }
    // After the reset time (1 s) a call is the probe; its success closes the breaker.
    await eventually(async () => expect(await callQueryMysql(tool)).toBe("READY"))
    const text = await metrics()
    expect(text).toContain('aiops_query_mysql_breaker_state{state="CLOSED"} 1')
    expect(text).toContain('aiops_query_mysql_breaker_state{state="OPEN"} 0')
    expect(text).toMatch(/^aiops_query_mysql_breaker_opened [1-9]\d*$/m)
    expect((await readyz()).body).toMatchObject({ ready: true, query_mysql: { breaker: "CLOSED" } })
  }, 30_000)
})
