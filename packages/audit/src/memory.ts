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
import {
  buildTrace,
  checkTraceIds,
  compareRunsNewestFirst,
  isAfterCursor,
  pageOfRuns,
  resolveListRuns,
  runListEntry,
  TraceQuery,
  type TraceQueryShape
} from "./trace.js"

/** The `diagnosis_run` record: the first of start/finish binds the run id to a session. */
interface RunRecord {
  readonly sessionId: string
  start: RunStartRow | null
  finish: RunFinishRow | null
}

/** A child row with the session it was written for (tables are keyed by run id, not session). */
interface Owned<A> {
  readonly sessionId: string
  readonly row: A
}

interface Children {
  readonly timeline: Map<number, Owned<TimelineEntry>>
  readonly steps: Map<string, Owned<AgentStepRow>>
  readonly tools: Map<string, Owned<ToolInvocationEntry>>
  readonly ledger: Map<number, Owned<TokenLedgerEntry>>
}

/** Rows are kept as JSON text, like a database would: callers never share mutable state. */
const freeze = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A

/** The in-memory audit: its `AuditSink` and `TraceQuery` operations plus `dump` for tests. */
export interface InMemoryAuditHandle {
  readonly sink: AuditSinkShape
  readonly trace: TraceQueryShape
  /** Every stored row, serialized (for tests that search all columns). */
  readonly dump: () => string
}

/**
 * In-memory durable audit with the MySQL backend's semantics: same bounds, unique
 * `run_id` / `(run_id, seq)` / `(run_id, tool_call_id)` / `(run_id, step_id)`, and the same
 * session rule: a child record whose run's `diagnosis_run` record belongs to another session
 * is rejected; with no run record yet it is accepted (and read only by its own session).
 */
export interface InMemoryAuditConfig {
  /**
   * Runs kept (default 2000): past it the oldest run (first written) is forgotten with all its
   * rows, so a long-lived embedded app stays bounded. Its trace is then `RunNotFound`.
   */
  readonly maxRuns?: number
}

/** Default number of runs the in-memory audit keeps. */
export const defaultInMemoryAuditMaxRuns = 2000

