import type { Readable, Writable } from "node:stream"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js"
import type { McpSession } from "./serve.js"

/**
 * The stdio transport, counting requests not yet answered (a cancelled one is never answered:
 * dropped), so that the end of stdin can wait for the answers still to come.
 */
const trackingTransport = (inner: StdioServerTransport) => {
  const pending = new Set<RequestId>()
  let whenIdle: (() => void) | null = null
  const settle = (id: RequestId) => {
    pending.delete(id)
    if (pending.size === 0) whenIdle?.()
  }
  const transport: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: async (message: JSONRPCMessage) => {
      await inner.send(message)
      if (("result" in message || "error" in message) && message.id !== undefined) settle(message.id)
    }
  }
  inner.onmessage = (message) => {
    if ("method" in message && "id" in message) pending.add(message.id)
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId
      if (id !== undefined) settle(id)
    }
    transport.onmessage?.(message)
  }
  inner.onerror = (error) => transport.onerror?.(error)
  inner.onclose = () => transport.onclose?.()
  const idle = (): Promise<void> =>
    pending.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (whenIdle = resolve))
  return { transport, idle }
}

/**
 * Serves one session over stdio (default: the process's stdin/stdout) until the client closes
 * stdin (or `signal` aborts), then ends the session's run. A client that closes stdin right after
 * its requests still gets every answer. stdout carries only the protocol: log to stderr.
 */
export const serveStdio = async (
  session: McpSession,
  options: {
    readonly stdin?: Readable
    readonly stdout?: Writable
    /** Ends the session at once (SIGINT/SIGTERM): the run still finishes. */
    readonly signal?: AbortSignal
  } = {}
): Promise<void> => {
  const stdin = options.stdin ?? process.stdin
  const { transport, idle } = trackingTransport(
    new StdioServerTransport(stdin, options.stdout ?? process.stdout)
  )
  const closed = new Promise<void>((resolve) => {
    const previous = transport.onclose
    transport.onclose = () => {
      previous?.()
      resolve()
    }
  })
  // The transport does not notice the end of its input by itself.
  stdin.once("end", () => void idle().then(() => transport.close()))
  if (options.signal?.aborted) void transport.close()
  options.signal?.addEventListener("abort", () => void transport.close(), { once: true })
  await session.server.connect(transport)
  await closed
  await session.close()
}
