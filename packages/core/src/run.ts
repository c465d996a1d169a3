import { Clock, Effect, Ref } from "effect"
import {
  type AgentStepRecord,
  AuditSink,
  type AuditSinkShape,
  type RunFinalStatus,
  type TokenComponent,
  type ToolInvocationAudit
} from "./audit.js"
import { defaultRunBudgetLimits, makeRunBudget, type RunBudget, type RunBudgetLimits } from "./budget.js"
import { IllegalRunTransition } from "./errors.js"
import { newRunId, type RunId, type SessionId } from "./ids.js"
import { type CallerTimelineEvent, recorderEvents, type TimelineEventBody } from "./timeline/events.js"
import { InvalidTimelineEvent, parseTimelinePayload } from "./timeline/parse.js"
import { RECORDER_OWNED_EVENT_TYPES } from "./timeline/schemas.js"

/** Run lifecycle: ACTIVE -> FINISHED | FAILED | CANCELLED, nothing else. */
export type RunLifecycleState = "ACTIVE" | RunFinalStatus

/** Checks a run lifecycle transition: only `ACTIVE` to a final status is legal. */
export const runTransition = (
  from: RunLifecycleState,
  to: RunLifecycleState
): Effect.Effect<RunLifecycleState, IllegalRunTransition> =>
  from === "ACTIVE" && to !== "ACTIVE"
    ? Effect.succeed(to)
    : Effect.fail(new IllegalRunTransition({ from, to }))

/** Token usage of one model call as the provider reported it; `null` when it reported none. */
export interface TokenUsage {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly totalTokens: number
}

/** Counts a `RunRecorder` kept for a run (written, failed, token total). */
export interface RecorderSummary {
  readonly timelineEvents: number
  readonly agentSteps: number
  readonly toolInvocations: number
  readonly tokenUsages: number
  /**
   * Sum of the available usages; `null` when model calls were made but none reported
   * usage (unknown is never recorded as 0).
   */
  readonly totalTokens: number | null
  readonly usageComplete: boolean
  readonly failedWrites: number
}

/**
 * Writes a run's durable audit, fail-open: a failed write is counted, never thrown.
 * Owns each event's run id, session id, sequence and time, writes `RUN_STARTED`,
 * `MODEL_TOKEN_USAGE` and `RUN_FINISHED` itself, and keeps the token ledger total.
 */
export interface RunRecorder {
  /**
   * Appends a Timeline event built by one of the event constructors (`routingAttemptEvent`, ...).
   * An event that fails its schema, or one of the recorder's own types, is a defect
   * (`InvalidTimelineEvent`): it is never written.
   */
  readonly event: (event: CallerTimelineEvent) => Effect.Effect<void>
  /** Records the audit metadata of one tool call of this run. */
  readonly toolInvocation: (record: Omit<ToolInvocationAudit, "runId" | "sessionId">) => Effect.Effect<void>
  /** Records one AgentStep of this run. */
  readonly agentStep: (record: Omit<AgentStepRecord, "runId" | "sessionId">) => Effect.Effect<void>
  /** One ledger row plus its `MODEL_TOKEN_USAGE` event. */
  readonly tokenUsage: (entry: {
    readonly component: TokenComponent
    readonly componentIndex: number
    readonly model: string
    readonly usage: TokenUsage | null
  }) => Effect.Effect<void>
  readonly summary: Effect.Effect<RecorderSummary>
}

/** The current run: identity, query, start time and its authorized tools, budget and recorder. */
export interface RunContext {
  readonly runId: RunId
  readonly sessionId: SessionId
  readonly query: string
  readonly startedAt: number
  readonly authorizedTools: ReadonlySet<string>
  readonly budget: RunBudget
  readonly recorder: RunRecorder
  readonly state: Effect.Effect<RunLifecycleState>
  /** Claims a toolCallId for this run; false when it was seen before. Atomic. */
  readonly claimToolCallId: (toolCallId: string) => Effect.Effect<boolean>
  /**
   * Ends the run: writes `RUN_FINISHED` (with the ledger total and expected counts) and the
   * run's final audit record, both from the same named fields. Fails on an illegal lifecycle
   * transition.
   */
  readonly finish: (result: RunFinishOptions) => Effect.Effect<RecorderSummary, IllegalRunTransition>
}

