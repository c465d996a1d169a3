import { ChatModel, OfflineModel } from "@aiops-harness/agent"
import { InMemoryAudit, TraceQuery } from "@aiops-harness/audit"
import { AuditSink, CanonicalInvocationStore, type RunId, type ToolCallId } from "@aiops-harness/core"
import { Effect, Layer, Option } from "effect"
import { expect } from "vitest"
import { type AppConfig, loadConfig } from "../src/config.js"
import { DEMO_LEAK_MARKERS } from "../src/demo/index.js"
import type { DiagnoseOutcome } from "../src/diagnose.js"
import type { Io } from "../src/main.js"
import { type AppRuntime, makeAppRuntime } from "../src/runtime.js"

/** The injected "now" of every test run. */
export const NOW = Date.parse("2026-03-15T10:30:00.000Z")

/** Collects what the CLI would print. */
export const captureIo = (env: Record<string, string | undefined> = {}) => {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env }
  return { io, out, err }
}

/** Every message the model was sent (what it observed), serialized. */
export interface ModelCapture {
  readonly requests: string[]
}

/** The offline model, recording every request it gets. */
export const capturingOfflineModel = (capture: ModelCapture): Layer.Layer<ChatModel> =>
  Layer.effect(
    ChatModel,
    Effect.gen(function* () {
      const inner = yield* ChatModel
      return {
        ...inner,
        chat: (request: Parameters<typeof inner.chat>[0]) => {
          capture.requests.push(JSON.stringify(request))
          return inner.chat(request)
        }
      }
    })
  ).pipe(Layer.provide(OfflineModel.layer()))

export interface TestWorld {
  readonly config: AppConfig
  readonly runtime: AppRuntime
  readonly model: ModelCapture
  /** Every audit row, serialized. */
  readonly auditDump: () => string
}

/** In-memory backends, offline model, injected clock: the CLI's code path with inspectable state. */
export const makeTestWorld = async (env: Record<string, string | undefined>): Promise<TestWorld> => {
  const config = loadConfig(env)
  const handle = await Effect.runPromise(InMemoryAudit.make())
  const auditLayer = Layer.mergeAll(
    Layer.succeed(AuditSink, handle.sink),
    Layer.succeed(TraceQuery, handle.trace)
  )
  const model: ModelCapture = { requests: [] }
  const runtime = makeAppRuntime(config, { now: NOW, auditLayer, modelLayer: capturingOfflineModel(model) })
  return { config, runtime, model, auditDump: handle.dump }
}

/** Asserts that no secret, IP or host of the raw demo logs occurs in `text`. */
export const expectNoLeak = (what: string, text: string) => {
  for (const marker of DEMO_LEAK_MARKERS) {
    expect(text.includes(marker), `${what} leaks ${marker}`).toBe(false)
  }
}

/** Every citation of the released report is a READY canonical invocation of this run. */
export const expectCitationsReady = async (runtime: AppRuntime, outcome: DiagnoseOutcome) => {
  const { result } = outcome
  expect(result.report).not.toBeNull()
  const citations = result.report!.claims.flatMap((c) => c.citations)
  expect(citations.length).toBeGreaterThan(0)
  const traceCalls = outcome.trace.found
    ? [
        ...outcome.trace.trace.agent_steps.flatMap((s) => s.tool_invocations),
        ...outcome.trace.trace.tool_invocations_without_step
      ].map((t) => t.tool_call_id)
    : []
  for (const citation of citations) {
    const record = await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        return yield* store.get(result.runId as RunId, citation.tool_call_id as ToolCallId)
      })
    )
    expect(Option.isSome(record), `citation ${citation.tool_call_id} has a canonical record`).toBe(true)
    const value = Option.getOrThrow(record)
    expect(value.status).toBe("READY")
    expect(value.runId).toBe(result.runId)
    expect(traceCalls).toContain(citation.tool_call_id)
  }
}

/** The ordered timeline of a released report (`architecture.md`, "Audit"). */
export const RELEASED_TIMELINE =
  /^RUN_STARTED MODEL_TOKEN_USAGE ROUTING_ATTEMPT ROUTING_DECISION (MODEL_TOKEN_USAGE AGENT_MODEL_STEP (TOOL_INVOCATION )*)+EVIDENCE_GUARD_INITIAL MODEL_TOKEN_USAGE SEMANTIC_GUARD_ATTEMPT SEMANTIC_GUARD_DECISION RELEASE_DECISION RUN_FINISHED$/

/** One server-sent event of `/api/chat`, its data parsed as JSON. */
export interface SseEvent {
  readonly event: string
  readonly data: any
}

/** Splits an SSE body into events; lines other than `event:` and `data:` (ids, comments) are ignored. */
export const parseSse = (text: string): SseEvent[] =>
  text
    .split(/\n\n+/)
    .map((block) => block.trim())
    .filter((block) => block.length > 0)
    .map((block) => {
      let event = "message"
      const data: string[] = []
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim()
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart())
      }
      return { event, data: JSON.parse(data.join("\n")) }
    })
