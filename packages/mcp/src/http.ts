import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { type McpSession, type McpSessionOptions, makeMcpSession } from "./serve.js"

export interface McpHttpOptions extends Omit<McpSessionOptions, "sessionId"> {
  /** Open MCP sessions at most (each is a running harness run). Default 64. */
  readonly maxSessions?: number
}

/** Streamable HTTP MCP endpoint over Web `Request`/`Response` (mount it in any router). */
export interface McpHttpHandler {
  readonly handle: (request: Request) => Promise<Response>
  /** Open sessions (runs not finished). */
  readonly size: () => number
  /** Ends every session's run and closes its transport. */
  readonly closeAll: () => Promise<void>
}

const jsonRpcError = (status: number, code: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" }
  })

/**
 * One harness run per MCP session: `initialize` (POST without `mcp-session-id`) opens a run and
 * answers with its session id (the run id); later requests are routed by that header; `DELETE`
 * ends the session and finishes its run.
 */
export const makeMcpHttpHandler = (options: McpHttpOptions): McpHttpHandler => {
  const maxSessions = options.maxSessions ?? 64
  const sessions = new Map<
    string,
    { readonly transport: WebStandardStreamableHTTPServerTransport; readonly session: McpSession }
  >()

  const open = async (request: Request): Promise<Response> => {
    if (request.method !== "POST")
      return jsonRpcError(400, -32000, "no mcp-session-id: send initialize first")
    let body: unknown
    try {
      body = await request.json()
    } catch {
      return jsonRpcError(400, -32700, "body is not valid JSON")
    }
    if (!isInitializeRequest(body))
      return jsonRpcError(400, -32000, "no mcp-session-id: send initialize first")
    if (sessions.size >= maxSessions) return jsonRpcError(503, -32000, "too many open MCP sessions")
    const session = await makeMcpSession(options)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => session.runId,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, session })
      },
      onsessionclosed: (id) => {
        sessions.delete(id)
        void session.close()
      }
    })
    transport.onclose = () => {
      sessions.delete(session.runId)
      void session.close()
    }
    await session.server.connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

  return {
    handle: (request) => {
      const id = request.headers.get("mcp-session-id")
      if (id === null) return open(request)
      const entry = sessions.get(id)
      if (!entry) return Promise.resolve(jsonRpcError(404, -32001, "unknown or closed MCP session"))
      return entry.transport.handleRequest(request)
    },
    size: () => sessions.size,
    closeAll: async () => {
      const all = [...sessions.values()]
      sessions.clear()
      await Promise.all(
        all.map(async ({ transport, session }) => {
          await session.close()
          await transport.close().catch(() => undefined)
        })
      )
    }
  }
}
