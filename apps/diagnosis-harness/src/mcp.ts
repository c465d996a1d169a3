import {
  type McpHttpHandler,
  type McpRunner,
  makeMcpHttpHandler,
  makeMcpSession,
  serveStdio
} from "@aiops-harness/mcp"
import { Effect } from "effect"
import { Hono } from "hono"
import type { AppConfig } from "./config.js"
import type { InFlightRuns } from "./http.js"
import { type AppRuntime, DiagnosisTools } from "./runtime.js"
import { runPagePath } from "./viewer/index.js"

/** The app runtime as the MCP package's runner. */
const runnerOf = (runtime: AppRuntime): McpRunner => ({
  runPromise: (effect, options) => runtime.runPromise(effect, options)
})

const appTools = (runtime: AppRuntime) => runtime.runPromise(Effect.map(DiagnosisTools, (t) => t.tools))

/** Server name announced at `initialize`. */
const SERVER_INFO = { name: "aiops-harness", version: "0.1.0" } as const

/**
 * `mcp` over stdio: one MCP session (one run) on the app's services until the client closes
 * stdin. stdout carries only the protocol. Returns the run's ids once it has finished.
 */
export const serveMcpStdio = async (
  runtime: AppRuntime,
  config: Pick<AppConfig, "mcpMaxToolCalls">,
  options: Parameters<typeof serveStdio>[1] = {}
): Promise<{ readonly sessionId: string; readonly runId: string }> => {
  const session = await makeMcpSession({
    tools: await appTools(runtime),
    runner: runnerOf(runtime),
    serverInfo: SERVER_INFO,
    tracePath: runPagePath,
    budget: { maxToolCalls: config.mcpMaxToolCalls }
  })
  await serveStdio(session, options)
  return { sessionId: session.sessionId, runId: session.runId }
}

/**
 * `/mcp`: Streamable HTTP, one run per MCP session (POST, DELETE). A GET (server-initiated
 * notification stream) is refused with 405: the harness sends none, and an open stream would
 * hold a graceful shutdown for its whole grace period. The open sessions are in-flight work of
 * `runs`: a shutdown refuses new ones and finishes every session's run.
 */
export const makeMcpRoutes = (
  runtime: AppRuntime,
  config: Pick<AppConfig, "mcpMaxToolCalls">,
  runs: InFlightRuns
): Hono => {
  let handler: Promise<McpHttpHandler> | null = null
  const handlerOf = () => {
    if (handler === null) {
      const created = appTools(runtime).then((tools) =>
        makeMcpHttpHandler({
          tools,
          runner: runnerOf(runtime),
          serverInfo: SERVER_INFO,
          tracePath: runPagePath,
          budget: { maxToolCalls: config.mcpMaxToolCalls }
        })
      )
      handler = created
      void runs.track(
        (signal) =>
          new Promise<void>((resolve) => {
            const stop = () => void created.then((h) => h.closeAll()).finally(resolve)
            if (signal.aborted) stop()
            else signal.addEventListener("abort", stop, { once: true })
          })
      )
    }
    return handler
  }
  const app = new Hono()
  app.get("/mcp", (c) => {
    c.header("allow", "POST, DELETE")
    return c.json(
      { jsonrpc: "2.0", error: { code: -32000, message: "GET is not supported: use POST" }, id: null },
      405
    )
  })
  app.on(["POST", "DELETE"], "/mcp", async (c) => {
    if (runs.closing) {
      return c.json(
        { jsonrpc: "2.0", error: { code: -32000, message: "the server is shutting down" }, id: null },
        503
      )
    }
    return (await handlerOf()).handle(c.req.raw)
  })
  return app
}
