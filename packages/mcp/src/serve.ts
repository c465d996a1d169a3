import {
  type AgentObservation,
  defaultRunBudgetLimits,
  makeRun,
  makeToolBoundary,
  newSessionId,
  parseSessionId,
  type RunBudgetLimits,
  type RunContext,
  type SessionId,
  type ToolBoundaryConfig,
  type ToolBoundaryShape,
  type ToolDefinition
} from "@aiops-harness/core"
import { requestJsonSchema } from "@aiops-harness/tools"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  type CallToolResult,
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { McpRunner } from "./runner.js"

/** `_meta` key of every tool result: where the session's trace lives. */
export const RUN_META_KEY = "io.aiops-harness/run"

/** Options of one MCP session: the tools it serves, its runner and its run budget. */
export interface McpSessionOptions {
  /** The harness tools to serve; only authorized read-only ones are listed (the boundary's list). */
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly runner: McpRunner
  /** The run budget of the whole MCP session (all its calls share it). */
  readonly budget?: Partial<RunBudgetLimits>
  readonly boundary?: Partial<ToolBoundaryConfig>
  /** Session id of the run (default: a new one). Must match `ID_PATTERN`. */
  readonly sessionId?: string
  /** Server name and version announced at `initialize`. */
  readonly serverInfo?: { readonly name: string; readonly version: string }
  /** The trace page of the run, announced in `_meta` (e.g. `/runs/<sessionId>/<runId>`). */
  readonly tracePath?: (sessionId: string, runId: string) => string
}

/** One MCP session = one harness run: its server, ids and the call that ends the run. */
export interface McpSession {
  readonly server: Server
  readonly sessionId: SessionId
  readonly runId: string
  readonly boundary: ToolBoundaryShape
  /** Resolves once no `tools/call` of the session is running. */
  readonly drain: () => Promise<void>
  /**
   * Waits for the running calls, then ends the run (`RUN_FINISHED`, `FINISHED`) once; later calls
   * do nothing. Closes the server.
   */
  readonly close: () => Promise<void>
}

/** The MCP tool declaration of a harness tool: zod-derived input schema, read-only hint. */
export const mcpToolOf = (tool: ToolDefinition): Tool => ({
  name: tool.name,
  description: tool.description,
  inputSchema: requestJsonSchema(tool.requestSchema) as Tool["inputSchema"],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true }
})

/**
 * The harness-issued tool call id of one `tools/call`: from the JSON-RPC request id, so a
 * replayed request id in the same session is refused as `DUPLICATE_TOOL_CALL_ID`.
 */
export const toolCallIdOf = (requestId: string | number): string => `mcp-${String(requestId)}`

/** The MCP result of one boundary outcome: the agent observation only, as structured content and text. */
export const toCallToolResult = (
  observation: AgentObservation,
  isError: boolean,
  meta: Record<string, unknown>
): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(observation) }],
  structuredContent: observation as Record<string, unknown>,
  ...(isError ? { isError: true } : {}),
  _meta: meta
})

/**
 * Opens a run and an MCP server whose `tools/call` goes through that run's ToolBoundary:
 * budgets, duplicate-id refusal, canonical record, audit. Connect any transport to `server`.
 */
export const makeMcpSession = async (options: McpSessionOptions): Promise<McpSession> => {
  const sessionId =
    options.sessionId === undefined
      ? newSessionId()
      : await Effect.runPromise(parseSessionId(options.sessionId))
  const tools = options.tools
  const { run, boundary } = await options.runner.runPromise(
    Effect.gen(function* () {
      const run: RunContext = yield* makeRun({
        sessionId,
        query: "MCP session",
        authorizedTools: tools.map((t) => t.name),
        budget: { ...defaultRunBudgetLimits, ...options.budget }
      })
      const boundary = yield* makeToolBoundary({
        run,
        tools,
        ...(options.boundary ? { config: options.boundary } : {})
      })
      return { run, boundary }
    })
  )
  const runMeta = {
    [RUN_META_KEY]: {
      session_id: sessionId,
      run_id: run.runId,
      ...(options.tracePath ? { trace_path: options.tracePath(sessionId, run.runId) } : {})
    }
  }
  const server = new Server(options.serverInfo ?? { name: "aiops-harness", version: "0.1.0" }, {
    capabilities: { tools: {} },
    instructions:
      "Read-only diagnosis tools of aiops-harness. Every call goes through the harness's ToolBoundary " +
      `(budgets, redaction, audit). Cite results by their tool_call_id. Run: ${sessionId}/${run.runId}.`
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: boundary.tools.map(mcpToolOf) }))
  // Calls still running: closing waits for them, so that no audit row lands after RUN_FINISHED
  // and a client that closes its input right after a request still gets the answer.
  const inFlight = new Set<Promise<unknown>>()
  const track = <A>(promise: Promise<A>): Promise<A> => {
    inFlight.add(promise)
    const done = () => inFlight.delete(promise)
    promise.then(done, done)
    return promise
  }
  const drain = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight])
  }
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const outcome = await track(
      options.runner.runPromise(
        boundary.call({
          runId: run.runId,
          toolCallId: toolCallIdOf(extra.requestId),
          toolName: request.params.name,
          arguments: request.params.arguments ?? {}
        }),
        { signal: extra.signal }
      )
    )
    return toCallToolResult(outcome.observation, outcome.error !== null, runMeta)
  })

  let closed: Promise<void> | null = null
  const close = () => {
    closed ??= drain()
      .then(() =>
        options.runner.runPromise(run.finish({ status: "FINISHED", source: "mcp" }).pipe(Effect.ignore))
      )
      .then(() => server.close())
      .catch(() => undefined)
    return closed
  }
  const previous = server.onclose
  server.onclose = () => {
    previous?.()
    void close()
  }
  return { server, sessionId, runId: run.runId, boundary, drain, close }
}
