import { EventEmitter } from "node:events"
import { ChatModel } from "@aiops-harness/agent"
import { InMemoryAudit, type InMemoryAuditHandle, TraceQuery } from "@aiops-harness/audit"
import { AuditSink } from "@aiops-harness/core"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { InFlightRuns, makeHttpApp } from "../src/http.js"
import { runServeCommand, type SignalSource } from "../src/main.js"
import type { RunningServer } from "../src/server.js"
import { captureIo, NOW } from "./helpers.js"

/**
 * A model that never answers (a hung provider). `stopAfterMs`: once interrupted it takes that
 * long to stop; `uninterruptible`: it never stops.
 */
const hungModel = (
  options: { readonly stopAfterMs?: number; readonly uninterruptible?: boolean } = {}
): Layer.Layer<ChatModel> =>
  Layer.succeed(ChatModel, {
    chat: () =>
      options.uninterruptible
        ? Effect.uninterruptible(Effect.never)
        : options.stopAfterMs !== undefined
          ? Effect.never.pipe(Effect.onInterrupt(() => Effect.sleep(options.stopAfterMs!)))
          : Effect.never
  })

interface Serving {
  readonly server: RunningServer
  readonly signals: EventEmitter & SignalSource
  readonly done: Promise<number>
  readonly err: string[]
  readonly audit: InMemoryAuditHandle
  readonly forced: number[]
}

const serve = async (
  env: Record<string, string>,
  model: Layer.Layer<ChatModel> = hungModel()
): Promise<Serving> => {
  const audit = await Effect.runPromise(InMemoryAudit.make())
  const auditLayer = Layer.mergeAll(
    Layer.succeed(AuditSink, audit.sink),
    Layer.succeed(TraceQuery, audit.trace)
  )
  const { io, err } = captureIo(env)
  const config = { ...loadConfig(env), port: 0, host: "127.0.0.1" }
  const signals = new EventEmitter() as EventEmitter & SignalSource
  const forced: number[] = []
  let listening!: (server: RunningServer) => void
  const ready = new Promise<RunningServer>((resolve) => {
    listening = resolve
  })
  const done = runServeCommand(config, io, {
    now: NOW,
    auditLayer,
    modelLayer: model,
    signals,
    forceExit: (code) => forced.push(code),
    onListening: listening
  })
  const server = await Promise.race([
    ready,
    done.then((code) => Promise.reject(new Error(`serve ended with ${code}: ${err.join("\n")}`)))
  ])
  return { server, signals, done, err, audit, forced }
}

/** Opens a chat stream and reads it until its first `progress` event (the run is going). */
const openChat = async (server: RunningServer, sessionId: string) => {
  const response = await fetch(`http://127.0.0.1:${server.port}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question: "why is checkout returning 500s?", sessionId })
  })
  expect(response.status).toBe(200)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  while (!text.includes("event: progress")) {
    const chunk = await reader.read()
    if (chunk.done) break
    text += decoder.decode(chunk.value, { stream: true })
  }
  const metadata = JSON.parse(/event: metadata\ndata: (.*)\n/.exec(text)![1]!) as { runId: string }
  /** The rest of the stream, until the server closes it (or it is cut). */
  const rest = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read()
        if (chunk.done) return { text, cut: false }
        text += decoder.decode(chunk.value, { stream: true })
      }
    } catch {
      return { text, cut: true }
    }
  })()
  return { runId: metadata.runId, rest }
}

const lastEvent = (text: string) => {
  const blocks = text.trim().split(/\n\n+/)
  const last = blocks.at(-1)!
  return {
    event: /^event: (.*)$/m.exec(last)?.[1],
    data: JSON.parse(/^data: (.*)$/m.exec(last)?.[1] ?? "null")
  }
}

describe("serve: a client that goes away", () => {
  it("cancels its run: RUN_FINISHED CANCELLED in the audit, the server keeps serving", async () => {
    const s = await serve({})
    const response = await fetch(`http://127.0.0.1:${s.server.port}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "why is checkout returning 500s?", sessionId: "s-gone-1" })
    })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ""
    while (!text.includes("event: progress"))
      text += decoder.decode((await reader.read()).value, { stream: true })
    const { runId } = JSON.parse(/event: metadata\ndata: (.*)\n/.exec(text)![1]!) as { runId: string }
    await reader.cancel() // the client disconnects mid-run

    let status: string | null = null
    for (let i = 0; i < 100 && status !== "CANCELLED"; i++) {
      await new Promise((r) => setTimeout(r, 50))
      const trace = await Effect.runPromise(Effect.option(s.audit.trace.getTrace("s-gone-1", runId)))
      status = trace._tag === "Some" ? trace.value.run.status : null
    }
    expect(status).toBe("CANCELLED")
    expect(s.server.inFlight()).toBe(0)
    expect((await fetch(`http://127.0.0.1:${s.server.port}/healthz`)).status).toBe(200)
    s.signals.emit("SIGTERM")
    expect(await s.done).toBe(0)
  })
})

