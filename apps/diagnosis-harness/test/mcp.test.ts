import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { diagnose } from "../src/diagnose.js"
import { type RunningServer, startServer } from "../src/server.js"
import { DiagnosisTools, makeAppRuntime, StartupError } from "../src/runtime.js"
import { expectNoLeak, makeTestWorld, type TestWorld } from "./helpers.js"

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url))
const ticketsServer = fileURLToPath(new URL("./fixtures/mcp-tickets-server.mjs", import.meta.url))
const RUN_META_KEY = "io.aiops-harness/run"

const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult

describe("pnpm mcp: the harness's tools over stdio (real child process)", () => {
  it("lists the read-only tools and calls query_logs through the boundary; no demo secret in any response", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp", "--scenario", "db-pool-exhaustion"],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe"
    })
    const client = new Client({ name: "stdio-test", version: "1" })
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(["lookup_knowledge", "query_logs"])
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint).toBe(true)
        expect(tool.inputSchema.type).toBe("object")
      }
      const logs = tools.find((t) => t.name === "query_logs")!
      expect(logs.inputSchema.required).toEqual(["topic", "query"])

      const responses: string[] = [JSON.stringify(tools)]
      const result = await callTool(client, "query_logs", {
        topic: "application",
        query: "*",
        lookback_minutes: 60
      })
      responses.push(JSON.stringify(result))
      expect(result.isError).toBeUndefined()
      expect(result.structuredContent).toMatchObject({
        tool: "query_logs",
        status: "READY",
        evidence_status: "EVIDENCE_FOUND"
      })
      const knowledge = await callTool(client, "lookup_knowledge", { query: "connection pool exhausted" })
      responses.push(JSON.stringify(knowledge))
      expect(knowledge.structuredContent).toMatchObject({ status: "READY" })
      const refused = await callTool(client, "query_mysql", { sql: "select 1" })
      responses.push(JSON.stringify(refused))
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error_code: "TOOL_NOT_AUTHORIZED" })
      expectNoLeak("MCP stdio responses", responses.join("\n"))
    } finally {
      await client.close()
    }
  })
})

describe("pnpm mcp: signals", () => {
  it("SIGTERM ends the session: the run finishes, the process exits 0", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, "mcp"],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const client = new Client({ name: "signal-test", version: "1" })
    await client.connect(transport)
    const pid = transport.pid!
    const closed = new Promise<void>((resolve) => {
      client.onclose = () => resolve()
    })
    const exited = new Promise<number | null>((resolve) => {
      const timer = setInterval(() => {
        try {
          process.kill(pid, 0)
        } catch {
          clearInterval(timer)
          resolve(null)
        }
      }, 20)
    })
    process.kill(pid, "SIGTERM")
    await Promise.race([closed, exited])
    await exited
    expect(stderr).toContain("mcp session closed: trace http://127.0.0.1:8787/runs/")
    await client.close()
  })
})

describe("/mcp: Streamable HTTP on the app's server", () => {
  let world: TestWorld
  let server: RunningServer
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion", PORT: "0", MCP_MAX_TOOL_CALLS: "8" })
    server = await startServer(world.runtime, world.config)
  })
  afterAll(async () => {
    await server.close()
  })
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`

  it("one MCP session is one run: budgets per session, trace API and run page after the session ends", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url("/mcp")))
    const client = new Client({ name: "http-test", version: "1" })
    await client.connect(transport)
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(["lookup_knowledge", "query_logs"])
    const responses: string[] = []
    const ids: string[] = []
    // MCP_MAX_TOOL_CALLS=8: the 9th call of the session is refused.
    for (let i = 0; i < 9; i++) {
      const result = await callTool(client, "query_logs", {
        topic: "application",
        query: i % 2 === 0 ? "level:ERROR" : "*",
        lookback_minutes: 10 + i
      })
      responses.push(JSON.stringify(result))
      ids.push((result.structuredContent as { tool_call_id: string }).tool_call_id)
      if (i < 8) expect(result.structuredContent).toMatchObject({ status: "READY" })
      else expect(result.structuredContent).toMatchObject({ status: "ERROR", error_code: "BUDGET_EXHAUSTED" })
    }
    expect(new Set(ids).size).toBe(9)
    expectNoLeak("MCP HTTP responses", responses.join("\n"))
    const meta = JSON.parse(responses[0]!)._meta[RUN_META_KEY] as {
      session_id: string
      run_id: string
      trace_path: string
    }
    expect(meta.trace_path).toBe(`/runs/${meta.session_id}/${meta.run_id}`)

    await transport.terminateSession()
    await client.close()
    const trace = await fetch(url(`/api/trace?sessionId=${meta.session_id}&runId=${meta.run_id}`))
    expect(trace.status).toBe(200)
    const body = (await trace.json()) as {
      run: { status: string }
      tool_invocations_without_step: Array<{ tool_call_id: string; error_code: string | null }>
      reconciliation: { audit_complete: boolean }
    }
    expect(body.run.status).toBe("FINISHED")
    expect(body.tool_invocations_without_step.map((t) => t.tool_call_id)).toEqual(ids)
    expect(body.tool_invocations_without_step.at(-1)!.error_code).toBe("BUDGET_EXHAUSTED")
    expect(body.reconciliation.audit_complete).toBe(true)
    const page = await fetch(url(meta.trace_path))
    expect(page.status).toBe(200)
    expectNoLeak("run page", await page.text())
  })

  it("a shutdown finishes the open MCP sessions' runs", async () => {
    const own = await makeTestWorld({ SCENARIO: "calm", PORT: "0" })
    const running = await startServer(own.runtime, own.config)
    const client = new Client({ name: "shutdown-test", version: "1" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${running.port}/mcp`)))
    const result = await callTool(client, "lookup_knowledge", { query: "connection pool" })
    const meta = result._meta?.[RUN_META_KEY] as { session_id: string; run_id: string }
    expect(running.inFlight()).toBe(1)
    const report = await running.shutdown({ graceMs: 5000 })
    expect(report.drained).toBe(true)
    // The runtime is disposed after the shutdown: read the in-memory audit's rows.
    const dump = JSON.parse(own.auditDump()) as {
      runs: Array<[string, { finish: { status: string } | null }]>
    }
    const run = dump.runs.find(([id]) => id === meta.run_id)
    expect(run?.[1].finish?.status).toBe("FINISHED")
    await client.close().catch(() => undefined)
  })

  it("refuses GET (405) and an unknown session (404)", async () => {
    const get = await fetch(url("/mcp"))
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST, DELETE")
    const unknown = await fetch(url("/mcp"), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": "r-unknown"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(unknown.status).toBe(404)
  })
})

