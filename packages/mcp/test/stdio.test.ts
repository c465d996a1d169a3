import { PassThrough } from "node:stream"
import { TraceQuery } from "@aiops-harness/audit"
import type { ToolDefinition } from "@aiops-harness/core"
import { Effect } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeMcpSession, serveStdio } from "../src/index.js"
import { fakeLogsTool, makeTestRuntime, runnerOf, type TestRuntime } from "./helpers.js"

let runtime: TestRuntime
beforeEach(() => {
  runtime = makeTestRuntime()
})
afterEach(async () => {
  await runtime.dispose()
})

/** The fake logs tool, answering only after a pause (a call still running when stdin ends). */
const slowTool: ToolDefinition = {
  ...fakeLogsTool,
  execute: (request, context) =>
    Effect.flatMap(Effect.sleep(50), () => fakeLogsTool.execute(request, context))
}

describe("serveStdio", () => {
  it("a client that ends stdin right after its requests still gets every answer; then the run finishes", async () => {
    const session = await makeMcpSession({ tools: [slowTool], runner: runnerOf(runtime) })
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    let output = ""
    stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    const served = serveStdio(session, { stdin, stdout })
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "pipe", version: "1" }
        }
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "query_fake_logs", arguments: { query: "a" } }
      },
      { jsonrpc: "2.0", id: 3, method: "tools/list" }
    ]
    stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(""))
    await served
    const answers = output
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; result: { structuredContent?: { status: string } } })
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3])
    expect(answers.find((a) => a.id === 2)!.result.structuredContent).toMatchObject({ status: "READY" })
    const trace = await runtime.runPromise(
      Effect.flatMap(TraceQuery, (q) => q.getTrace(session.sessionId, session.runId))
    )
    expect(trace.run.status).toBe("FINISHED")
    expect(trace.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "TOOL_INVOCATION", "RUN_FINISHED"])
    expect(trace.reconciliation.counts_match).toBe(true)
  })

  it("an aborted signal ends the session: the run finishes", async () => {
    const session = await makeMcpSession({ tools: [fakeLogsTool], runner: runnerOf(runtime) })
    const stop = new AbortController()
    const served = serveStdio(session, {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      signal: stop.signal
    })
    stop.abort()
    await served
    const trace = await runtime.runPromise(
      Effect.flatMap(TraceQuery, (q) => q.getTrace(session.sessionId, session.runId))
    )
    expect(trace.run.status).toBe("FINISHED")
  })
})
