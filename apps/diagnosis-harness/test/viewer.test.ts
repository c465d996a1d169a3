import { MysqlAudit, TraceQuery, type TraceQueryShape } from "@aiops-harness/audit"
import { AuditReadError } from "@aiops-harness/audit"
import { AuditSink, makeRun, type SessionId, type TimelineEvent } from "@aiops-harness/core"
import { mysqlGate, mysqlUrl, testId } from "@aiops-harness/core/testing"
import { Context, Effect, Layer, Redacted } from "effect"
import type { Hono } from "hono"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { DEMO_LEAK_MARKERS, SCENARIOS } from "../src/demo/index.js"
import { diagnose } from "../src/diagnose.js"
import { formatTrace, runPageLink } from "../src/format.js"
import { makeHttpApp } from "../src/http.js"
import { makeAppRuntime } from "../src/runtime.js"
import { RUNS_PAGE_SIZE, VIEWER_CSP } from "../src/viewer/index.js"
import { makeTestWorld, NOW, type TestWorld } from "./helpers.js"

const hasMysql = await mysqlGate()

/** The attributes of a document that could load anything: none may leave the origin. */
const expectSameOrigin = (html: string) => {
  for (const m of html.matchAll(/\b(?:src|href|action)="([^"]*)"/g)) {
    const url = m[1]!
    expect(url.startsWith("/") || url.startsWith("#") || url === "", url).toBe(true)
    expect(url.startsWith("//"), url).toBe(false)
  }
  expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//)
}

const expectNoLeakIn = (what: string, html: string) => {
  for (const marker of DEMO_LEAK_MARKERS) expect(html.includes(marker), `${what} leaks ${marker}`).toBe(false)
}