describe("MCP_SERVERS_CONFIG: external MCP tools in the agent's tool list", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "app-mcp-"))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("adds the allowed tools (config decides read-only); served over /mcp with redacted results", async () => {
    const path = join(dir, "servers.json")
    await writeFile(
      path,
      JSON.stringify({
        servers: {
          tickets: {
            command: process.execPath,
            args: [ticketsServer],
            tools: {
              search_tickets: {
                allowed: true,
                readOnly: true,
                projector: { fields: ["items.id", "items.title", "items.note"] }
              },
              close_ticket: { allowed: true, readOnly: false }
            }
          }
        }
      })
    )
    const world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion", PORT: "0", MCP_SERVERS_CONFIG: path })
    const server = await startServer(world.runtime, world.config)
    try {
      const { tools } = await world.runtime.runPromise(DiagnosisTools)
      expect(tools.map((t) => t.name)).toEqual([
        "lookup_knowledge",
        "query_logs",
        "tickets__search_tickets",
        "tickets__close_ticket"
      ])
      // The agent's tool list: the external read-only tool next to the built-ins, with its schema.
      const outcome = await world.runtime.runPromise(
        diagnose({ question: "why is checkout returning 500s?", sessionId: "s-mcp-agent" })
      )
      expect(outcome.result.releaseResult).not.toBe("RUN_FAILED")
      const modelTools = world.model.requests.map(
        (r) => (JSON.parse(r) as { tools?: Array<{ name: string; parameters: unknown }> }).tools ?? []
      )
      const agentTurn = modelTools.find((tools) => tools.some((t) => t.name === "query_logs"))!
      expect(agentTurn.map((t) => t.name)).toEqual([
        "lookup_knowledge",
        "query_logs",
        "tickets__search_tickets"
      ])
      expect(agentTurn[2]!.parameters).toMatchObject({
        type: "object",
        properties: { query: { type: "string" } }
      })

      const client = new Client({ name: "http-test", version: "1" })
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)))
      const listed = (await client.listTools()).tools.map((t) => t.name)
      expect(listed).toEqual(["lookup_knowledge", "query_logs", "tickets__search_tickets"])
      const result = await callTool(client, "tickets__search_tickets", { query: "pool" })
      expect(result.structuredContent).toMatchObject({ status: "READY", server: "tickets" })
      expect(JSON.stringify(result)).not.toContain("Tickets-S3cret!")
      const refused = await callTool(client, "tickets__close_ticket", {})
      expect(refused.structuredContent).toMatchObject({ error_code: "TOOL_NOT_READ_ONLY" })
      await client.close()
    } finally {
      await server.close()
    }
  })

  it("a bad config file stops the startup with a typed error", async () => {
    const path = join(dir, "bad.json")
    await writeFile(
      path,
      JSON.stringify({ servers: { x: { command: "node", tools: { t: { allowed: true } } } } })
    )
    const runtime = makeAppRuntime(loadConfig({ MCP_SERVERS_CONFIG: path }))
    const exit = await runtime.runPromiseExit(DiagnosisTools)
    await runtime.dispose()
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const error = Cause.squash(exit.cause)
      expect(error).toBeInstanceOf(StartupError)
      expect((error as StartupError).stage).toBe("mcp_servers")
      expect((error as StartupError).message).toContain("servers.x.tools.t.readOnly")
    }
  })

  it("a server that cannot start stops the startup with a typed error", async () => {
    const path = join(dir, "dead.json")
    await writeFile(
      path,
      JSON.stringify({
        servers: { dead: { command: process.execPath, args: ["-e", "process.exit(1)"], tools: {} } }
      })
    )
    const runtime = makeAppRuntime(loadConfig({ MCP_SERVERS_CONFIG: path }))
    const exit = await runtime.runPromiseExit(Effect.map(DiagnosisTools, (t) => t.tools))
    await runtime.dispose()
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : null
    expect(error).toBeInstanceOf(StartupError)
    expect((error as StartupError).message).toBe('external MCP servers: MCP server "dead": CONNECT_FAILED')
  })
})
