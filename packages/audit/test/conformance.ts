import {
  AuditSink,
  type AuditSinkShape,
  agentModelStepEvent,
  AuditWriteError,
  BackendError,
  CanonicalInvocationStore,
  evidenceGuardEvent,
  InMemoryCanonicalStore,
  type JsonObject,
  makeRun,
  makeToolBoundary,
  type Projection,
  releaseDecisionEvent,
  type TimelineEvent,
  type TimelineEventType,
  routingAttemptEvent,
  routingDecisionEvent,
  type RunContext,
  type RunId,
  semanticGuardAttemptEvent,
  semanticGuardDecisionEvent,
  type SessionId,
  type TokenUsage,
  type ToolDefinition
} from "@aiops-harness/core"
import { type AuditWriteKind, RecordingAuditSink, testId } from "@aiops-harness/core/testing"
import { Effect, Exit, Option, type Scope } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import {
  AUDIT_LIMITS,
  type RunListEntry,
  RunListPageSchema,
  type RunTrace,
  RunTraceSchema,
  runSortAt,
  type TraceQueryShape
} from "../src/index.js"

/** An event with any payload, as a sink-level test hands it to the sink (the sink does not parse). */
const unchecked = (
  event: Omit<TimelineEvent, "type" | "payload"> & { type: TimelineEventType; payload: JsonObject }
) => event as unknown as TimelineEvent

export const SECRET = "password=hunter2-SECRET"
export const SECRET_IP = "10.23.45.67"

/** One backend under test: a fresh sink + trace query, and every stored value as text. */
export interface AuditBackend {
  readonly sink: AuditSinkShape
  readonly trace: TraceQueryShape
  /** Every row of every audit table, stringified. */
  readonly dump: Effect.Effect<string, unknown>
}

export interface AuditConformanceOptions {
  readonly name: string
  readonly make: () => Effect.Effect<AuditBackend, unknown, Scope.Scope>
  readonly skip?: boolean
  readonly timeoutMs?: number
  /**
   * Timeline events are acknowledged when buffered (batched MySQL): a refused event then
   * does not fail its own write; it is counted in the run's finish record instead.
   */
  readonly timelineBuffered?: boolean
}

type Req = { query: string }
type Raw = { evidence: Array<{ source: string; content: string }> }

/** A knowledge tool whose raw response carries a secret and an internal IP. */
const secretTool: ToolDefinition<Req, Raw> = {
  name: "lookup_knowledge",
  description: "test knowledge with a secret in its raw body",
  readOnly: true,
  requestSchema: z.object({ query: z.string().min(1).max(200) }).strict(),
  execute: () =>
    Effect.succeed({
      evidence: [
        {
          source: "runbooks/db.md",
          content: `DB pool exhausted. Connect with ${SECRET} to ${SECRET_IP}:3306 and raise max_connections.`
        }
      ]
    }),
  project: ({ raw }) =>
    Effect.succeed<Projection>({
      evidenceStatus: "EVIDENCE_FOUND",
      observation: {
        evidence: raw.evidence.map((e) => ({ document_id: e.source, excerpt: "DB pool exhausted" }))
      },
      truncated: false,
      returnedCount: raw.evidence.length
    })
}

/** A backend that fails, its internal cause carrying the secret. */
const failingTool: ToolDefinition<Req, unknown> = {
  ...secretTool,
  name: "query_logs",
  execute: () =>
    Effect.fail(
      new BackendError({
        toolName: "query_logs",
        cause: new Error(`refused: mysql://root:${SECRET}@${SECRET_IP}`)
      })
    ),
  project: () => Effect.die("never projected")
}

const usage = (prompt: number, completion: number): TokenUsage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion
})

export interface DriveOptions {
  readonly sessionId?: SessionId
  /** Usage of the second agent turn (default 300/60); `null` = provider returned none. */
  readonly secondTurnUsage?: TokenUsage | null
  /** Stop before `finish` (a run still running). */
  readonly finish?: boolean
  readonly query?: string
  readonly finalContent?: string
  readonly runId?: RunId
}

/**
 * A realistic diagnosis run through core's `makeRun` + `RunRecorder` and a real ToolBoundary:
 * router, two agent turns (the first issues two tool calls, one fails), one call without a
 * step, evidence and semantic guard, release, finish.
 */
