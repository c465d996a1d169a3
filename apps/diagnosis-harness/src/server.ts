import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import type { AppConfig } from "./config.js"
import { makeHttpApp } from "./http.js"
import type { AppRuntime } from "./runtime.js"

export interface RunningServer {
  readonly port: number
  readonly host: string
  /** Stops accepting connections, waits for open ones, then disposes the runtime (every pool). */
  readonly close: () => Promise<void>
}

/**
 * Serves the HTTP API on `config.host:config.port` (port 0: any free port). The runtime is
 * built before listening so a broken backend fails the start, not the first request.
 */
export const startServer = async (runtime: AppRuntime, config: AppConfig): Promise<RunningServer> => {
  await runtime.context()
  const app = makeHttpApp(runtime, config)
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s))
    s.once("error", reject)
  })
  const address = server.address() as AddressInfo
  let closing: Promise<void> | null = null
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      // Idle keep-alive sockets would hold close() open; SSE streams end with their run.
      ;(server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.()
    }).then(() => runtime.dispose())
    return closing
  }
  return { port: address.port, host: config.host, close }
}
