import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { writeFile, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  CanonicalInvocationStore,
  makeRun,
  makeToolBoundary,
  newSessionId,
  type RunId,
  type ToolCallId,
  revealed,
  type ToolDefinition
} from "@aiops-harness/core"
import { evidenceGuard } from "@aiops-harness/guards"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server as McpSdkServer } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  type CallToolResult,
  CallToolRequestSchema,
  ListToolsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  connectExternalTools,
  type ExternalTools,
  loadMcpConfigFile,
  type McpConfig,
  McpConfigError,
  McpServerError,
  makeMcpSession,
  parseMcpConfig
} from "../src/index.js"
import { fakeLogsTool, makeTestRuntime, runnerOf, type TestRuntime } from "./helpers.js"

const fixture = fileURLToPath(new URL("./fixtures/external-server.mjs", import.meta.url))

const config = (): unknown => ({
  servers: {
    ticketing: {
      command: process.execPath,
      args: [fixture],
      timeoutMs: 5000,
      projector: { maxItems: 5, maxStringChars: 200 },
      tools: {
        search_tickets: {
          allowed: true,
          readOnly: true,
          projector: { fields: ["items.id", "items.title", "items.body"] }
        },
        delete_ticket: { allowed: true, readOnly: false },
        disallowed_tool: { allowed: false, readOnly: true },
        huge: { allowed: true, readOnly: true },
        hang: { allowed: true, readOnly: true, timeoutMs: 300 },
        die: { allowed: true, readOnly: true },
        empty: { allowed: true, readOnly: true },
        fails: { allowed: true, readOnly: true },
        malformed: { allowed: true, readOnly: true },
        not_offered: { allowed: true, readOnly: true }
      }
    }
  }
})

const parse = (value: unknown) => Effect.runPromise(parseMcpConfig(value))
const parseError = async (value: unknown): Promise<McpConfigError> => {
  const exit = await Effect.runPromiseExit(parseMcpConfig(value))
  if (Exit.isSuccess(exit)) throw new Error("expected a config error")
  const error = exit.cause.reasons[0]
  return (error as unknown as { error: McpConfigError }).error
}