/**
 * How a run ended. Named fields only: `RUN_FINISHED` is built from these and the recorder's own
 * counts, so its status always equals the run record's.
 */
export interface RunFinishOptions {
  readonly status: RunFinalStatus
  readonly intent?: string | null
  readonly releaseResult?: string | null
  readonly finalContent?: string | null
  /** Tool calls the run made (stated in `RUN_FINISHED`). */
  readonly toolCalls?: number
  /** Who ended the run when it was not the agent (`mcp`). */
  readonly source?: string
}

/** Options to start a run. */
export interface MakeRunOptions {
  readonly sessionId: SessionId
  readonly runId?: RunId
  readonly query: string
  readonly authorizedTools: Iterable<string>
  readonly budget?: Partial<RunBudgetLimits>
}

const makeRecorder = (
  sink: AuditSinkShape,
  runId: RunId,
  sessionId: SessionId
): Effect.Effect<{
  recorder: RunRecorder
  /** Appends any event, the recorder-owned types included (for `makeRun` only). */
  append: (body: TimelineEventBody) => Effect.Effect<void>
  failed: Ref.Ref<number>
  counts: Ref.Ref<Counts>
}> =>
  Effect.gen(function* () {
    const counts = yield* Ref.make<Counts>({ ...emptyCounts })
    const failed = yield* Ref.make(0)
    const failOpen = <E>(write: Effect.Effect<void, E>) =>
      write.pipe(
        Effect.catchCause(() => Ref.update(failed, (n) => n + 1)),
        Effect.asVoid
      )
    const bump = (key: keyof Counts, by = 1) =>
      Ref.modify(counts, (c): readonly [number, Counts] => [c[key] + by, { ...c, [key]: c[key] + by }])
    // Validated before a sequence number is taken: a malformed event leaves no gap.
    const append = (body: TimelineEventBody) =>
      Effect.gen(function* () {
        const parsed = parseTimelinePayload(body.type, body.payload)
        if (!parsed.ok) return yield* Effect.die(parsed.error)
        const seq = yield* bump("timelineEvents")
        const at = yield* Clock.currentTimeMillis
        yield* failOpen(sink.appendTimelineEvent({ ...parsed.event, runId, sessionId, seq, at }))
      })
    const recorderOwned: ReadonlySet<string> = new Set(RECORDER_OWNED_EVENT_TYPES)
    const recorder: RunRecorder = {
      event: (body) =>
        recorderOwned.has(body.type)
          ? Effect.die(
              new InvalidTimelineEvent({ type: body.type, issue: "type: written by the recorder only" })
            )
          : append(body),
      toolInvocation: (record) =>
        Effect.gen(function* () {
          yield* bump("toolInvocations")
          yield* failOpen(sink.recordToolInvocation({ ...record, runId, sessionId }))
        }),
      agentStep: (record) =>
        Effect.gen(function* () {
          yield* bump("agentSteps")
          yield* failOpen(sink.recordAgentStep({ ...record, runId, sessionId }))
        }),
      tokenUsage: ({ component, componentIndex, model, usage }) =>
        Effect.gen(function* () {
          const seq = yield* bump("tokenUsages")
          if (usage) yield* bump("totalTokens", usage.totalTokens)
          else yield* Ref.update(counts, (c) => ({ ...c, usageMissing: c.usageMissing + 1 }))
          const at = yield* Clock.currentTimeMillis
          yield* failOpen(
            sink.recordTokenUsage({
              runId,
              sessionId,
              seq,
              component,
              componentIndex,
              model,
              usageAvailable: usage !== null,
              promptTokens: usage?.promptTokens ?? null,
              completionTokens: usage?.completionTokens ?? null,
              totalTokens: usage?.totalTokens ?? null,
              at
            })
          )
          yield* append(
            recorderEvents.modelTokenUsage({
              ledger_seq: seq,
              component,
              component_index: componentIndex,
              model,
              usage_available: usage !== null,
              total_tokens: usage?.totalTokens ?? null
            })
          )
        }),
      summary: Effect.gen(function* () {
        const c = yield* Ref.get(counts)
        return {
          timelineEvents: c.timelineEvents,
          agentSteps: c.agentSteps,
          toolInvocations: c.toolInvocations,
          tokenUsages: c.tokenUsages,
          totalTokens: c.tokenUsages > 0 && c.usageMissing === c.tokenUsages ? null : c.totalTokens,
          usageComplete: c.usageMissing === 0,
          failedWrites: yield* Ref.get(failed)
        }
      })
    }
    return { recorder, append, failed, counts }
  })