export const driveRun = (
  sink: AuditSinkShape,
  options: DriveOptions = {}
): Effect.Effect<{ run: RunContext; canonical: string }> =>
  Effect.gen(function* () {
    const sessionId = options.sessionId ?? (testId("session") as SessionId)
    const run = yield* Effect.provideService(
      makeRun({
        sessionId,
        runId: options.runId,
        query: options.query ?? "checkout returns 500 since 10:00, why?",
        authorizedTools: ["lookup_knowledge", "query_logs"]
      }),
      AuditSink,
      sink
    )
    const boundary = yield* makeToolBoundary({ run, tools: [secretTool, failingTool] })
    const r = run.recorder
    yield* r.tokenUsage({ component: "router", componentIndex: 1, model: "router-m", usage: usage(100, 20) })
    yield* r.event(routingAttemptEvent({ attempt: 1, outcome: "PARSED", model: "router-m" }))
    yield* r.event(routingDecisionEvent({ intent: "diagnosis", source: "model" }))

    yield* r.tokenUsage({
      component: "agent_turn",
      componentIndex: 1,
      model: "agent-m",
      usage: usage(200, 50)
    })
    yield* r.agentStep({
      stepId: "step-1",
      stepIndex: 1,
      startedAt: run.startedAt + 1,
      latencyMs: 40,
      outcome: "tool_calls",
      toolCallIds: ["call-1", "call-2"],
      usageAvailable: true,
      totalTokens: 250
    })
    yield* r.event(
      agentModelStepEvent({
        step_id: "step-1",
        step_index: 1,
        outcome: "tool_calls",
        tool_call_count: 2,
        usage_available: true
      })
    )
    const ok = yield* boundary.call({
      runId: run.runId,
      toolCallId: "call-1",
      toolName: "lookup_knowledge",
      arguments: JSON.stringify({ query: "checkout 500" }),
      stepId: "step-1"
    })
    expect(ok.control.status).toBe("READY")
    const failed = yield* boundary.call({
      runId: run.runId,
      toolCallId: "call-2",
      toolName: "query_logs",
      arguments: { query: "service:checkout level:error" },
      stepId: "step-1"
    })
    expect(failed.control.errorCode).toBe("BACKEND_ERROR")

    const second = options.secondTurnUsage === undefined ? usage(300, 60) : options.secondTurnUsage
    yield* r.tokenUsage({ component: "agent_turn", componentIndex: 2, model: "agent-m", usage: second })
    yield* r.agentStep({
      stepId: "step-2",
      stepIndex: 2,
      startedAt: run.startedAt + 2,
      latencyMs: 30,
      outcome: "final",
      toolCallIds: [],
      usageAvailable: second !== null,
      totalTokens: second?.totalTokens ?? null
    })
    yield* r.event(
      agentModelStepEvent({
        step_id: "step-2",
        step_index: 2,
        outcome: "final",
        tool_call_count: 0,
        usage_available: second !== null
      })
    )
    // A call with no issuing step (e.g. a harness-issued check).
    yield* boundary.call({
      runId: run.runId,
      toolCallId: "call-3",
      toolName: "lookup_knowledge",
      arguments: { query: "connection pool runbook" },
      stepId: null
    })
    yield* r.event(evidenceGuardEvent({ passed: true, store_available: true, claims: 1, failures: [] }))
    yield* r.tokenUsage({
      component: "semantic_guard",
      componentIndex: 1,
      model: "guard-m",
      usage: usage(80, 10)
    })
    yield* r.event(semanticGuardAttemptEvent({ attempt: 1, outcome: "JUDGED", model: "guard-m" }))
    yield* r.event(
      semanticGuardDecisionEvent({ passed: true, verdict: "SUPPORTED", verdicts: [], summary_verdict: null })
    )
    yield* r.event(releaseDecisionEvent({ decision: "PUBLISH_REPORT", release_result: "PUBLISH" }))
    if (options.finish !== false) {
      yield* run.finish({
        status: "FINISHED",
        intent: "diagnosis",
        releaseResult: "PUBLISH",
        finalContent: options.finalContent ?? "The checkout DB pool is exhausted (runbooks/db.md)."
      })
    }
    const store = yield* CanonicalInvocationStore
    const record = yield* store.get(run.runId, "call-1" as never)
    return { run, canonical: JSON.stringify(Option.getOrUndefined(record)) }
  }).pipe(Effect.provide(InMemoryCanonicalStore.layer()), Effect.orDie)

const EXPECTED_TYPES = [
  "RUN_STARTED",
  "MODEL_TOKEN_USAGE",
  "ROUTING_ATTEMPT",
  "ROUTING_DECISION",
  "MODEL_TOKEN_USAGE",
  "AGENT_MODEL_STEP",
  "TOOL_INVOCATION",
  "TOOL_INVOCATION",
  "MODEL_TOKEN_USAGE",
  "AGENT_MODEL_STEP",
  "TOOL_INVOCATION",
  "EVIDENCE_GUARD_INITIAL",
  "MODEL_TOKEN_USAGE",
  "SEMANTIC_GUARD_ATTEMPT",
  "SEMANTIC_GUARD_DECISION",
  "RELEASE_DECISION",
  "RUN_FINISHED"
]

/** Wraps a sink so that chosen writes fail with `AuditWriteError` (the n-th call of a method, 1-based). */
export const failSomeWrites = (
  sink: AuditSinkShape,
  plan: Partial<Record<AuditWriteKind, ReadonlyArray<number>>>
): AuditSinkShape =>
  new RecordingAuditSink({ forwardTo: sink, fail: (write, nth) => plan[write.kind]?.includes(nth) === true })

export const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason?._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return reason.error
}