describe("serve: graceful shutdown", () => {
  it("SIGINT with an open stream on a hung model: the run is cancelled, the stream ends with an error event, exit 0 within the grace period", async () => {
    const graceMs = 5000
    const s = await serve({ SHUTDOWN_GRACE_MS: String(graceMs) })
    const chat = await openChat(s.server, "s-shutdown-1")
    expect(s.server.inFlight()).toBe(1)

    const started = Date.now()
    s.signals.emit("SIGINT")
    const code = await s.done
    const elapsed = Date.now() - started
    expect(code).toBe(0)
    expect(elapsed).toBeLessThan(graceMs)
    expect(s.forced).toEqual([])
    expect(s.err.join("\n")).toContain("SIGINT: shutting down")
    expect(s.err.join("\n")).toContain("press Ctrl-C again to force")
    expect(s.err.at(-1)).toBe("stopped")
    expect(s.err.join("\n")).not.toContain("grace period")

    // The stream got its terminal event before it closed.
    const { text, cut } = await chat.rest
    expect(cut).toBe(false)
    expect(text).toContain('"type":"run_finished","status":"CANCELLED"')
    const last = lastEvent(text)
    expect(last.event).toBe("error")
    expect(last.data).toMatchObject({ error: "CANCELLED", sessionId: "s-shutdown-1", runId: chat.runId })

    // The run's trace (in-memory audit, outside the disposed runtime) ends CANCELLED.
    const trace = await Effect.runPromise(s.audit.trace.getTrace("s-shutdown-1", chat.runId))
    expect(trace.run.status).toBe("CANCELLED")
    const finished = trace.timeline.at(-1)!
    expect(finished.type).toBe("RUN_FINISHED")
    expect(JSON.stringify(finished)).toContain("CANCELLED")

    // Closed: the port no longer answers.
    await expect(fetch(`http://127.0.0.1:${s.server.port}/healthz`)).rejects.toThrow()
  })

  it("SIGTERM with no open stream stops at once", async () => {
    const s = await serve({})
    expect((await fetch(`http://127.0.0.1:${s.server.port}/healthz`)).status).toBe(200)
    s.signals.emit("SIGTERM")
    expect(await s.done).toBe(0)
    expect(s.err.join("\n")).toContain("SIGTERM: shutting down (cancelling 0 open run(s)")
  })

  it("a run slower to stop than the grace period: the connections are closed, the runtime disposed, exit 0", async () => {
    const s = await serve({ SHUTDOWN_GRACE_MS: "300" }, hungModel({ stopAfterMs: 700 }))
    const chat = await openChat(s.server, "s-shutdown-2")
    s.signals.emit("SIGINT")
    expect(await s.done).toBe(0)
    expect(s.err.join("\n")).toContain("grace period of 300 ms over: closed the remaining connections")
    expect(s.err.at(-1)).toBe("stopped")
    const { text } = await chat.rest
    expect(text).not.toContain("event: answer")
    // The run still ended CANCELLED (its fiber stopped before the runtime was disposed).
    const trace = await Effect.runPromise(s.audit.trace.getTrace("s-shutdown-2", chat.runId))
    expect(trace.run.status).toBe("CANCELLED")
  })

  it("a run that never stops: disposal is bounded, exit 1 with a message", async () => {
    const s = await serve({ SHUTDOWN_GRACE_MS: "200" }, hungModel({ uninterruptible: true }))
    await openChat(s.server, "s-shutdown-5")
    s.signals.emit("SIGTERM")
    expect(await s.done).toBe(1)
    expect(s.err.join("\n")).toContain(
      "error: releasing the backends did not finish within 1000 ms (a run ignored its cancellation); exiting anyway"
    )
  })

  it("a second signal forces the exit with a message", async () => {
    const s = await serve({ SHUTDOWN_GRACE_MS: "300" }, hungModel({ stopAfterMs: 1000 }))
    await openChat(s.server, "s-shutdown-3")
    s.signals.emit("SIGINT")
    s.signals.emit("SIGINT")
    expect(s.err).toContain("second signal: forcing exit")
    expect(s.forced).toEqual([130])
    // (The injected forceExit does not exit: the shutdown still completes.)
    expect(await s.done).toBe(0)
    expect(s.signals.listenerCount("SIGINT") + s.signals.listenerCount("SIGTERM")).toBe(0)
  })

  it("refuses a new chat while shutting down (a request on a kept-alive connection)", async () => {
    const runs = new InFlightRuns()
    runs.cancelAll()
    const app = makeHttpApp(null as never, loadConfig({}), { runs })
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "why?" })
    })
    expect(response.status).toBe(503)
    expect(response.headers.get("connection")).toBe("close")
    expect(await response.json()).toEqual({ error: "SHUTTING_DOWN", message: "the server is shutting down" })
  })
})