interface Counts {
  readonly timelineEvents: number
  readonly agentSteps: number
  readonly toolInvocations: number
  readonly tokenUsages: number
  readonly totalTokens: number
  readonly usageMissing: number
}
const emptyCounts: Counts = {
  timelineEvents: 0,
  agentSteps: 0,
  toolInvocations: 0,
  tokenUsages: 0,
  totalTokens: 0,
  usageMissing: 0
}

/** Starts a run: ACTIVE state, budget, recorder, `RUN_STARTED` written (fail-open). */
export const makeRun = (options: MakeRunOptions): Effect.Effect<RunContext, never, AuditSink> =>
  Effect.gen(function* () {
    const sink = yield* AuditSink
    const runId = options.runId ?? newRunId()
    const { sessionId, query } = options
    const startedAt = yield* Clock.currentTimeMillis
    const state = yield* Ref.make<RunLifecycleState>("ACTIVE")
    const seen = yield* Ref.make<ReadonlySet<string>>(new Set())
    const budget = yield* makeRunBudget({ ...defaultRunBudgetLimits, ...options.budget })
    const { recorder, append, failed } = yield* makeRecorder(sink, runId, sessionId)

    yield* sink.startRun({ runId, sessionId, query, startedAt }).pipe(
      Effect.catchCause(() => Ref.update(failed, (n) => n + 1)),
      Effect.asVoid
    )
    yield* append(recorderEvents.runStarted({ query_chars: query.length }))

    const run: RunContext = {
      runId,
      sessionId,
      query,
      startedAt,
      authorizedTools: new Set(options.authorizedTools),
      budget,
      recorder,
      state: Ref.get(state),
      claimToolCallId: (toolCallId) =>
        Ref.modify(seen, (s): readonly [boolean, ReadonlySet<string>] =>
          s.has(toolCallId) ? [false, s] : [true, new Set(s).add(toolCallId)]
        ),
      finish: (result) =>
        Effect.gen(function* () {
          const current = yield* Ref.get(state)
          const next = yield* runTransition(current, result.status)
          yield* Ref.set(state, next)
          const before = yield* recorder.summary
          const finishedAt = yield* Clock.currentTimeMillis
          yield* append(
            recorderEvents.runFinished({
              // The caller's optional fields first: nothing it passes can replace the recorder's.
              ...(result.releaseResult !== undefined ? { release_result: result.releaseResult } : {}),
              ...(result.intent !== undefined ? { intent: result.intent } : {}),
              ...(result.toolCalls !== undefined ? { tool_calls: result.toolCalls } : {}),
              ...(result.source !== undefined ? { source: result.source } : {}),
              status: result.status,
              run_total_tokens: before.totalTokens,
              usage_complete: before.usageComplete
            })
          )
          const summary = yield* recorder.summary
          yield* sink
            .finishRun({
              runId,
              sessionId,
              status: result.status,
              intent: result.intent ?? null,
              releaseResult: result.releaseResult ?? null,
              latencyMs: finishedAt - startedAt,
              totalTokens: summary.totalTokens,
              usageComplete: summary.usageComplete,
              finalContent: result.finalContent ?? null,
              finishedAt,
              expected: {
                timelineEvents: summary.timelineEvents,
                agentSteps: summary.agentSteps,
                toolInvocations: summary.toolInvocations,
                tokenUsages: summary.tokenUsages
              },
              failedWrites: summary.failedWrites
            })
            .pipe(
              Effect.catchCause(() => Ref.update(failed, (n) => n + 1)),
              Effect.asVoid
            )
          return yield* recorder.summary
        })
    }
    return run
  })
