import type { Hono } from "hono"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCENARIOS } from "../src/demo/index.js"
import { makeHttpApp } from "../src/http.js"
import { startServer } from "../src/server.js"
import { expectNoLeak, makeTestWorld, parseSse, type TestWorld } from "./helpers.js"

const chat = (app: Hono, body: unknown) =>
  app.request("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

describe("HTTP API", () => {
  let world: TestWorld
  let app: Hono
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion" })
    app = makeHttpApp(world.runtime, world.config)
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("streams metadata, progress events in order, then the answer; the trace is retrievable", async () => {
    const response = await chat(app, {
      question: SCENARIOS["db-pool-exhaustion"].sampleQuestion,
      sessionId: "s-http-1"
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const raw = await response.text()
    const events = parseSse(raw)
    expect(events[0]!.event).toBe("metadata")
    const { sessionId, runId } = events[0]!.data
    expect(sessionId).toBe("s-http-1")
    expect(typeof runId).toBe("string")
    expect(events.at(-1)!.event).toBe("answer")
    const progress = events.slice(1, -1)
    expect(progress.length).toBeGreaterThan(3)
    for (const e of progress) expect(e.event).toBe("progress")
    const types = progress.map((e) => e.data.type)
    expect(types[0]).toBe("run_started")
    expect(types.at(-1)).toBe("run_finished")
    expect(types.indexOf("routing")).toBeLessThan(types.indexOf("tool_call"))
    expect(types.indexOf("tool_call")).toBeLessThan(types.indexOf("release"))
    expect(progress[0]!.data.run_id).toBe(runId)
    const answer = events.at(-1)!.data
    expect(answer.runId).toBe(runId)
    expect(answer.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(answer.content.length).toBeGreaterThan(0)
    expectNoLeak("SSE stream", raw)

    const traceResponse = await app.request(`/api/trace?sessionId=${sessionId}&runId=${runId}`)
    expect(traceResponse.status).toBe(200)
    const trace = (await traceResponse.json()) as any
    expect(trace.run.run_id).toBe(runId)
    expect(trace.run.session_id).toBe(sessionId)
    expect(trace.reconciliation.tokens_reconciled).toBe(true)
    expect(trace.timeline[0].type).toBe("RUN_STARTED")
    expect(trace.timeline.at(-1).type).toBe("RUN_FINISHED")

    // The run belongs to its session only.
    const other = await app.request(`/api/trace?sessionId=another-session&runId=${runId}`)
    expect(other.status).toBe(404)
  })

  it("answers 404 for an unknown run", async () => {
    const response = await app.request("/api/trace?sessionId=s-unknown&runId=run-unknown")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: "RUN_NOT_FOUND",
      message: "no run with this sessionId and runId"
    })
  })

  const ID_RULE = "must be 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit"

  it.each([
    ["missing runId", "?sessionId=s1", "runId is required"],
    ["empty runId", "?sessionId=s1&runId=", "runId is required"],
    ["missing sessionId", "?runId=r1", "sessionId is required"],
    ["missing both", "", "sessionId is required; runId is required"],
    ["malformed runId", "?sessionId=s1&runId=a%3Ab", `runId ${ID_RULE}`],
    ["malformed sessionId", "?sessionId=a%3Ab&runId=r1", `sessionId ${ID_RULE}`]
  ])("answers 400 INVALID_REQUEST for trace parameters (%s)", async (_name, query, message) => {
    const response = await app.request(`/api/trace${query}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: "INVALID_REQUEST", message })
  })

  it.each([
    ["not JSON", "{bad", "body is not valid JSON"],
    ["empty body", "", "body is not valid JSON"],
    ["JSON array", [], "body must be a JSON object"],
    ["JSON string", '"why?"', "body must be a JSON object"],
    ["missing question", {}, "question is required"],
    ["empty question", { question: "   " }, "question is required"],
    ["wrong type", { question: 42 }, "question must be a string"],
    ["too long question", { question: "x".repeat(2001) }, "question is limited to 2000 characters"],
    ["bad sessionId", { question: "why?", sessionId: "a:b{c}" }, `sessionId ${ID_RULE}`],
    ["empty sessionId", { question: "why?", sessionId: "" }, `sessionId ${ID_RULE}`],
    ["sessionId not a string", { question: "why?", sessionId: 7 }, "sessionId must be a string"],
    ["unknown field", { question: "why?", extra: 1 }, 'unknown field(s): "extra"'],
    ["two problems", { question: "", sessionId: "a:b" }, `question is required; sessionId ${ID_RULE}`]
  ])("answers 400 INVALID_REQUEST for a malformed body (%s)", async (_name, body, message) => {
    const response = await chat(app, body)
    expect(response.status).toBe(400)
    expect(response.headers.get("content-type")).toContain("application/json")
    expect(await response.json()).toEqual({ error: "INVALID_REQUEST", message })
  })

  it.each([
    ["text/plain", "text/plain"],
    ["form", "application/x-www-form-urlencoded"],
    ["json-ish", "application/jsonp"],
    ["none", undefined]
  ])("answers 415 for a chat body that is not application/json (%s)", async (_name, type) => {
    const response = await app.request("/api/chat", {
      method: "POST",
      ...(type ? { headers: { "content-type": type } } : {}),
      body: JSON.stringify({ question: "why is checkout failing?" })
    })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({
      error: "UNSUPPORTED_MEDIA_TYPE",
      message: "send application/json"
    })
  })

  it("accepts application/json with parameters and any case", async () => {
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "Application/JSON; charset=utf-8" },
      body: JSON.stringify({ question: "" })
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as any).message).toBe("question is required")
  })

  it.each([
    ["GET", "/api/chat", "POST"],
    ["PUT", "/api/chat", "POST"],
    ["DELETE", "/api/chat", "POST"],
    ["POST", "/api/trace", "GET, HEAD"],
    ["POST", "/healthz", "GET, HEAD"]
  ])("answers 405 with an Allow header for %s %s", async (method, path, allow) => {
    const response = await app.request(path, { method })
    expect(response.status).toBe(405)
    expect(response.headers.get("allow")).toBe(allow)
    expect(await response.json()).toEqual({
      error: "METHOD_NOT_ALLOWED",
      message: `${method} is not allowed on ${path}; use ${allow}`
    })
  })

  it("serves /healthz with the backends and no credentials", async () => {
    const response = await app.request("/healthz")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      status: "ok",
      backends: {
        canonical_store: "in-memory",
        audit: "in-memory",
        business_datasource: "disabled",
        model: "offline",
        scenario: "db-pool-exhaustion"
      }
    })
  })

  it("answers unknown routes with a JSON 404", async () => {
    const response = await app.request("/nope")
    expect(response.status).toBe(404)
    expect(((await response.json()) as any).error).toBe("NOT_FOUND")
  })
})

describe("HTTP server on a real socket", () => {
  it("listens on 127.0.0.1:0, streams a chat, and shuts down disposing the runtime", async () => {
    const world = await makeTestWorld({ SCENARIO: "redis-timeouts" })
    const server = await startServer(world.runtime, { ...world.config, port: 0, host: "127.0.0.1" })
    try {
      expect(server.port).toBeGreaterThan(0)
      const base = `http://127.0.0.1:${server.port}`
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      const response = await fetch(`${base}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question: SCENARIOS["redis-timeouts"].sampleQuestion })
      })
      const events = parseSse(await response.text())
      expect(events[0]!.event).toBe("metadata")
      expect(events.at(-1)!.event).toBe("answer")
    } finally {
      await server.close()
    }
    // Closed: the port no longer answers.
    await expect(fetch(`http://127.0.0.1:${server.port}/healthz`)).rejects.toThrow()
  })
})
