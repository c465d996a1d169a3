import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { type McpSession, type McpSessionOptions, makeMcpSession } from "./serve.js"

/** Options of the Streamable HTTP endpoint: session options plus session limits. */
export interface McpHttpOptions extends Omit<McpSessionOptions, "sessionId"> {
  /** Open MCP sessions at most (each is a running harness run). Default 64. */
  readonly maxSessions?: number
  /**
   * A session without a request for this long is ended (its run finished), so that clients that
   * vanish without `DELETE` do not hold sessions forever. Default 30 minutes.
   */
  readonly idleTimeoutMs?: number
}

/** Streamable HTTP MCP endpoint over Web `Request`/`Response` (mount it in any router). */
export interface McpHttpHandler {
  /** Answers one HTTP request to the MCP endpoint. */
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

interface Entry {
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly session: McpSession
  idle: ReturnType<typeof setTimeout> | null
}

/**
 * One harness run per MCP session: `initialize` (POST without `mcp-session-id`) opens a run and
 * answers with its session id (the run id); later requests are routed by that header; `DELETE`
 * (or `idleTimeoutMs` without a request) ends the session and finishes its run.
 */
export const makeMcpHttpHandler = (options: McpHttpOptions): McpHttpHandler => {
  const maxSessions = options.maxSessions ?? 64
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000
  const sessions = new Map<string, Entry>()

  const end = async (entry: Entry) => {
    if (entry.idle) clearTimeout(entry.idle)
    sessions.delete(entry.session.runId)
    await entry.session.close()
    await entry.transport.close().catch(() => undefined)
  }
  const touch = (entry: Entry) => {
    if (entry.idle) clearTimeout(entry.idle)
    entry.idle = setTimeout(() => void end(entry), idleTimeoutMs)
    entry.idle.unref?.()
  }

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
    const entry: Entry = {
      session,
      idle: null,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => session.runId,
        onsessioninitialized: (id) => {
          sessions.set(id, entry)
          touch(entry)
        },
        onsessionclosed: () => void end(entry)
      })
    }
    entry.transport.onclose = () => void end(entry)
    await session.server.connect(entry.transport)
    const response = await entry.transport.handleRequest(request, { parsedBody: body })
    // The transport refused the initialize (headers, version): no session, the run ends now.
    if (!sessions.has(session.runId)) await end(entry)
    return response
  }

  return {
    handle: async (request) => {
      const id = request.headers.get("mcp-session-id")
      if (id === null) return open(request)
      const entry = sessions.get(id)
      if (!entry) return jsonRpcError(404, -32001, "unknown or closed MCP session")
      touch(entry)
      return entry.transport.handleRequest(request)
    },
    size: () => sessions.size,
    closeAll: async () => {
      await Promise.all([...sessions.values()].map(end))
    }
  }
}
