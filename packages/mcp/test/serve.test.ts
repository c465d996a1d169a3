import { TraceQuery } from "@aiops-harness/audit"
import { CanonicalInvocationStore, type RunId, type ToolCallId } from "@aiops-harness/core"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Option } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makeMcpHttpHandler, makeMcpSession, RUN_META_KEY, type McpSession } from "../src/index.js"
import { fakeLogsTool, makeTestRuntime, runnerOf, SECRET, type TestRuntime } from "./helpers.js"

let runtime: TestRuntime
beforeEach(() => {
  runtime = makeTestRuntime()
})
afterEach(async () => {
  await runtime.dispose()
})

const connect = async (options: { budget?: { maxToolCalls?: number } } = {}) => {
  const session = await makeMcpSession({
    tools: [fakeLogsTool],
    runner: runnerOf(runtime),
    ...(options.budget ? { budget: options.budget } : {}),
    tracePath: (s, r) => `/runs/${s}/${r}`
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  const client = new Client({ name: "test", version: "1" })
  await client.connect(clientSide)
  return { session, client }
}

const trace = (session: McpSession) =>
  runtime.runPromise(Effect.flatMap(TraceQuery, (q) => q.getTrace(session.sessionId, session.runId)))

describe("serve: one MCP session is one run through the ToolBoundary", () => {
  it("lists the harness tools with their zod-derived input schema and readOnlyHint", async () => {
    const { client } = await connect()
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(1)
    const tool = tools[0]!
    expect(tool.name).toBe("query_fake_logs")
    expect(tool.description).toBe("Search fake logs.")
    expect(tool.annotations?.readOnlyHint).toBe(true)
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { query: { type: "string", minLength: 1, description: "what to search" } },
      required: ["query"]
    })
    await client.close()
  })

  it("returns only the observation (structured and text), writes the canonical record and audit", async () => {
    const { client, session } = await connect()
    const result = await client.callTool({
      name: "query_fake_logs",
      arguments: { query: "checkout", limit: 2 }
    })
    expect(result.isError).toBeUndefined()
    const observation = result.structuredContent as Record<string, unknown>
    expect(observation).toMatchObject({
      tool: "query_fake_logs",
      status: "READY",
      evidence_status: "EVIDENCE_FOUND"
    })
    const toolCallId = observation.tool_call_id as string
    expect(toolCallId).toMatch(/^mcp-\d+$/)
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(observation)
    expect(JSON.stringify(result)).not.toContain(SECRET)
    expect(result._meta?.[RUN_META_KEY]).toEqual({
      session_id: session.sessionId,
      run_id: session.runId,
      trace_path: `/runs/${session.sessionId}/${session.runId}`
    })

    const record = await runtime.runPromise(
      Effect.flatMap(CanonicalInvocationStore, (s) => s.get(session.runId as RunId, toolCallId as ToolCallId))
    )
    const canonical = Option.getOrThrow(record)
    expect(canonical.status).toBe("READY")
    // Raw is internal fact: the secret is in the canonical record, never in the response.
    expect(JSON.stringify(canonical)).toContain(SECRET)

    await client.close()
    await session.close()
    const t = await trace(session)
    expect(t.run.status).toBe("FINISHED")
    const invocations = t.tool_invocations_without_step
    expect(invocations.map((i) => [i.tool_call_id, i.status])).toEqual([[toolCallId, "READY"]])
    expect(t.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "TOOL_INVOCATION", "RUN_FINISHED"])
    expect(t.reconciliation.audit_complete).toBe(true)
  })

  it("enforces the session's call budget across calls: BUDGET_EXHAUSTED as an MCP tool error", async () => {
    const { client } = await connect({ budget: { maxToolCalls: 2 } })
    const call = (query: string) => client.callTool({ name: "query_fake_logs", arguments: { query } })
    expect((await call("a")).isError).toBeUndefined()
    expect((await call("b")).isError).toBeUndefined()
    const third = await call("c")
    expect(third.isError).toBe(true)
    expect(third.structuredContent).toMatchObject({ status: "ERROR", error_code: "BUDGET_EXHAUSTED" })
    expect(JSON.parse((third.content as Array<{ text: string }>)[0]!.text).error_code).toBe(
      "BUDGET_EXHAUSTED"
    )
    await client.close()
  })

  it("refuses invalid arguments and unknown tools with stable codes", async () => {
    const { client } = await connect()
    const invalid = await client.callTool({ name: "query_fake_logs", arguments: { query: "" } })
    expect(invalid.structuredContent).toMatchObject({ error_code: "INVALID_REQUEST" })
    expect(invalid.isError).toBe(true)
    const unknown = await client.callTool({ name: "drop_tables", arguments: {} })
    expect(unknown.structuredContent).toMatchObject({ error_code: "TOOL_NOT_AUTHORIZED" })
    await client.close()
  })

  it("refuses a replayed request id in the same session as DUPLICATE_TOOL_CALL_ID", async () => {
    const session = await makeMcpSession({ tools: [fakeLogsTool], runner: runnerOf(runtime) })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    const responses: JSONRPCMessage[] = []
    const waiters: Array<() => void> = []
    clientSide.onmessage = (message) => {
      responses.push(message)
      waiters.shift()?.()
    }
    await clientSide.start()
    const send = async (message: JSONRPCMessage) => {
      const answered = new Promise<void>((resolve) => waiters.push(resolve))
      await clientSide.send(message)
      await answered
      return responses.at(-1) as { result: Record<string, unknown> }
    }
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    })
    await clientSide.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    const call = {
      jsonrpc: "2.0" as const,
      id: 7,
      method: "tools/call",
      params: { name: "query_fake_logs", arguments: { query: "x" } }
    }
    const first = await send(call)
    expect(first.result.structuredContent).toMatchObject({ tool_call_id: "mcp-7", status: "READY" })
    const replay = await send(call)
    expect(replay.result.isError).toBe(true)
    expect(replay.result.structuredContent).toMatchObject({ error_code: "DUPLICATE_TOOL_CALL_ID" })
    await clientSide.close()
    await session.close()
  })
})