describe("trace viewer pages (server side, embedded defaults)", () => {
  let world: TestWorld
  let app: Hono
  let released: { sessionId: string; runId: string }
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion" })
    app = makeHttpApp(world.runtime, world.config)
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("an empty audit: the list says so; every page carries the CSP and no external reference", async () => {
    const response = await app.request("/")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(response.headers.get("content-security-policy")).toBe(VIEWER_CSP)
    expect(VIEWER_CSP).toContain("default-src 'none'")
    expect(response.headers.get("x-content-type-options")).toBe("nosniff")
    const html = await response.text()
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true)
    expect(html).toContain('id="no-runs"')
    expectSameOrigin(html)
  })

  it("a question with markup is escaped on the list and on the run page", async () => {
    const question = `why is checkout returning 500s? <script>alert("x")</script><img src=x onerror=alert(1)> & "quotes"`
    const outcome = await world.runtime.runPromise(diagnose({ question, sessionId: "s-escape" }))
    released = { sessionId: "s-escape", runId: outcome.result.runId }
    for (const path of ["/", `/runs/s-escape/${outcome.result.runId}`]) {
      const html = await (await app.request(path)).text()
      expect(html).not.toContain('<script>alert("x")')
      expect(html).not.toContain("<img src=x")
      expect(html).toContain("&lt;script&gt;")
      // The only script is the viewer's own.
      expect(html.match(/<script/g)).toHaveLength(1)
      expectSameOrigin(html)
      expectNoLeakIn(path, html)
    }
  })

  it("a question carrying a secret and an IP shows redacted on the list and the run page", async () => {
    const question = "why is checkout failing? password=hunter2-S3CRET from 10.23.45.67"
    const outcome = await world.runtime.runPromise(diagnose({ question, sessionId: "s-redact" }))
    for (const path of ["/?session=s-redact", `/runs/s-redact/${outcome.result.runId}`]) {
      const html = await (await app.request(path)).text()
      expect(html).toContain("why is checkout failing?")
      expect(html, path).not.toContain("hunter2-S3CRET")
      expect(html, path).not.toContain("10.23.45.67")
    }
  })

  it("a run page: waterfall, tool calls with control view and observation, citations, ledger", async () => {
    const outcome = await world.runtime.runPromise(
      diagnose({ question: SCENARIOS["db-pool-exhaustion"].sampleQuestion, sessionId: "s-page" })
    )
    expect(outcome.result.releaseResult).toBe("DIAGNOSIS_REPORT")
    const response = await app.request(`/runs/s-page/${outcome.result.runId}`)
    expect(response.status).toBe(200)
    const html = await response.text()
    const trace = outcome.trace.found ? outcome.trace.trace : null
    expect(trace).not.toBeNull()
    const calls = trace!.agent_steps.flatMap((s) => s.tool_invocations)
    for (const call of calls) {
      expect(html).toContain(`id="call-${call.tool_call_id}"`)
      expect(html).toContain(`href="#call-${call.tool_call_id}"`)
      expect(html).toContain(String(call.metadata.duplicate_identity))
    }
    // Every citation of the report is a link carrying its call.
    const cited = outcome.result.report!.claims.flatMap((c) => c.citations.map((x) => x.tool_call_id))
    const links = [...html.matchAll(/class="cite" href="#[^"]+" data-call="([^"]+)"/g)].map((m) => m[1])
    expect(links).toEqual(cited)
    expect(html).toContain('id="tokens-reconciled">true<')
    expect(html).not.toContain('id="audit-gap"')
    // The raw response never reaches the page: the raw logs' hosts and secrets are absent,
    // the projection's placeholders are there.
    expectNoLeakIn("run page", html)
    expect(html).toContain("&lt;POD&gt;")
    expect(html).not.toContain("data-live=")
  })

  it("the live endpoint returns the run body fragment with the run's status", async () => {
    const response = await app.request(`/runs/${released.sessionId}/${released.runId}/live`)
    expect(response.status).toBe(200)
    expect(response.headers.get("x-run-status")).toBe("FINISHED")
    expect(response.headers.get("cache-control")).toBe("no-store")
    const html = await response.text()
    expect(html.startsWith("<!DOCTYPE")).toBe(false)
    expect(html).toContain('id="run-outcome"')
    expect(html).not.toContain("<html")
  })

  it("a run still running is live; a refused call, an errored call and an expired observation are marked", async () => {
    const sessionId = "s-running" as SessionId
    const runId = await world.runtime.runPromise(
      Effect.gen(function* () {
        const run = yield* makeRun({ sessionId, query: "still running", authorizedTools: [] })
        const base = {
          toolName: "query_logs",
          stepId: null,
          latencyMs: 3,
          requestBytes: 10,
          rawBytes: 0,
          projectionBytes: 0,
          truncated: false,
          returnedCount: null,
          startedAt: run.startedAt + 1,
          metadata: {}
        }
        yield* run.recorder.toolInvocation({
          ...base,
          toolCallId: "refused-1",
          status: null,
          evidenceStatus: null,
          errorCode: "TOOL_NOT_AUTHORIZED"
        })
        yield* run.recorder.toolInvocation({
          ...base,
          toolCallId: "failed-1",
          status: "ERROR",
          evidenceStatus: "ERROR",
          errorCode: "BACKEND_TIMEOUT"
        })
        return run.runId
      })
    )
    const html = await (await app.request(`/runs/${sessionId}/${runId}`)).text()
    expect(html).toContain(`data-live="/runs/${sessionId}/${runId}/live"`)
    expect(html).toContain('data-status="RUNNING"')
    expect(html).toMatch(/id="call-refused-1" class="call s-refused"/)
    expect(html).toMatch(/id="call-failed-1" class="call s-error"/)
    expect(html).toContain("BACKEND_TIMEOUT")
    expect(html).toContain("Not in the canonical store")
    // A running run is not an audit gap (yet).
    expect(html).not.toContain('id="audit-gap"')
    const live = await app.request(`/runs/${sessionId}/${runId}/live`)
    expect(live.headers.get("x-run-status")).toBe("RUNNING")
    const list = await (await app.request("/?outcome=running")).text()
    expect(list).toContain(`data-run-id="${runId}"`)
    expect(list).not.toContain(`data-run-id="${released.runId}"`)
  })

  it("a row that does not match its event schema shows as INVALID_EVENT with an alert", async () => {
    const sessionId = "s-invalid" as SessionId
    const runId = await world.runtime.runPromise(
      Effect.gen(function* () {
        const run = yield* makeRun({ sessionId, query: "a defective writer", authorizedTools: [] })
        // Written past the recorder, as an old or defective writer would: free payload, wrong shape.
        const sink = yield* AuditSink
        const row = {
          runId: run.runId,
          sessionId,
          seq: 2,
          type: "STOP_REQUIRED",
          at: run.startedAt,
          payload: {}
        }
        yield* sink.appendTimelineEvent(row as unknown as TimelineEvent)
        return run.runId
      })
    )
    const html = await (await app.request(`/runs/${sessionId}/${runId}`)).text()
    expect(html).toContain('id="invalid-events"')
    expect(html).toContain("1 timeline event did not match the event schema")
    expect(html).toContain("#2 STOP_REQUIRED (reason: ")
  })

  it("pages the list newest first, RUNS_PAGE_SIZE per page, keeping the filters", async () => {
    const sessionId = testId("s-page") as SessionId
    const ids = await world.runtime.runPromise(
      Effect.forEach(Array.from({ length: RUNS_PAGE_SIZE + 3 }), (_, i) =>
        Effect.gen(function* () {
          const run = yield* makeRun({ sessionId, query: `run ${i}`, authorizedTools: [] })
          yield* run.finish({ status: i % 2 === 0 ? "FINISHED" : "CANCELLED" })
          return run.runId as string
        })
      )
    )
    const first = await (await app.request(`/?session=${sessionId}`)).text()
    const rowIds = (html: string) => [...html.matchAll(/<tr data-run-id="([^"]+)"/g)].map((m) => m[1])
    const page1 = rowIds(first)
    expect(page1).toHaveLength(RUNS_PAGE_SIZE)
    const older = /href="(\/\?session=[^"]+&amp;before=[^"]+)" rel="next"/.exec(first)
    expect(older).not.toBeNull()
    const second = await (await app.request(older![1]!.replaceAll("&amp;", "&"))).text()
    const page2 = rowIds(second)
    expect(page2).toHaveLength(3)
    expect(new Set([...page1, ...page2])).toEqual(new Set(ids))
    expect(second).toContain("Newest runs")
    const cancelled = rowIds(await (await app.request(`/?session=${sessionId}&outcome=cancelled`)).text())
    expect(cancelled.sort()).toEqual(ids.filter((_, i) => i % 2 === 1).sort())
  })

  it("bad filters are 400, unknown and malformed runs 404 (HTML pages, no echo of the input)", async () => {
    for (const path of ["/?outcome=bogus", "/?session=%3Cscript%3E", "/?before=not-a-cursor"]) {
      const response = await app.request(path)
      expect(response.status, path).toBe(400)
      const html = await response.text()
      expect(html).toContain("Bad filter")
      expect(html.match(/<script/g)).toHaveLength(1)
      expect(html).not.toContain("bogus")
    }
    for (const path of [
      `/runs/s-page/unknown-run`,
      `/runs/other-session/${released.runId}`,
      "/runs/bad%20id/x"
    ]) {
      const response = await app.request(path)
      expect(response.status, path).toBe(404)
      expect(await response.text()).toContain("Run not found")
    }
    expect((await app.request("/runs/s-page/unknown-run/live")).status).toBe(404)
  })

  it("the chat answer links its run page", async () => {
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "why is checkout returning 500s?", sessionId: "s-link" })
    })
    const text = await response.text()
    const answer = JSON.parse(/event: answer\ndata: (.*)\n/.exec(text)![1]!)
    expect(answer.runPage).toBe(`/runs/s-link/${answer.runId}`)
    expect((await app.request(answer.runPage)).status).toBe(200)
  })
})