/** The behaviour every durable audit backend must have. */
export const auditConformance = (options: AuditConformanceOptions): void => {
  const t = (name: string, program: (backend: AuditBackend) => Effect.Effect<void, unknown>) =>
    it(
      name,
      () =>
        Effect.runPromise(
          Effect.scoped(Effect.flatMap(options.make(), (backend) => program(backend))) as Effect.Effect<
            void,
            unknown
          >
        ),
      options.timeoutMs ?? 20_000
    )

  describe.skipIf(options.skip === true)(`AuditSink + TraceQuery conformance: ${options.name}`, () => {
    t("a realistic run: ordered timeline, steps with their calls, ledger, reconciled and complete", (b) =>
      Effect.gen(function* () {
        const { run } = yield* driveRun(b.sink)
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(RunTraceSchema.parse(trace)).toEqual(trace)
        expect(trace.timeline.map((e) => e.type)).toEqual(EXPECTED_TYPES)
        expect(trace.timeline.map((e) => e.seq)).toEqual(EXPECTED_TYPES.map((_, i) => i + 1))
        const finished = trace.timeline.at(-1)!
        expect(finished.payload.run_total_tokens).toBe(120 + 250 + 360 + 90)

        expect(trace.run).toMatchObject({
          run_id: run.runId,
          session_id: run.sessionId,
          query: "checkout returns 500 since 10:00, why?",
          status: "FINISHED",
          intent: "diagnosis",
          release_result: "PUBLISH",
          total_token_count: 820,
          usage_complete: true,
          final_content: "The checkout DB pool is exhausted (runbooks/db.md).",
          started_at: run.startedAt,
          failed_writes: 0,
          expected: { timeline_events: 17, agent_steps: 2, tool_invocations: 3, token_usages: 4 }
        })
        expect(trace.run.finished_at).toBeGreaterThanOrEqual(run.startedAt)

        expect(trace.agent_steps.map((s) => s.step_id)).toEqual(["step-1", "step-2"])
        const [step1, step2] = trace.agent_steps
        expect(step1!.tool_call_ids).toEqual(["call-1", "call-2"])
        expect(step1!.tool_invocations.map((t) => t.tool_call_id)).toEqual(["call-1", "call-2"])
        expect(step1!.tool_invocations[0]).toMatchObject({
          tool_name: "lookup_knowledge",
          step_id: "step-1",
          status: "READY",
          evidence_status: "EVIDENCE_FOUND",
          error_code: null,
          truncated: false,
          returned_count: 1
        })
        expect(step1!.tool_invocations[0]!.raw_bytes).toBeGreaterThan(0)
        expect(step1!.tool_invocations[0]!.projection_bytes).toBeGreaterThan(0)
        expect(step1!.tool_invocations[0]!.request_bytes).toBeGreaterThan(0)
        expect(step1!.tool_invocations[1]).toMatchObject({
          tool_name: "query_logs",
          status: "ERROR",
          evidence_status: "ERROR",
          error_code: "BACKEND_ERROR",
          returned_count: null
        })
        expect(step2!.tool_invocations).toEqual([])
        expect(trace.tool_invocations_without_step.map((t) => t.tool_call_id)).toEqual(["call-3"])

        expect(
          trace.token_ledger.map((u) => [u.seq, u.component, u.component_index, u.total_tokens])
        ).toEqual([
          [1, "router", 1, 120],
          [2, "agent_turn", 1, 250],
          [3, "agent_turn", 2, 360],
          [4, "semantic_guard", 1, 90]
        ])
        expect(trace.token_ledger[0]).toMatchObject({
          prompt_tokens: 100,
          completion_tokens: 20,
          model: "router-m"
        })

        expect(trace.reconciliation).toEqual({
          tokens_reconciled: true,
          ledger_total_tokens: 820,
          run_total_tokens: 820,
          finished_event_total_tokens: 820,
          usage_complete: true,
          status_reconciled: true,
          invalid_events: 0,
          timeline_events: { expected: 17, found: 17 },
          agent_steps: { expected: 2, found: 2 },
          tool_invocations: { expected: 3, found: 3 },
          token_usages: { expected: 4, found: 4 },
          run_start_recorded: true,
          run_finish_recorded: true,
          counts_match: true,
          audit_complete: true,
          missing_writes: 0
        })
      })
    )

    t(
      "a missing usage is usage_available=false with null tokens; reconciliation on the available ones",
      (b) =>
        Effect.gen(function* () {
          const { run } = yield* driveRun(b.sink, { secondTurnUsage: null })
          const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
          const missing = trace.token_ledger[2]!
          expect(missing).toMatchObject({
            component: "agent_turn",
            component_index: 2,
            usage_available: false,
            prompt_tokens: null,
            completion_tokens: null,
            total_tokens: null
          })
          expect(trace.agent_steps[1]).toMatchObject({ usage_available: false, total_tokens: null })
          const event = trace.timeline.filter((e) => e.type === "MODEL_TOKEN_USAGE")[2]!
          expect(event.payload).toMatchObject({ usage_available: false, total_tokens: null })
          expect(trace.run.total_token_count).toBe(120 + 250 + 90)
          expect(trace.run.usage_complete).toBe(false)
          expect(trace.reconciliation).toMatchObject({
            tokens_reconciled: true,
            ledger_total_tokens: 460,
            usage_complete: false,
            audit_complete: true,
            missing_writes: 0
          })
        })
    )

    t("failed writes: audit_complete false with the number of missing writes", (b) =>
      Effect.gen(function* () {
        const sink = failSomeWrites(b.sink, {
          appendTimelineEvent: [3, 7],
          recordToolInvocation: [2],
          recordTokenUsage: [4]
        })
        const { run } = yield* driveRun(sink)
        const summary = yield* run.recorder.summary
        expect(summary.failedWrites).toBe(4)
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(trace.run.failed_writes).toBe(4)
        expect(trace.timeline.map((e) => e.seq)).toEqual(
          Array.from({ length: 17 }, (_, i) => i + 1).filter((s) => s !== 3 && s !== 7)
        )
        expect(trace.reconciliation).toMatchObject({
          timeline_events: { expected: 17, found: 15 },
          tool_invocations: { expected: 3, found: 2 },
          token_usages: { expected: 4, found: 3 },
          agent_steps: { expected: 2, found: 2 },
          counts_match: false,
          audit_complete: false,
          missing_writes: 4,
          run_finish_recorded: true,
          // The lost guard usage (90 tokens) breaks the token reconciliation.
          tokens_reconciled: false,
          ledger_total_tokens: 730,
          run_total_tokens: 820
        })
      })
    )

    t("a lost start record: the finish still lands, query is null, the loss is counted", (b) =>
      Effect.gen(function* () {
        const { run } = yield* driveRun(failSomeWrites(b.sink, { startRun: [1] }))
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(trace.run).toMatchObject({
          status: "FINISHED",
          query: null,
          started_at: null,
          failed_writes: 1
        })
        expect(trace.reconciliation).toMatchObject({
          run_start_recorded: false,
          run_finish_recorded: true,
          counts_match: true,
          tokens_reconciled: true,
          audit_complete: false,
          missing_writes: 1
        })
      })
    )

    t("a lost finish record (or a run still running): audit_complete false", (b) =>
      Effect.gen(function* () {
        const lost = yield* driveRun(failSomeWrites(b.sink, { finishRun: [1] }))
        const running = yield* driveRun(b.sink, { finish: false })
        for (const { run } of [lost, running]) {
          const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
          expect(trace.run.status).toBe("RUNNING")
          expect(trace.run.finished_at).toBeNull()
          expect(trace.run.expected).toBeNull()
          expect(trace.reconciliation).toMatchObject({
            run_start_recorded: true,
            run_finish_recorded: false,
            counts_match: false,
            tokens_reconciled: false,
            audit_complete: false,
            timeline_events: { expected: null }
          })
        }
        const lostTrace = yield* b.trace.getTrace(lost.run.sessionId, lost.run.runId)
        expect(lostTrace.timeline.at(-1)?.type).toBe("RUN_FINISHED")
      })
    )

    t("an unknown run, another session's run and an invalid id are RunNotFound", (b) =>
      Effect.gen(function* () {
        const { run } = yield* driveRun(b.sink)
        for (const [session, runId] of [
          [run.sessionId, testId("run")],
          [testId("session"), run.runId],
          ["not a valid id!", run.runId],
          [run.sessionId, "x".repeat(300)]
        ] as const) {
          const error = failureOf(yield* Effect.exit(b.trace.getTrace(session, runId)))
          expect(error._tag).toBe("RunNotFound")
          if (error._tag === "RunNotFound") expect([error.sessionId, error.runId]).toEqual([session, runId])
        }
      })
    )

    t("two concurrent runs of one session never mix", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const [a, c] = yield* Effect.all(
          [
            driveRun(b.sink, { sessionId, query: "run A" }),
            driveRun(b.sink, { sessionId, secondTurnUsage: null, query: "run B" })
          ],
          { concurrency: "unbounded" }
        )
        const ta = yield* b.trace.getTrace(sessionId, a.run.runId)
        const tc = yield* b.trace.getTrace(sessionId, c.run.runId)
        expect(ta.run.query).toBe("run A")
        expect(tc.run.query).toBe("run B")
        for (const [trace, other] of [
          [ta, c.run.runId],
          [tc, a.run.runId]
        ] as const) {
          expect(trace.timeline).toHaveLength(17)
          expect(trace.token_ledger).toHaveLength(4)
          expect(trace.agent_steps).toHaveLength(2)
          expect(trace.reconciliation.audit_complete).toBe(true)
          expect(JSON.stringify(trace)).not.toContain(other)
        }
        expect(ta.reconciliation.ledger_total_tokens).toBe(820)
        expect(tc.reconciliation.ledger_total_tokens).toBe(460)
      })
    )

    t("a secret in a tool's raw response reaches no audit column", (b) =>
      Effect.gen(function* () {
        const { run, canonical } = yield* driveRun(b.sink)
        // The secret really went through the harness: the canonical (short-lived) record keeps it.
        expect(canonical).toContain(SECRET)
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        const dump = yield* b.dump
        expect(dump).toContain(run.runId)
        for (const text of [dump, JSON.stringify(trace)]) {
          expect(text).not.toContain("hunter2")
          expect(text).not.toContain(SECRET_IP)
        }
      })
    )

    t("every text and JSON value is bounded", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const runId = testId("run") as RunId
        const big = "é".repeat(100_000)
        const bigJson: JsonObject = {
          body: big,
          list: Array.from({ length: 1000 }, (_, i) => i),
          nested: { a: { b: { c: { d: { e: "deep" } } } } }
        }
        yield* b.sink.startRun({ runId, sessionId, query: big, startedAt: 1 })
        // The sink bounds whatever it is given: these payloads match no event schema on purpose.
        yield* b.sink.appendTimelineEvent(
          unchecked({ runId, sessionId, seq: 1, type: "RUN_STARTED", at: 2, payload: bigJson })
        )
        yield* b.sink.appendTimelineEvent(
          unchecked({
            runId,
            sessionId,
            seq: 2,
            type: "TOOL_INVOCATION",
            at: 3,
            payload: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, "v".repeat(300)]))
          })
        )
        yield* b.sink.recordToolInvocation({
          runId,
          sessionId,
          toolCallId: "call-1",
          toolName: "t".repeat(1000),
          stepId: null,
          status: "READY",
          evidenceStatus: "NO_EVIDENCE",
          errorCode: null,
          latencyMs: 1,
          requestBytes: 1,
          rawBytes: 1,
          projectionBytes: 1,
          truncated: false,
          returnedCount: 0,
          startedAt: 3,
          metadata: bigJson
        })
        yield* b.sink.finishRun({
          runId,
          sessionId,
          status: "FAILED",
          intent: "i".repeat(1000),
          releaseResult: null,
          latencyMs: 5,
          totalTokens: 0,
          usageComplete: true,
          finalContent: big,
          finishedAt: 6,
          expected: { timelineEvents: 2, agentSteps: 0, toolInvocations: 1, tokenUsages: 0 },
          failedWrites: 0
        })
        const trace = yield* b.trace.getTrace(sessionId, runId)
        const bytes = (v: unknown) =>
          new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v)).length
        expect(Array.from(trace.run.query!)).toHaveLength(AUDIT_LIMITS.queryChars)
        expect(bytes(trace.run.final_content)).toBeLessThanOrEqual(AUDIT_LIMITS.finalContentBytes)
        expect(bytes(trace.run.final_content)).toBeGreaterThan(AUDIT_LIMITS.finalContentBytes - 4)
        expect(trace.run.final_content!.endsWith("é")).toBe(true)
        expect(trace.run.intent).toHaveLength(AUDIT_LIMITS.labelChars)
        expect(trace.run.status).toBe("FAILED")
        // Stored bounded; read back as INVALID_EVENT entries (no schema matches), the stored payload kept.
        for (const e of trace.timeline) {
          const stored = e.payload.stored_payload as JsonObject
          expect(e.type).toBe("INVALID_EVENT")
          expect(bytes(stored)).toBeLessThanOrEqual(AUDIT_LIMITS.payloadBytes)
          expect(stored._truncated).toBe(true)
        }
        expect(trace.timeline[1]!.payload.stored_payload).toEqual({
          _truncated: true,
          _original_bytes: expect.any(Number)
        })
        expect(trace.reconciliation.invalid_events).toBe(2)
        const tool = trace.tool_invocations_without_step[0]!
        expect(bytes(tool.metadata)).toBeLessThanOrEqual(AUDIT_LIMITS.metadataBytes)
        expect(tool.metadata._truncated).toBe(true)
        expect(tool.tool_name).toHaveLength(AUDIT_LIMITS.labelChars)
        expect(trace.reconciliation).toMatchObject({ audit_complete: true, counts_match: true })
      })
    )

    t("a duplicate write fails with AuditWriteError and keeps the first", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const runId = testId("run") as RunId
        const event = {
          runId,
          sessionId,
          seq: 1,
          type: "RUN_STARTED" as const,
          at: 1,
          payload: { query_chars: 1 }
        }
        yield* b.sink.startRun({ runId, sessionId, query: "q", startedAt: 1 })
        yield* b.sink.appendTimelineEvent(event)
        const usageRow = {
          runId,
          sessionId,
          seq: 1,
          component: "router" as const,
          componentIndex: 1,
          model: "m",
          usageAvailable: true,
          promptTokens: 1,
          completionTokens: 1,
          totalTokens: 2,
          at: 1
        }
        yield* b.sink.recordTokenUsage(usageRow)
        const dupUsage = failureOf(
          yield* Effect.exit(b.sink.recordTokenUsage({ ...usageRow, totalTokens: 9 }))
        )
        expect(dupUsage).toBeInstanceOf(AuditWriteError)
        expect(dupUsage.record).toBe("model_token_usage")
        const dupStart = failureOf(
          yield* Effect.exit(b.sink.startRun({ runId, sessionId, query: "other", startedAt: 2 }))
        )
        expect(dupStart.record).toBe("diagnosis_run")
        // A run id taken by another session cannot be written into.
        const otherSession = failureOf(
          yield* Effect.exit(
            b.sink.startRun({ runId, sessionId: testId("session") as SessionId, query: "x", startedAt: 1 })
          )
        )
        expect(otherSession._tag).toBe("AuditWriteError")
        // Batched backends acknowledge events first: the duplicate is then simply not stored.
        yield* Effect.exit(b.sink.appendTimelineEvent({ ...event, payload: { query_chars: 2 } }))
        const trace = yield* b.trace.getTrace(sessionId, runId)
        expect(trace.timeline).toEqual([{ seq: 1, type: "RUN_STARTED", at: 1, payload: { query_chars: 1 } }])
        expect(trace.token_ledger.map((u) => u.total_tokens)).toEqual([2])
        expect(trace.run.query).toBe("q")
      })
    )

    t("no model call reported usage: every total is null (never 0) and they reconcile as null", (b) =>
      Effect.gen(function* () {
        const drive = (sink: AuditSinkShape) =>
          Effect.gen(function* () {
            const run = yield* Effect.provideService(
              makeRun({ sessionId: testId("session") as SessionId, query: "q", authorizedTools: [] }),
              AuditSink,
              sink
            )
            yield* run.recorder.tokenUsage({
              component: "router",
              componentIndex: 1,
              model: "m",
              usage: null
            })
            yield* run.recorder.tokenUsage({
              component: "agent_turn",
              componentIndex: 1,
              model: "m",
              usage: null
            })
            const summary = yield* run.finish({ status: "FINISHED" })
            return { run, summary }
          })
        const { run, summary } = yield* drive(b.sink)
        expect(summary.totalTokens).toBeNull()
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(trace.timeline.at(-1)?.payload).toMatchObject({
          run_total_tokens: null,
          usage_complete: false
        })
        expect(trace.run).toMatchObject({ total_token_count: null, usage_complete: false })
        expect(trace.token_ledger.map((u) => [u.usage_available, u.total_tokens])).toEqual([
          [false, null],
          [false, null]
        ])
        expect(trace.reconciliation).toMatchObject({
          tokens_reconciled: true,
          ledger_total_tokens: null,
          run_total_tokens: null,
          finished_event_total_tokens: null,
          usage_complete: false,
          audit_complete: true,
          missing_writes: 0
        })
        expect(RunTraceSchema.parse(JSON.parse(JSON.stringify(trace)))).toEqual(trace)

        // Without the RUN_FINISHED event (the 4th event) nothing states the total: not reconciled.
        const lost = yield* drive(failSomeWrites(b.sink, { appendTimelineEvent: [4] }))
        const lostTrace = yield* b.trace.getTrace(lost.run.sessionId, lost.run.runId)
        expect(lostTrace.reconciliation).toMatchObject({
          tokens_reconciled: false,
          ledger_total_tokens: null,
          run_total_tokens: null,
          finished_event_total_tokens: null,
          audit_complete: false,
          missing_writes: 1
        })
      })
    )

    t("child records with the run id of another session's run are rejected (every kind)", (b) =>
      Effect.gen(function* () {
        const owner = testId("session") as SessionId
        const other = testId("session") as SessionId
        const runId = testId("run") as RunId
        yield* b.sink.startRun({ runId, sessionId: owner, query: "mine", startedAt: 1 })
        const ids = { runId, sessionId: other }
        const children: ReadonlyArray<readonly [string, Effect.Effect<void, AuditWriteError>]> = [
          [
            "agent_step",
            b.sink.recordAgentStep({
              ...ids,
              stepId: "step-1",
              stepIndex: 1,
              startedAt: 2,
              latencyMs: 1,
              outcome: "final",
              toolCallIds: [],
              usageAvailable: false,
              totalTokens: null
            })
          ],
          [
            "tool_invocation",
            b.sink.recordToolInvocation({
              ...ids,
              toolCallId: "call-1",
              toolName: "lookup_knowledge",
              stepId: null,
              status: "READY",
              evidenceStatus: "NO_EVIDENCE",
              errorCode: null,
              latencyMs: 1,
              requestBytes: 1,
              rawBytes: 1,
              projectionBytes: 1,
              truncated: false,
              returnedCount: 0,
              startedAt: 2,
              metadata: {}
            })
          ],
          [
            "model_token_usage",
            b.sink.recordTokenUsage({
              ...ids,
              seq: 1,
              component: "router",
              componentIndex: 1,
              model: "m",
              usageAvailable: true,
              promptTokens: 1,
              completionTokens: 1,
              totalTokens: 2,
              at: 2
            })
          ],
          [
            "diagnosis_run",
            b.sink.finishRun({
              ...ids,
              status: "FINISHED",
              intent: null,
              releaseResult: null,
              latencyMs: 1,
              totalTokens: 2,
              usageComplete: true,
              finalContent: "theirs",
              finishedAt: 3,
              expected: { timelineEvents: 1, agentSteps: 1, toolInvocations: 1, tokenUsages: 1 },
              failedWrites: 0
            })
          ]
        ]
        for (const [record, write] of children) {
          const error = failureOf(yield* Effect.exit(write))
          expect(error).toBeInstanceOf(AuditWriteError)
          expect(error.record).toBe(record)
        }
        const event = b.sink.appendTimelineEvent({
          ...ids,
          seq: 1,
          type: "RUN_STARTED",
          at: 2,
          payload: { query_chars: 6 }
        })
        if (options.timelineBuffered) yield* event
        else expect(failureOf(yield* Effect.exit(event)).record).toBe("run_timeline_event")

        // The owner's run holds none of it, and the other session sees no such run.
        const trace = yield* b.trace.getTrace(owner, runId)
        expect(trace.run.query).toBe("mine")
        expect(trace.run.status).toBe("RUNNING")
        expect([trace.timeline, trace.agent_steps, trace.token_ledger]).toEqual([[], [], []])
        expect(trace.tool_invocations_without_step).toEqual([])
        expect(failureOf(yield* Effect.exit(b.trace.getTrace(other, runId)))._tag).toBe("RunNotFound")
        // The owner still writes its own records.
        yield* b.sink.appendTimelineEvent({
          runId,
          sessionId: owner,
          seq: 1,
          type: "RUN_STARTED",
          at: 2,
          payload: { query_chars: 4 }
        })
        expect((yield* b.trace.getTrace(owner, runId)).timeline.map((e) => e.seq)).toEqual([1])
      })
    )

    t("child records before any run record are accepted and read only by their own session", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const runId = testId("run") as RunId
        yield* b.sink.appendTimelineEvent({
          runId,
          sessionId,
          seq: 1,
          type: "RUN_STARTED",
          at: 1,
          payload: { query_chars: 4 }
        })
        const trace = yield* b.trace.getTrace(sessionId, runId)
        expect(trace.timeline.map((e) => e.seq)).toEqual([1])
        expect(trace.reconciliation).toMatchObject({ run_start_recorded: false, run_finish_recorded: false })
        expect(failureOf(yield* Effect.exit(b.trace.getTrace(testId("session"), runId)))._tag).toBe(
          "RunNotFound"
        )
      })
    )

    t("events the store refuses (batched or not) reach the finish record's failed_writes", (b) =>
      Effect.gen(function* () {
        const runId = testId("run") as RunId
        const squatter = testId("session") as SessionId
        // Rows already holding (run_id, seq) 3 and 7, written for another session before the run.
        for (const seq of [3, 7]) {
          yield* b.sink.appendTimelineEvent({
            runId,
            sessionId: squatter,
            seq,
            type: "ROUTING_ATTEMPT",
            at: 1,
            payload: { attempt: 1, outcome: "PARSED" }
          })
        }
        // A trace read flushes a batched backend: the squatter's rows land first.
        expect((yield* b.trace.getTrace(squatter, runId)).timeline).toHaveLength(2)
        const { run } = yield* driveRun(b.sink, { runId })
        const summary = yield* run.recorder.summary
        // Unbatched: the run saw both failures. Batched: acknowledged, counted at finish.
        expect(summary.failedWrites).toBe(options.timelineBuffered ? 0 : 2)
        const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(trace.run.failed_writes).toBe(2)
        expect(trace.timeline.map((e) => e.seq)).toEqual(
          Array.from({ length: 17 }, (_, i) => i + 1).filter((s) => s !== 3 && s !== 7)
        )
        expect(trace.reconciliation).toMatchObject({
          timeline_events: { expected: 17, found: 15 },
          counts_match: false,
          audit_complete: false,
          missing_writes: 2,
          tokens_reconciled: true
        })
      })
    )

    t("the schema accepts exactly what getTrace returns (JSON round trip)", (b) =>
      Effect.gen(function* () {
        const { run } = yield* driveRun(b.sink)
        const trace: RunTrace = yield* b.trace.getTrace(run.sessionId, run.runId)
        expect(RunTraceSchema.parse(JSON.parse(JSON.stringify(trace)))).toEqual(trace)
      })
    )

    t("listRuns: newest first, paged by cursor, each run with its counts and audit completeness", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const a = (yield* driveRun(b.sink, { sessionId, query: "first run" })).run
        const c = (yield* driveRun(b.sink, { sessionId, query: "second run" })).run
        // A run still running, and one with lost writes (a tool invocation and a timeline event).
        const running = (yield* driveRun(b.sink, { sessionId, query: "third run", finish: false })).run
        const lossy = (yield* driveRun(
          failSomeWrites(b.sink, { recordToolInvocation: [1], appendTimelineEvent: [5] }),
          {
            sessionId,
            query: "fourth run"
          }
        )).run
        // Another session's run never shows in this session's list.
        yield* driveRun(b.sink)
        const expectedOrder = [a, c, running, lossy]
          .map((r) => ({ at: r.startedAt, id: r.runId as string }))
          .sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1))
          .map((r) => r.id)

        const first = yield* b.trace.listRuns({ sessionId, limit: 3 })
        expect(RunListPageSchema.parse(first)).toEqual(first)
        expect(first.runs.map((r) => r.run_id)).toEqual(expectedOrder.slice(0, 3))
        expect(first.next_cursor).not.toBeNull()
        const second = yield* b.trace.listRuns({ sessionId, limit: 3, before: first.next_cursor })
        expect(second.runs.map((r) => r.run_id)).toEqual(expectedOrder.slice(3))
        expect(second.next_cursor).toBeNull()
        const all = yield* b.trace.listRuns({ sessionId })
        expect(all.runs.map((r) => r.run_id)).toEqual(expectedOrder)
        expect(all.next_cursor).toBeNull()

        const byId = new Map<string, RunListEntry>(all.runs.map((r) => [r.run_id, r]))
        expect(byId.get(a.runId)).toMatchObject({
          session_id: sessionId,
          query: "first run",
          status: "FINISHED",
          intent: "diagnosis",
          release_result: "PUBLISH",
          total_token_count: 820,
          usage_complete: true,
          tool_calls: 3,
          audit_complete: true,
          missing_writes: 0
        })
        expect(byId.get(a.runId)!.started_at).toBe(a.startedAt)
        expect(byId.get(a.runId)!.latency_ms).not.toBeNull()
        expect(byId.get(running.runId)).toMatchObject({
          status: "RUNNING",
          release_result: null,
          finished_at: null,
          tool_calls: 3,
          audit_complete: false
        })
        expect(byId.get(lossy.runId)).toMatchObject({
          status: "FINISHED",
          tool_calls: 2,
          audit_complete: false,
          missing_writes: 2
        })
        // The list's completeness is the trace's.
        for (const run of [a, running, lossy]) {
          const trace = yield* b.trace.getTrace(run.sessionId, run.runId)
          expect(byId.get(run.runId)!.audit_complete).toBe(trace.reconciliation.audit_complete)
          expect(byId.get(run.runId)!.missing_writes).toBe(trace.reconciliation.missing_writes)
        }
      })
    )

    t("listRuns: filters by status and release result; the unfiltered list is newest first", (b) =>
      Effect.gen(function* () {
        const sessionId = testId("session") as SessionId
        const done = (yield* driveRun(b.sink, { sessionId })).run
        const running = (yield* driveRun(b.sink, { sessionId, finish: false })).run
        const onlyRunning = yield* b.trace.listRuns({ sessionId, status: "RUNNING" })
        expect(onlyRunning.runs.map((r) => r.run_id)).toEqual([running.runId])
        const published = yield* b.trace.listRuns({ sessionId, releaseResult: "PUBLISH" })
        expect(published.runs.map((r) => r.run_id)).toEqual([done.runId])
        const none = yield* b.trace.listRuns({ sessionId, releaseResult: "CANNOT_CONCLUDE" })
        expect(none).toEqual({ runs: [], next_cursor: null })
        const unknownSession = yield* b.trace.listRuns({ sessionId: testId("session") })
        expect(unknownSession.runs).toEqual([])

        // Other suites share the store: only check that pages are ordered and contiguous.
        const page1 = yield* b.trace.listRuns({ limit: 5 })
        const at = page1.runs.map(runSortAt)
        expect([...at].sort((x, y) => y - x)).toEqual(at)
        if (page1.next_cursor) {
          const page2 = yield* b.trace.listRuns({ limit: 5, before: page1.next_cursor })
          expect(runSortAt(page2.runs[0]!)).toBeLessThanOrEqual(at.at(-1)!)
          const seen = new Set(page1.runs.map((r) => r.run_id))
          for (const r of page2.runs) expect(seen.has(r.run_id)).toBe(false)
        }
      })
    )

    t("listRuns: an unusable request is InvalidRunListQuery naming the field", (b) =>
      Effect.gen(function* () {
        const cases = [
          [{ limit: 0 }, "limit"],
          [{ limit: 101 }, "limit"],
          [{ limit: 2.5 }, "limit"],
          [{ before: "not-a-cursor" }, "before"],
          [{ before: "12.bad id" }, "before"],
          [{ sessionId: "bad id!" }, "sessionId"],
          [{ status: "DONE" as never }, "status"],
          [{ releaseResult: "x'; DROP TABLE diagnosis_run; --" }, "releaseResult"]
        ] as const
        for (const [options, field] of cases) {
          const error = failureOf(yield* Effect.exit(b.trace.listRuns(options)))
          expect(error._tag).toBe("InvalidRunListQuery")
          expect(error).toMatchObject({ field })
        }
      })
    )
  })
}
