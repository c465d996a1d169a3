import type { Readable, Writable } from "node:stream"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { McpSession } from "./serve.js"

/**
 * Serves one session over stdio (default: the process's stdin/stdout) until the client closes
 * stdin (or `signal` aborts), then ends the session's run. stdout carries only the protocol: log to stderr.
 */
export const serveStdio = async (
  session: McpSession,
  options: {
    readonly stdin?: Readable
    readonly stdout?: Writable
    /** Ends the session early (SIGINT/SIGTERM): the run still finishes. */
    readonly signal?: AbortSignal
  } = {}
): Promise<void> => {
  const stdin = options.stdin ?? process.stdin
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout)
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
  })
  // The transport does not notice the end of its input by itself.
  stdin.once("end", () => void transport.close())
  if (options.signal?.aborted) void transport.close()
  options.signal?.addEventListener("abort", () => void transport.close(), { once: true })
  await session.server.connect(transport)
  await closed
  await session.close()
}
