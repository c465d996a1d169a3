import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { serve } from "@hono/node-server"
import type { AppConfig } from "./config.js"
import { InFlightRuns, makeHttpApp } from "./http.js"
import type { AppRuntime } from "./runtime.js"

export interface ShutdownReport {
  /** Runs that were still going when the shutdown began (each was interrupted). */
  readonly cancelledRuns: number
  /** False when the grace period ended with connections still open (they were closed). */
  readonly drained: boolean
  /** False when disposing the runtime did not finish within `disposeTimeoutMs` (a run ignored its interruption). */
  readonly disposed: boolean
  /** `max(graceMs, 1000)`. */
  readonly disposeTimeoutMs: number
}

export interface RunningServer {
  readonly port: number
  readonly host: string
  /** Open chat streams whose run (or final event) is not done. */
  readonly inFlight: () => number
  /**
   * Graceful stop: stops accepting connections, interrupts the running diagnoses (each ends
   * `RUN_FINISHED` CANCELLED and its stream with `event: error` `CANCELLED`), waits up to
   * `graceMs` (default `config.shutdownGraceMs`) for the connections to close, then closes the
   * remaining ones and disposes the runtime (every pool; bounded by `max(graceMs, 1000)`, as
   * disposal waits for the runs' fibers). Idempotent.
   */
  readonly shutdown: (options?: { readonly graceMs?: number }) => Promise<ShutdownReport>
  /** `shutdown()` without a report. */
  readonly close: () => Promise<void>
}

/**
 * Serves the HTTP API on `config.host:config.port` (port 0: any free port). The runtime is
 * built before listening so a broken backend fails the start, not the first request.
 */
export const startServer = async (runtime: AppRuntime, config: AppConfig): Promise<RunningServer> => {
  await runtime.context()
  const runs = new InFlightRuns()
  const app = makeHttpApp(runtime, config, { runs })
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () =>
      resolve(s as Server)
    ) as Server
    s.once("error", reject)
  })
  const address = server.address() as AddressInfo
  let stopping: Promise<ShutdownReport> | null = null
  // During a shutdown a finished response leaves its keep-alive connection idle: close it then.
  server.on("request", (_request, response) => {
    response.once("close", () => {
      if (stopping !== null) setImmediate(() => server.closeIdleConnections())
    })
  })
  const shutdown = (options: { readonly graceMs?: number } = {}) => {
    stopping ??= (async () => {
      const graceMs = options.graceMs ?? config.shutdownGraceMs
      const cancelledRuns = runs.size
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      runs.cancelAll()
      let timer: NodeJS.Timeout | undefined
      const deadline = new Promise<"deadline">((resolve) => {
        timer = setTimeout(() => resolve("deadline"), graceMs)
      })
      const outcome = await Promise.race([closed.then(() => "closed" as const), deadline])
      clearTimeout(timer)
      if (outcome === "deadline") {
        server.closeAllConnections()
        await closed
      }
      // Disposal waits for the interrupted runs' fibers: bounded, a run stuck in an
      // uninterruptible step must not keep the process alive.
      const disposeTimeoutMs = Math.max(graceMs, 1000)
      const disposed = await Promise.race([
        runtime.dispose().then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), disposeTimeoutMs)
        })
      ])
      clearTimeout(timer)
      return { cancelledRuns, drained: outcome === "closed", disposed, disposeTimeoutMs }
    })()
    return stopping
  }
  return {
    port: address.port,
    host: config.host,
    inFlight: () => runs.size,
    shutdown,
    close: () => shutdown().then(() => undefined)
  }
}