describe("serve over Streamable HTTP", () => {
  const clientOver = (handler: ReturnType<typeof makeMcpHttpHandler>) =>
    new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
      fetch: (url, init) => handler.handle(new Request(url, init))
    })

  it("opens one run per session, calls through the boundary, DELETE finishes the run", async () => {
    const handler = makeMcpHttpHandler({
      tools: [fakeLogsTool],
      runner: runnerOf(runtime),
      budget: { maxToolCalls: 1 }
    })
    const client = new Client({ name: "http", version: "1" })
    const transport = clientOver(handler)
    await client.connect(transport)
    expect(handler.size()).toBe(1)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["query_fake_logs"])
    const ok = await client.callTool({ name: "query_fake_logs", arguments: { query: "checkout" } })
    expect(ok.structuredContent).toMatchObject({ status: "READY" })
    expect(JSON.stringify(ok)).not.toContain(SECRET)
    const over = await client.callTool({ name: "query_fake_logs", arguments: { query: "again" } })
    expect(over.structuredContent).toMatchObject({ error_code: "BUDGET_EXHAUSTED" })
    const meta = ok._meta?.[RUN_META_KEY] as { session_id: string; run_id: string }
    expect(transport.sessionId).toBe(meta.run_id)

    await transport.terminateSession()
    await client.close()
    expect(handler.size()).toBe(0)
    const t = await runtime.runPromise(
      Effect.flatMap(TraceQuery, (q) => q.getTrace(meta.session_id, meta.run_id))
    )
    expect(t.run.status).toBe("FINISHED")
    expect(t.tool_invocations_without_step.map((i) => i.error_code)).toEqual([null, "BUDGET_EXHAUSTED"])
  })

  it("an initialize the transport refuses opens no session and leaves no run ACTIVE", async () => {
    const handler = makeMcpHttpHandler({ tools: [fakeLogsTool], runner: runnerOf(runtime) })
    const refused = await handler.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        // No `accept: text/event-stream`: the transport answers 406.
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } }
        })
      })
    )
    expect(refused.status).toBe(406)
    expect(handler.size()).toBe(0)
    const runs = await runtime.runPromise(Effect.flatMap(TraceQuery, (q) => q.listRuns({ limit: 10 })))
    expect(runs.runs).toHaveLength(1)
    expect(runs.runs[0]!.status).toBe("FINISHED")
  })

  it("a session idle for idleTimeoutMs is ended and its run finished", async () => {
    const handler = makeMcpHttpHandler({
      tools: [fakeLogsTool],
      runner: runnerOf(runtime),
      idleTimeoutMs: 50
    })
    const client = new Client({ name: "idle", version: "1" })
    await client.connect(clientOver(handler))
    expect(handler.size()).toBe(1)
    for (let i = 0; i < 200 && handler.size() > 0; i++) await new Promise((r) => setTimeout(r, 10))
    expect(handler.size()).toBe(0)
    const runs = await runtime.runPromise(Effect.flatMap(TraceQuery, (q) => q.listRuns({ limit: 10 })))
    expect(runs.runs.map((r) => r.status)).toEqual(["FINISHED"])
    await client.close().catch(() => undefined)
  })

  it("answers an unknown session 404 and a request before initialize 400; closeAll ends every run", async () => {
    const handler = makeMcpHttpHandler({ tools: [fakeLogsTool], runner: runnerOf(runtime) })
    const unknown = await handler.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", "mcp-session-id": "nope" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      })
    )
    expect(unknown.status).toBe(404)
    const early = await handler.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      })
    )
    expect(early.status).toBe(400)
    const notJson = await handler.handle(new Request("http://127.0.0.1/mcp", { method: "POST", body: "{" }))
    expect(notJson.status).toBe(400)
    const client = new Client({ name: "http", version: "1" })
    await client.connect(clientOver(handler))
    expect(handler.size()).toBe(1)
    await handler.closeAll()
    expect(handler.size()).toBe(0)
  })
})