/** Makes an in-memory audit bounded to `maxRuns` runs; throws `RangeError` on an invalid bound. */
export const makeInMemoryAudit = (config: InMemoryAuditConfig = {}): Effect.Effect<InMemoryAuditHandle> =>
  Effect.sync(() => {
    const maxRuns = config.maxRuns ?? defaultInMemoryAuditMaxRuns
    if (!Number.isInteger(maxRuns) || maxRuns <= 0) {
      throw new RangeError("in-memory audit: maxRuns must be a positive integer")
    }
    const runs = new Map<string, RunRecord>()
    const children = new Map<string, Children>()
    /** Run ids in the order they were first written (insertion order of a Set). */
    const order = new Set<string>()
    const touch = (runId: string) => {
      if (order.has(runId)) return
      order.add(runId)
      if (order.size <= maxRuns) return
      const oldest = order.values().next()
      if (oldest.done) return
      order.delete(oldest.value)
      runs.delete(oldest.value)
      children.delete(oldest.value)
    }
    const anotherSession = (record: string) =>
      Effect.fail(new AuditWriteError({ record, cause: "run belongs to another session" }))
    const childrenOf = (record: string, runId: string, sessionId: string) =>
      Effect.suspend(() => {
        const run = runs.get(runId)
        if (run && run.sessionId !== sessionId) return anotherSession(record)
        let entry = children.get(runId)
        if (!entry) {
          entry = { timeline: new Map(), steps: new Map(), tools: new Map(), ledger: new Map() }
          children.set(runId, entry)
          touch(runId)
        }
        return Effect.succeed(entry)
      })
    const insert = <K, V>(record: string, map: Map<K, Owned<V>>, key: K, sessionId: string, row: V) =>
      map.has(key)
        ? Effect.fail(new AuditWriteError({ record, cause: "duplicate key" }))
        : Effect.sync(() => void map.set(key, { sessionId, row: freeze(row) }))

    const sink: AuditSinkShape = {
      startRun: (run) =>
        Effect.suspend(() =>
          runs.has(run.runId)
            ? Effect.fail(new AuditWriteError({ record: "diagnosis_run", cause: "duplicate key" }))
            : Effect.sync(() => {
                runs.set(run.runId, {
                  sessionId: run.sessionId,
                  start: freeze(runStartRow(run)),
                  finish: null
                })
                touch(run.runId)
              })
        ),
      finishRun: (run) =>
        Effect.suspend(() => {
          const existing = runs.get(run.runId)
          if (existing && existing.sessionId !== run.sessionId) return anotherSession("diagnosis_run")
          const finish = freeze(runFinishRow(run))
          return Effect.sync(() => {
            if (existing) existing.finish = finish
            else {
              runs.set(run.runId, { sessionId: run.sessionId, start: null, finish })
              touch(run.runId)
            }
          })
        }),
      appendTimelineEvent: (event) =>
        Effect.flatMap(childrenOf("run_timeline_event", event.runId, event.sessionId), (entry) =>
          insert("run_timeline_event", entry.timeline, event.seq, event.sessionId, timelineRow(event))
        ),
      recordAgentStep: (step) =>
        Effect.flatMap(childrenOf("agent_step", step.runId, step.sessionId), (entry) => {
          const row = agentStepRow(step)
          return insert("agent_step", entry.steps, row.step_id, step.sessionId, row)
        }),
      recordToolInvocation: (invocation) =>
        Effect.flatMap(childrenOf("tool_invocation", invocation.runId, invocation.sessionId), (entry) => {
          const row = toolInvocationRow(invocation)
          return insert("tool_invocation", entry.tools, row.tool_call_id, invocation.sessionId, row)
        }),
      recordTokenUsage: (usage) =>
        Effect.flatMap(childrenOf("model_token_usage", usage.runId, usage.sessionId), (entry) =>
          insert("model_token_usage", entry.ledger, usage.seq, usage.sessionId, tokenUsageRow(usage))
        )
    }

    const summaryOf = (runId: string, entry: RunRecord): RunSummary => {
      const { start, finish } = entry
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
          const run = runs.get(runId)
          const entry = children.get(runId)
          const mine = <A>(map: Map<unknown, Owned<A>> | undefined): Array<A> =>
            map ? [...map.values()].filter((o) => o.sessionId === sessionId).map((o) => o.row) : []
          return buildTrace(
            freeze({
              sessionId,
              runId,
              run: run && run.sessionId === sessionId ? summaryOf(runId, run) : null,
              timeline: mine(entry?.timeline),
              agentSteps: mine(entry?.steps),
              toolInvocations: mine(entry?.tools),
              tokenLedger: mine(entry?.ledger)
            })
          )
        }),
      listRuns: (options) =>
        Effect.map(resolveListRuns(options), (resolved) => {
          // Filter and order on the run records first; count child rows only for the page.
          const candidates: Array<RunSummary> = []
          for (const [runId, record] of runs) {
            if (resolved.sessionId !== null && record.sessionId !== resolved.sessionId) continue
            const summary = summaryOf(runId, record)
            if (resolved.status !== null && summary.status !== resolved.status) continue
            if (resolved.releaseResult !== null && summary.release_result !== resolved.releaseResult) continue
            candidates.push(summary)
          }
          const entry = (summary: RunSummary) => {
            const child = children.get(summary.run_id)
            const found = (map: Map<unknown, Owned<unknown>> | undefined) =>
              map ? [...map.values()].filter((o) => o.sessionId === summary.session_id).length : 0
            return runListEntry(
              { ...summary, status: summary.status ?? "RUNNING" },
              {
                timeline_events: found(child?.timeline),
                agent_steps: found(child?.steps),
                tool_invocations: found(child?.tools),
                token_usages: found(child?.ledger)
              }
            )
          }
          const page = candidates
            .filter((r) => isAfterCursor(r, resolved.before))
            .sort(compareRunsNewestFirst)
            .slice(0, resolved.limit + 1)
          // One more than the page: pageOfRuns cuts it and sets the cursor.
          return freeze(pageOfRuns(page.map(entry), resolved))
        })
    }

    return {
      sink,
      trace,
      dump: () =>
        JSON.stringify({
          runs: [...runs.entries()],
          children: [...children.entries()].map(([runId, c]) => [
            runId,
            {
              timeline: [...c.timeline.values()],
              steps: [...c.steps.values()],
              tools: [...c.tools.values()],
              ledger: [...c.ledger.values()]
            }
          ])
        })
    }
  })

/** In-memory `AuditSink` + `TraceQuery` sharing one store (fresh per layer build). */
export const InMemoryAudit = {
  /** Makes the in-memory audit (see `makeInMemoryAudit`). */
  make: makeInMemoryAudit,
  layer: Layer.effectContext(
    Effect.map(makeInMemoryAudit(), ({ sink, trace }) =>
      Context.make(AuditSink, sink).pipe(Context.add(TraceQuery, trace))
    )
  ) as Layer.Layer<AuditSink | TraceQuery>
}