describe("external server config", () => {
  it("accepts stdio and Streamable HTTP servers", async () => {
    const parsed = await parse({
      servers: {
        a: { command: "node", tools: { t: { allowed: true, readOnly: true } } },
        b: { url: "https://mcp.example.com/mcp", tools: {} }
      }
    })
    expect(Object.keys(parsed.servers)).toEqual(["a", "b"])
  })

  it("holds a server's env and headers Redacted: a logged config cannot print them", async () => {
    const parsed = await parse({
      servers: {
        a: { command: "node", env: { TOKEN: "sekrit-env-token" }, tools: {} },
        b: {
          url: "https://mcp.example.com/mcp",
          headers: { authorization: "Bearer sekrit-header" },
          tools: {}
        }
      }
    })
    expect(JSON.stringify(parsed)).not.toContain("sekrit")
    expect(String(parsed.servers.a && "env" in parsed.servers.a ? parsed.servers.a.env : "")).toBe(
      "<redacted:env>"
    )
    const a = parsed.servers.a!
    const b = parsed.servers.b!
    expect("env" in a && a.env ? revealed(a.env) : null).toEqual({ TOKEN: "sekrit-env-token" })
    expect("headers" in b && b.headers ? revealed(b.headers) : null).toEqual({
      authorization: "Bearer sekrit-header"
    })
  })

  it("refuses a bad config with a typed error naming the path, never echoing values", async () => {
    const error = await parseError({
      servers: {
        a: { command: "node", env: { TOKEN: "sekrit-token-value" }, tools: { t: { allowed: true } } },
        b: { url: "ftp://sekrit@host", tools: {} },
        "bad name": { command: "x", tools: {} }
      }
    })
    expect(error).toBeInstanceOf(McpConfigError)
    expect(error.issues.length).toBeGreaterThan(0)
    expect(error.message).not.toContain("sekrit")
    expect(error.issues.some((i) => i.startsWith("servers.a") || i.startsWith("servers"))).toBe(true)
    const tooLong = await parseError({
      servers: { s: { command: "x", tools: { ["t".repeat(63)]: { allowed: true, readOnly: true } } } }
    })
    expect(tooLong.issues.join()).toContain("longer than 64")
    const unknownKey = await parseError({ servers: {}, extra: 1 })
    expect(unknownKey.issues.join()).toContain("extra")
  })

  it("loads a file: unreadable, not JSON and invalid are McpConfigError", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-config-"))
    try {
      const missing = await Effect.runPromiseExit(loadMcpConfigFile(join(dir, "none.json")))
      expect(JSON.stringify(missing)).toContain("cannot read the file")
      await writeFile(join(dir, "bad.json"), "{")
      const bad = await Effect.runPromiseExit(loadMcpConfigFile(join(dir, "bad.json")))
      expect(JSON.stringify(bad)).toContain("not valid JSON")
      await writeFile(join(dir, "ok.json"), JSON.stringify(config()))
      const ok = await Effect.runPromise(loadMcpConfigFile(join(dir, "ok.json")))
      expect(Object.keys(ok.servers.ticketing!.tools)).toContain("search_tickets")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe("external MCP server governed by the config (child process)", () => {
  let runtime: TestRuntime
  let external: ExternalTools
  let client: Client
  let runId: string

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult
    return { ...result, observation: result.structuredContent as Record<string, unknown> }
  }

  beforeAll(async () => {
    runtime = makeTestRuntime()
    const parsed: McpConfig = await parse(config())
    external = await Effect.runPromise(connectExternalTools(parsed))
    const session = await makeMcpSession({
      tools: [fakeLogsTool, ...external.tools],
      runner: runnerOf(runtime),
      budget: { maxRawBytesPerCall: 1024 * 1024, maxToolCalls: 50 }
    })
    runId = session.runId
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    client = new Client({ name: "test", version: "1" })
    await client.connect(clientSide)
  })
  afterAll(async () => {
    await client?.close()
    await external?.close()
    await runtime?.dispose()
  })

  it("lists allowed read-only tools like built-ins; unlisted, disallowed and write tools are invisible", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual([
      "query_fake_logs",
      "ticketing__search_tickets",
      "ticketing__huge",
      "ticketing__hang",
      "ticketing__die",
      "ticketing__empty",
      "ticketing__fails",
      "ticketing__malformed"
    ])
    expect(external.missing).toEqual(["ticketing__not_offered"])
    const search = (await client.listTools()).tools.find((t) => t.name === "ticketing__search_tickets")!
    expect(search.inputSchema).toMatchObject({ type: "object", properties: { query: { type: "string" } } })
    // The server's description is outside text: redacted.
    expect(search.description).not.toContain("admin@example.com")
  })

  it("projects a result: allowlist, items bound, every string redacted; raw kept in the canonical record", async () => {
    const result = await call("ticketing__search_tickets", { query: "checkout" })
    expect(result.isError).toBeUndefined()
    const o = result.observation
    expect(o).toMatchObject({
      status: "READY",
      evidence_status: "EVIDENCE_FOUND",
      truncated: true,
      server: "ticketing"
    })
    const items = (o.result as { items: Array<Record<string, unknown>> }).items
    expect(items).toHaveLength(5)
    expect(Object.keys(items[0]!).sort()).toEqual(["body", "id", "title"])
    const text = JSON.stringify(result)
    expect(text).not.toContain("hunter2")
    expect(text).not.toContain("10.1.2.3")
    expect(text).not.toContain("internal_score")

    const record = await runtime.runPromise(
      Effect.flatMap(CanonicalInvocationStore, (s) => s.get(runId as RunId, o.tool_call_id as ToolCallId))
    )
    const canonical = Option.getOrThrow(record)
    expect(canonical.status).toBe("READY")
    expect(JSON.stringify(canonical)).toContain("hunter2")
  })

  it("citations of an external call are checked by EvidenceGuard: projected text passes, raw-only text fails", async () => {
    const result = await call("ticketing__search_tickets", { query: "evidence" })
    const toolCallId = result.observation.tool_call_id as string
    const guard = (ref: string) =>
      runtime.runPromise(
        evidenceGuard({
          runId,
          draft: {
            summary: "",
            claims: [
              { text: "checkout failed", citations: [{ tool_call_id: toolCallId, kind: "excerpt", ref }] }
            ]
          }
        })
      )
    expect((await guard("checkout 500 after deploy 3")).passed).toBe(true)
    const rawOnly = await guard("hunter2-secret from")
    expect(rawOnly.passed).toBe(false)
    const unknown = await runtime.runPromise(
      evidenceGuard({
        runId,
        draft: {
          summary: "",
          claims: [
            { text: "x", citations: [{ tool_call_id: "mcp-999", kind: "excerpt", ref: "checkout 500" }] }
          ]
        }
      })
    )
    expect(unknown.passed).toBe(false)
  })

  it("validates arguments against the server's schema before calling it", async () => {
    const result = await call("ticketing__search_tickets", { query: "" })
    expect(result.observation).toMatchObject({ error_code: "INVALID_REQUEST" })
  })

  it("refuses a tool the config says is not read-only (the server's readOnlyHint is ignored)", async () => {
    const result = await call("ticketing__delete_ticket", { id: "T-1" })
    expect(result.isError).toBe(true)
    expect(result.observation).toMatchObject({ error_code: "TOOL_NOT_READ_ONLY" })
  })

  it("an unlisted or disallowed tool cannot be called", async () => {
    expect((await call("ticketing__hidden_tool")).observation).toMatchObject({
      error_code: "TOOL_NOT_AUTHORIZED"
    })
    expect((await call("ticketing__disallowed_tool")).observation).toMatchObject({
      error_code: "TOOL_NOT_AUTHORIZED"
    })
  })

  it("refuses a huge result as RAW_TOO_LARGE", async () => {
    const result = await call("ticketing__huge")
    expect(result.isError).toBe(true)
    expect(result.observation).toMatchObject({ error_code: "RAW_TOO_LARGE" })
  })

  it("a hanging call ends as BACKEND_TIMEOUT and the next call still works", async () => {
    const result = await call("ticketing__hang")
    expect(result.observation).toMatchObject({ error_code: "BACKEND_TIMEOUT" })
    expect((await call("ticketing__empty")).observation).toMatchObject({ status: "READY" })
  })

  it("an empty result is READY + NO_EVIDENCE; a tool error is BACKEND_ERROR without its text", async () => {
    expect((await call("ticketing__empty")).observation).toMatchObject({
      status: "READY",
      evidence_status: "NO_EVIDENCE"
    })
    const failed = await call("ticketing__fails")
    expect(failed.observation).toMatchObject({ error_code: "BACKEND_ERROR" })
    expect(JSON.stringify(failed)).not.toContain("abc123")
  })

  it("a malformed result ends the call as BACKEND_ERROR", async () => {
    const result = await call("ticketing__malformed")
    expect(result.isError).toBe(true)
    expect(result.observation).toMatchObject({ error_code: "BACKEND_ERROR" })
  })

  it("a dying server ends the call as BACKEND_ERROR; the next call respawns it", async () => {
    const died = await call("ticketing__die")
    expect(died.isError).toBe(true)
    expect(died.observation).toMatchObject({ error_code: "BACKEND_ERROR" })
    const again = await call("ticketing__search_tickets", { query: "after restart" })
    expect(again.observation).toMatchObject({ status: "READY" })
  })
})

describe("external server startup failures are typed", () => {
  const fail = async (server: Record<string, unknown>) => {
    const parsed = await parse({ servers: { broken: { ...server, tools: {} } } })
    const exit = await Effect.runPromiseExit(connectExternalTools(parsed))
    if (Exit.isSuccess(exit)) throw new Error("expected a server error")
    return (exit.cause.reasons[0] as unknown as { error: McpServerError }).error
  }

  it("a command that exits at once: CONNECT_FAILED", async () => {
    const error = await fail({ command: process.execPath, args: ["-e", "process.exit(1)"] })
    expect(error).toBeInstanceOf(McpServerError)
    expect(error.reason).toBe("CONNECT_FAILED")
  })

  it("a server that never answers initialize: TIMEOUT", async () => {
    const error = await fail({
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      connectTimeoutMs: 300
    })
    expect(error.reason).toBe("TIMEOUT")
  })

  it("an HTTP server that is not there: CONNECT_FAILED", async () => {
    const error = await fail({ url: "http://127.0.0.1:1/mcp" })
    expect(error.reason).toBe("CONNECT_FAILED")
  })
})

describe("external Streamable HTTP server, and message bounds", () => {
  let httpServer: Server
  let url: string
  let runtime: TestRuntime

  const makeServer = () => {
    const server = new McpSdkServer({ name: "http-tickets", version: "1" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
        { name: "big", inputSchema: { type: "object" } },
        { name: "unlisted", inputSchema: { type: "object" } }
      ]
    }))
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      request.params.name === "big"
        ? { content: [{ type: "text", text: "b".repeat(300_000) }] }
        : {
            content: [{ type: "text", text: "see structured" }],
            structuredContent: { hits: [{ title: "pool exhausted", owner: "ops@example.com" }] }
          }
    )
    return server
  }

  beforeAll(async () => {
    runtime = makeTestRuntime()
    httpServer = createServer(async (req, res) => {
      // Stateless: one server and transport per request.
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true
      })
      const server = makeServer()
      res.on("close", () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req, res)
    })
    await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`
  })
  afterAll(async () => {
    httpServer.closeAllConnections()
    await new Promise((resolve) => httpServer.close(resolve))
    await runtime.dispose()
  })

  const boundaryOver = async (tools: ReadonlyArray<ToolDefinition>) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const run = yield* makeRun({
          sessionId: newSessionId(),
          query: "t",
          authorizedTools: tools.map((t) => t.name)
        })
        return yield* makeToolBoundary({ run, tools })
      })
    )

  it("governs an HTTP server like a stdio one; a message over maxMessageBytes is BACKEND_ERROR", async () => {
    const parsed = await parse({
      servers: {
        web: {
          url,
          maxMessageBytes: 100_000,
          tools: { search: { allowed: true, readOnly: true }, big: { allowed: true, readOnly: true } }
        }
      }
    })
    const external = await Effect.runPromise(connectExternalTools(parsed))
    try {
      expect(external.tools.map((t) => t.name)).toEqual(["web__search", "web__big"])
      const boundary = await boundaryOver(external.tools)
      const call = (toolCallId: string, toolName: string) =>
        runtime.runPromise(boundary.call({ runId: boundary.run.runId, toolCallId, toolName, arguments: {} }))
      const ok = await call("h1", "web__search")
      expect(ok.control.status).toBe("READY")
      expect(JSON.stringify(ok.observation)).toContain("pool exhausted")
      expect(JSON.stringify(ok.observation)).not.toContain("ops@example.com")
      const big = await call("h2", "web__big")
      expect(big.control.errorCode).toBe("BACKEND_ERROR")
      expect(big.control.rawBytes).toBe(0)
      expect((await call("h3", "web__search")).control.status).toBe("READY")
    } finally {
      await external.close()
    }
  })

  it("a stdio message over maxMessageBytes is BACKEND_ERROR before it is buffered whole", async () => {
    const parsed = await parse({
      servers: {
        ticketing: {
          command: process.execPath,
          args: [fixture],
          maxMessageBytes: 1024 * 1024,
          tools: { huge: { allowed: true, readOnly: true } }
        }
      }
    })
    const external = await Effect.runPromise(connectExternalTools(parsed))
    try {
      const boundary = await boundaryOver(external.tools)
      const outcome = await runtime.runPromise(
        boundary.call({
          runId: boundary.run.runId,
          toolCallId: "s1",
          toolName: "ticketing__huge",
          arguments: {}
        })
      )
      expect(outcome.control.errorCode).toBe("BACKEND_ERROR")
    } finally {
      await external.close()
    }
  })
})
