import { Cause, Exit } from "effect"
import type { Context } from "hono"
import { streamSSE } from "hono/streaming"
import { diagnose } from "../diagnose.js"
import type { InFlightRuns } from "../http.js"
import type { AppRuntime } from "../runtime.js"
import { type RunEncoder, type RunEvent, type RunIds, usageOf } from "./run-events.js"

/** Default interval of the SSE heartbeat comment (`: heartbeat`), which keeps proxies from closing an idle stream. */
export const DEFAULT_HEARTBEAT_MS = 15_000

export interface StreamRunOptions {
  readonly runtime: AppRuntime
  readonly runs: InFlightRuns
  readonly question: string
  readonly ids: RunIds
  readonly encoder: RunEncoder
  /** Interval of the `: heartbeat` comment. Default {@link DEFAULT_HEARTBEAT_MS}. */
  readonly heartbeatMs?: number
  /** Extra response headers (a protocol's marker header). */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * Runs one diagnosis and streams it as SSE through `encoder`. Shared by every protocol: each
 * frame gets an increasing `id:`; a `: heartbeat` comment is written every `heartbeatMs`; the run
 * is cancelled when the client disconnects or the server shuts down (it then ends `RUN_FINISHED`
 * CANCELLED in the audit and the stream gets the encoder's cancellation event, if still open).
 */
export const streamRun = (c: Context, options: StreamRunOptions): Response => {
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value)
  const { runtime, runs, ids, encoder } = options
  return streamSSE(c, (stream) =>
    runs.track(async (shutdown) => {
      // The run stops on shutdown and when the client goes away: nobody would read its answer,
      // and a cancelled run still ends with RUN_FINISHED (CANCELLED) in the audit.
      const cancel = new AbortController()
      const abort = () => cancel.abort()
      if (shutdown.aborted) abort()
      shutdown.addEventListener("abort", abort, { once: true })
      stream.onAbort(abort)
      // Progress callbacks are synchronous: chain the writes to keep their order.
      let writes: Promise<void> = Promise.resolve()
      let seq = 0
      const emit = (event: RunEvent) => {
        for (const frame of encoder.encode(event)) {
          const id = String(++seq)
          writes = writes.then(() => stream.writeSSE({ ...frame, id }))
        }
      }
      const heartbeat = setInterval(() => {
        writes = writes.then(() => stream.write(": heartbeat\n\n")).then(() => undefined)
      }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)
      try {
        emit({ type: "started", ids })
        const exit = await runtime.runPromiseExit(
          diagnose(
            { question: options.question, ...ids },
            { onProgress: (event) => emit({ type: "progress", event }) }
          ),
          { signal: cancel.signal }
        )
        if (Exit.isSuccess(exit)) {
          const { result, trace } = exit.value
          emit({ type: "answer", ids, result, usage: usageOf(result, trace) })
        } else if (Cause.hasInterruptsOnly(exit.cause)) {
          emit({
            type: "failed",
            ids,
            error: "CANCELLED",
            message: shutdown.aborted
              ? "the server is shutting down; the run was cancelled"
              : "the run was cancelled"
          })
        } else {
          emit({
            type: "failed",
            ids,
            error: "INTERNAL",
            message: "the diagnosis could not run; see the server log"
          })
        }
      } finally {
        clearInterval(heartbeat)
        await writes.catch(() => undefined)
      }
    })
  )
}
