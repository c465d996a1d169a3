import { ChatModel, OfflineModel } from "@aiops-harness/agent"
import { InMemoryAudit, TraceQuery, type TraceQueryShape } from "@aiops-harness/audit"
import { AuditSink, type AuditSinkShape } from "@aiops-harness/core"
import { RecordingAuditSink } from "@aiops-harness/core/testing"
import { Context, Effect, Layer, type Scope } from "effect"
import { loadConfig } from "../src/config.js"
import { type AppRuntime, makeAppRuntime } from "../src/runtime.js"
import { NOW } from "./helpers.js"

/** Runs of this session lose audit writes (its first tool invocation and its 5th timeline event). */
export const GAP_SESSION = "s-audit-gap"

/** A question with this marker waits at its second agent turn until `releaseLive()`. */
export const LIVE_MARKER = "(live)"

/**
 * Wraps a sink: runs of `GAP_SESSION` lose chosen writes (fail-open: the run goes on, the
 * trace shows the gap).
 */
const lossySink = (sink: AuditSinkShape): AuditSinkShape => {
  let tools = 0
  return new RecordingAuditSink({
    forwardTo: sink,
    fail: (write) =>
      write.record.sessionId === GAP_SESSION &&
      ((write.kind === "recordToolInvocation" && ++tools === 1) ||
        (write.kind === "appendTimelineEvent" && write.record.seq === 5))
  })
}

export interface ViewerWorld {
  readonly runtime: AppRuntime
  readonly config: ReturnType<typeof loadConfig>
  /** Lets the waiting live run go on. */
  readonly releaseLive: () => void
  /** Resolves when a live run reached its gate (its first tool call is in the audit). */
  readonly liveWaiting: Promise<void>
}

/**
 * The demo app (in-memory store and audit, offline model, injected clock) with two test
 * hooks: a session whose audit loses writes, and a question that pauses mid-run.
 */
export interface ViewerWorldOptions {
  readonly env?: Record<string, string | undefined>
  /** The audit under the test hooks (default: in-memory). */
  readonly audit?: Effect.Effect<{ sink: AuditSinkShape; trace: TraceQueryShape }, unknown, Scope.Scope>
}

export const makeViewerWorld = (options: ViewerWorldOptions = {}): ViewerWorld => {
  const env = options.env ?? {}
  const config = loadConfig({ SCENARIO: "db-pool-exhaustion", HOST: "127.0.0.1", PORT: "0", ...env })
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let reached!: () => void
  const liveWaiting = new Promise<void>((resolve) => {
    reached = resolve
  })
  const modelLayer = Layer.effect(
    ChatModel,
    Effect.gen(function* () {
      const inner = yield* ChatModel
      return {
        ...inner,
        chat: (request: Parameters<typeof inner.chat>[0]) => {
          const live =
            request.purpose === "agent" &&
            request.messages.some((m) => m.role === "user" && String(m.content).includes(LIVE_MARKER)) &&
            request.messages.some((m) => m.role === "tool")
          if (!live) return inner.chat(request)
          return Effect.andThen(
            Effect.promise(() => {
              reached()
              return gate
            }),
            inner.chat(request)
          )
        }
      }
    })
  ).pipe(Layer.provide(OfflineModel.layer()))
  const auditLayer = Layer.effectContext(
    Effect.map(options.audit ?? InMemoryAudit.make(), (handle) =>
      Context.make(AuditSink, lossySink(handle.sink)).pipe(Context.add(TraceQuery, handle.trace))
    )
  ).pipe(Layer.orDie)
  const runtime = makeAppRuntime(config, { now: NOW, modelLayer, auditLayer })
  return { runtime, config, releaseLive: () => release(), liveWaiting }
}
