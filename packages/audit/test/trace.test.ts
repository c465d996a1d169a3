import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { buildTrace, RunTraceSchema, type RunSummary, type StoredTimelineRow } from "../src/index.js"

const finishedRun = (status: RunSummary["status"]): RunSummary => ({
  run_id: "r1",
  session_id: "s1",
  query: "why 500?",
  status,
  intent: "diagnosis",
  release_result: "CANNOT_CONCLUDE",
  latency_ms: 5,
  total_token_count: 0,
  usage_complete: true,
  final_content: "…",
  started_at: 1,
  finished_at: 6,
  expected: { timeline_events: 3, agent_steps: 0, tool_invocations: 0, token_usages: 0 },
  failed_writes: 0
})

const finished = (status: string, seq = 3): StoredTimelineRow => ({
  seq,
  type: "RUN_FINISHED",
  at: 6,
  payload: { status, run_total_tokens: 0, usage_complete: true }
})

const traceOf = (run: RunSummary, timeline: ReadonlyArray<StoredTimelineRow>) =>
  Effect.runPromise(
    buildTrace({
      sessionId: "s1",
      runId: "r1",
      run,
      timeline,
      agentSteps: [],
      toolInvocations: [],
      tokenLedger: []
    })
  )

describe("buildTrace: stored timeline rows parsed with the event schemas", () => {
  const started: StoredTimelineRow = { seq: 1, type: "RUN_STARTED", at: 1, payload: { query_chars: 8 } }

  it("a well-formed run: no invalid events, status and tokens reconciled", async () => {
    const trace = await traceOf(finishedRun("FINISHED"), [
      started,
      { seq: 2, type: "ROUTING_DECISION", at: 2, payload: { intent: "diagnosis", source: "model" } },
      finished("FINISHED")
    ])
    expect(trace.timeline.map((e) => e.type)).toEqual(["RUN_STARTED", "ROUTING_DECISION", "RUN_FINISHED"])
    expect(trace.reconciliation).toMatchObject({
      invalid_events: 0,
      status_reconciled: true,
      tokens_reconciled: true,
      audit_complete: true
    })
  })

  it("rows that do not parse become INVALID_EVENT entries, counted, the stored row kept", async () => {
    const trace = await traceOf(finishedRun("FINISHED"), [
      started,
      // A free-form payload of the old API, an unknown type and a non-object payload.
      { seq: 2, type: "ROUTING_DECISION", at: 2, payload: { intent: "diagnosis", source: 7 } },
      { seq: 3, type: "RUN_PAUSED", at: 3, payload: {} },
      { seq: 4, type: "STOP_REQUIRED", at: 4, payload: "NO_GAIN" },
      finished("FINISHED", 5)
    ])
    expect(RunTraceSchema.parse(trace)).toEqual(trace)
    expect(trace.timeline.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "INVALID_EVENT",
      "INVALID_EVENT",
      "INVALID_EVENT",
      "RUN_FINISHED"
    ])
    expect(trace.timeline[1]!.payload).toEqual({
      stored_type: "ROUTING_DECISION",
      issue: expect.stringMatching(/^source: /),
      stored_payload: { intent: "diagnosis", source: 7 }
    })
    expect(trace.timeline[2]!.payload).toMatchObject({
      stored_type: "RUN_PAUSED",
      issue: "unknown event type"
    })
    expect(trace.timeline[3]!.payload).toMatchObject({
      stored_type: "STOP_REQUIRED",
      stored_payload: "NO_GAIN"
    })
    expect(trace.reconciliation.invalid_events).toBe(3)
    // Invalid rows are still rows: the counts check is unchanged by them.
    expect(trace.reconciliation.timeline_events.found).toBe(5)
  })

  it("a RUN_FINISHED whose status differs from the run record does not reconcile (a forged status)", async () => {
    const trace = await traceOf(finishedRun("FINISHED"), [
      started,
      { ...started, seq: 2 },
      finished("CANCELLED")
    ])
    expect(trace.reconciliation).toMatchObject({ status_reconciled: false, tokens_reconciled: true })
  })

  it("a malformed RUN_FINISHED is invalid: neither status nor tokens reconcile", async () => {
    const trace = await traceOf(finishedRun("FINISHED"), [
      started,
      { ...started, seq: 2 },
      { seq: 3, type: "RUN_FINISHED", at: 6, payload: { status: "FINISHED" } }
    ])
    expect(trace.timeline.at(-1)!.type).toBe("INVALID_EVENT")
    expect(trace.reconciliation).toMatchObject({
      invalid_events: 1,
      status_reconciled: false,
      tokens_reconciled: false,
      finished_event_total_tokens: null
    })
  })

  it("a run that has not finished has no status to reconcile", async () => {
    const trace = await traceOf({ ...finishedRun("RUNNING"), finished_at: null, expected: null }, [started])
    expect(trace.reconciliation.status_reconciled).toBe(false)
  })
})
