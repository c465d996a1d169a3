import { AuditSink, type AuditSinkShape, AuditWriteError } from "@aiops-harness/core"
import { Context, Effect, Layer } from "effect"
import {
  agentStepRow,
  type RunFinishRow,
  type RunStartRow,
  runFinishRow,
  runStartRow,
  timelineRow,
  tokenUsageRow,
  toolInvocationRow
} from "./bounds.js"
import type {
  AgentStepRow,
  RunSummary,
  TimelineEntry,
  TokenLedgerEntry,
  ToolInvocationEntry
} from "./trace.js"
import { buildTrace, checkTraceIds, TraceQuery, type TraceQueryShape } from "./trace.js"

interface RunEntry {
  readonly sessionId: string
  start: RunStartRow | null
  finish: RunFinishRow | null
  readonly timeline: Map<number, TimelineEntry>
  readonly steps: Map<string, AgentStepRow>
  readonly tools: Map<string, ToolInvocationEntry>
  readonly ledger: Map<number, TokenLedgerEntry>
}

/** Rows are kept as JSON text, like a database would: callers never share mutable state. */
const freeze = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A

export interface InMemoryAuditHandle {
  readonly sink: AuditSinkShape
  readonly trace: TraceQueryShape
  /** Every stored row, serialized (for tests that search all columns). */
  readonly dump: () => string
}

/**
 * In-memory durable audit with the MySQL backend's semantics: same bounds, unique
 * `(run_id, seq)` / `(run_id, tool_call_id)` / `(run_id, step_id)`, a run keyed by `run_id`
 * and bound to its session.
 */
export const makeInMemoryAudit = (): Effect.Effect<InMemoryAuditHandle> =>
  Effect.sync(() => {
    // Key: runId (the primary key of diagnosis_run); a run belongs to one session.
    const runs = new Map<string, RunEntry>()
    const entryFor = (record: string, runId: string, sessionId: string) => {
      const existing = runs.get(runId)
      if (existing) {
        return existing.sessionId === sessionId
          ? Effect.succeed(existing)
          : Effect.fail(new AuditWriteError({ record, cause: "run belongs to another session" }))
      }
      const entry: RunEntry = {
        sessionId,
        start: null,
        finish: null,
        timeline: new Map(),
        steps: new Map(),
        tools: new Map(),
        ledger: new Map()
      }
      runs.set(runId, entry)
      return Effect.succeed(entry)
    }
    const insert = <K, V>(record: string, map: Map<K, V>, key: K, value: V) =>
      map.has(key)
        ? Effect.fail(new AuditWriteError({ record, cause: "duplicate key" }))
        : Effect.sync(() => void map.set(key, freeze(value)))

    const sink: AuditSinkShape = {
      startRun: (run) =>
        Effect.flatMap(entryFor("diagnosis_run", run.runId, run.sessionId), (entry) =>
          entry.start
            ? Effect.fail(new AuditWriteError({ record: "diagnosis_run", cause: "duplicate key" }))
            : Effect.sync(() => {
                entry.start = freeze(runStartRow(run))
              })
        ),
      finishRun: (run) =>
        Effect.flatMap(entryFor("diagnosis_run", run.runId, run.sessionId), (entry) =>
          Effect.sync(() => {
            entry.finish = freeze(runFinishRow(run))
          })
        ),
      appendTimelineEvent: (event) =>
        Effect.flatMap(entryFor("run_timeline_event", event.runId, event.sessionId), (entry) =>
          insert("run_timeline_event", entry.timeline, event.seq, timelineRow(event))
        ),
      recordAgentStep: (step) =>
        Effect.flatMap(entryFor("agent_step", step.runId, step.sessionId), (entry) => {
          const row = agentStepRow(step)
          return insert("agent_step", entry.steps, row.step_id, row)
        }),
      recordToolInvocation: (invocation) =>
        Effect.flatMap(entryFor("tool_invocation", invocation.runId, invocation.sessionId), (entry) => {
          const row = toolInvocationRow(invocation)
          return insert("tool_invocation", entry.tools, row.tool_call_id, row)
        }),
      recordTokenUsage: (usage) =>
        Effect.flatMap(entryFor("model_token_usage", usage.runId, usage.sessionId), (entry) =>
          insert("model_token_usage", entry.ledger, usage.seq, tokenUsageRow(usage))
        )
    }

    const summaryOf = (runId: string, entry: RunEntry): RunSummary | null => {
      const { start, finish } = entry
      if (!start && !finish) return null
      return {
        run_id: runId,
        session_id: entry.sessionId,
        query: start?.query ?? null,
        status: finish?.status ?? "RUNNING",
        intent: finish?.intent ?? null,
        release_result: finish?.release_result ?? null,
        latency_ms: finish?.latency_ms ?? null,
        total_token_count: finish?.total_token_count ?? null,
        usage_complete: finish?.usage_complete ?? null,
        final_content: finish?.final_content ?? null,
        started_at: start?.started_at ?? null,
        finished_at: finish?.finished_at ?? null,
        expected: finish?.expected ?? null,
        failed_writes: finish?.failed_writes ?? null
      }
    }

    const trace: TraceQueryShape = {
      getTrace: (sessionId, runId) =>
        Effect.flatMap(checkTraceIds(sessionId, runId), () => {
          const entry = runs.get(runId)
          const mine = entry !== undefined && entry.sessionId === sessionId
          return buildTrace(
            freeze({
              sessionId,
              runId,
              run: mine ? summaryOf(runId, entry) : null,
              timeline: mine ? [...entry.timeline.values()] : [],
              agentSteps: mine ? [...entry.steps.values()] : [],
              toolInvocations: mine ? [...entry.tools.values()] : [],
              tokenLedger: mine ? [...entry.ledger.values()] : []
            })
          )
        })
    }

    return {
      sink,
      trace,
      dump: () => JSON.stringify([...runs.entries()].map(([k, v]) => [k, serializeEntry(v)]))
    }
  })

const serializeEntry = (e: RunEntry) => ({
  sessionId: e.sessionId,
  start: e.start,
  finish: e.finish,
  timeline: [...e.timeline.values()],
  steps: [...e.steps.values()],
  tools: [...e.tools.values()],
  ledger: [...e.ledger.values()]
})

/** In-memory `AuditSink` + `TraceQuery` sharing one store (fresh per layer build). */
export const InMemoryAudit = {
  make: makeInMemoryAudit,
  layer: Layer.effectContext(
    Effect.map(makeInMemoryAudit(), ({ sink, trace }) =>
      Context.make(AuditSink, sink).pipe(Context.add(TraceQuery, trace))
    )
  ) as Layer.Layer<AuditSink | TraceQuery>
}