describe("trace viewer: a bounded answer (calm world)", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "calm" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("shows cannot conclude with the bounded no-problem answer and what it checked", async () => {
    const outcome = await world.runtime.runPromise(
      diagnose({ question: SCENARIOS.calm.sampleQuestion, sessionId: "s-calm" })
    )
    expect(outcome.result.releaseResult).toBe("CANNOT_CONCLUDE")
    const app = makeHttpApp(world.runtime, world.config)
    const html = await (await app.request(`/runs/s-calm/${outcome.result.runId}`)).text()
    expect(html).toMatch(/id="run-outcome" data-status="FINISHED">cannot conclude</)
    // The calm world's answer is "no problem found" bounded to the checked scopes (agent answer.ts).
    expect(outcome.result.content).toMatch(/^No problem found in the scopes checked/)
    const checked = outcome.result.content.split("Checked:\n")[1]!.split("\n")[0]!.slice(2)
    const htmlEscape = (t: string) =>
      t.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")
    expect(html).toContain(htmlEscape("No problem found in the scopes checked"))
    expect(html).toContain(htmlEscape(checked))
    const list = await (await app.request("/?outcome=cannot_conclude")).text()
    expect(list).toContain(`data-run-id="${outcome.result.runId}"`)
  })
})

describe("trace viewer when the audit does not answer", () => {
  const down: TraceQueryShape = {
    getTrace: () => Effect.fail(new AuditReadError({ reason: "UNAVAILABLE" })),
    listRuns: () => Effect.fail(new AuditReadError({ reason: "TIMEOUT" }))
  }
  const config = loadConfig({})
  const runtime = makeAppRuntime(config, {
    now: NOW,
    auditLayer: Layer.mergeAll(
      Layer.succeed(AuditSink, AuditSink.of(undefined as never)),
      Layer.succeed(TraceQuery, down)
    )
  })
  afterAll(() => runtime.dispose())

  it("list and run pages answer 503 with a message", async () => {
    const app = makeHttpApp(runtime, config)
    for (const path of ["/", "/runs/s-1/r-1", "/runs/s-1/r-1/live"]) {
      const response = await app.request(path)
      expect(response.status, path).toBe(503)
      expect(await response.text()).toContain("Audit unavailable")
    }
  })
})

describe("CLI trace summary link", () => {
  it("names the run page on serve's address, and says when the audit is in-memory", () => {
    const withMysql = runPageLink(
      { host: "0.0.0.0", port: 8787, mysqlUrl: Redacted.make("mysql://x@h/db") },
      "s-1",
      "r-1"
    )
    expect(withMysql).toBe("http://127.0.0.1:8787/runs/s-1/r-1")
    expect(runPageLink({ host: "::1", port: 9000, mysqlUrl: Redacted.make("mysql://h/db") }, "s", "r")).toBe(
      "http://[::1]:9000/runs/s/r"
    )
    expect(runPageLink({ host: "127.0.0.1", port: 8787, mysqlUrl: null }, "s", "r")).toContain(
      "in-memory audit"
    )
    const text = formatTrace("s-1", "r-1", { found: false, reason: "RUN_NOT_FOUND" }, withMysql)
    expect(text.split("\n").at(-1)).toBe("run page:          http://127.0.0.1:8787/runs/s-1/r-1")
  })
})

describe.runIf(hasMysql)("trace viewer on the MySQL audit", () => {
  const database = "aiops_viewer_test"
  const config = loadConfig({ SCENARIO: "db-pool-exhaustion" })
  let runtime: ReturnType<typeof makeAppRuntime>

  beforeAll(async () => {
    // Our own database (other suites use theirs): created through a pool on the default URL.
    await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(MysqlAudit.make({ url: mysqlUrl() }), (h) =>
          Effect.promise(() => h.pool.query(`CREATE DATABASE IF NOT EXISTS ${database}`))
        )
      )
    )
    const url = new URL(mysqlUrl())
    url.pathname = `/${database}`
    const auditLayer = Layer.effectContext(
      Effect.map(MysqlAudit.make({ url: url.toString(), migrate: true }), (h) =>
        Context.make(AuditSink, h.sink).pipe(Context.add(TraceQuery, h.trace))
      )
    ).pipe(Layer.orDie)
    runtime = makeAppRuntime(config, { now: NOW, auditLayer })
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  it("lists a run and renders its page from MySQL", async () => {
    const sessionId = testId("s-mysql")
    const outcome = await runtime.runPromise(
      diagnose({ question: SCENARIOS["db-pool-exhaustion"].sampleQuestion, sessionId })
    )
    const app = makeHttpApp(runtime, config)
    const list = await (await app.request(`/?session=${sessionId}`)).text()
    expect(list).toContain(`data-run-id="${outcome.result.runId}"`)
    expect(list).toContain("released report")
    expect(list).toContain(">complete<")
    const page = await app.request(`/runs/${sessionId}/${outcome.result.runId}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('id="tokens-reconciled">true<')
    expect(html).toContain("budget left")
    expect([...html.matchAll(/class="cite"/g)].length).toBeGreaterThan(0)
    expectNoLeakIn("MySQL run page", html)
  })
})
