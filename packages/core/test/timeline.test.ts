import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CallerTimelineEvent,
  hasEventType,
  InvalidTimelineEvent,
  makeRun,
  parseTimelinePayload,
  releaseDecisionEvent,
  routingAttemptEvent,
  routingDecisionEvent,
  TIMELINE_EVENT_TYPES,
  TIMELINE_PAYLOAD_SCHEMAS,
  type TimelineEvent,
  type TimelineEventType
} from "../src/index.js"
import { RecordingAuditSink } from "../src/testing/audit-sink.js"
import { runOptions } from "./helpers.js"

/** A valid payload of every type, and per type one payload its schema must refuse. */
const VALID: { readonly [T in TimelineEventType]: unknown } = {
  RUN_STARTED: { query_chars: 12 },
  MODEL_TOKEN_USAGE: {
    ledger_seq: 1,
    component: "router",
    component_index: 1,
    model: "m",
    usage_available: false,
    total_tokens: null
  },
  ROUTING_ATTEMPT: { attempt: 1, outcome: "MODEL_ERROR", error_reason: "TIMEOUT" },
  ROUTING_DECISION: { intent: "diagnosis", source: "model" },
  AGENT_MODEL_STEP: {
    step_id: "step-1",
    step_index: 1,
    outcome: "final",
    tool_call_count: 0,
    usage_available: true
  },
  TOOL_INVOCATION: {
    tool_call_id: "call-1",
    tool: "query_logs",
    step_id: "step-1",
    status: "READY",
    evidence_status: "NO_EVIDENCE",
    error_code: null,
    latency_ms: 3,
    truncated: false
  },
  STOP_REQUIRED: { reason: "NO_GAIN", step_id: "step-2", checked_scopes: 3 },
  EVIDENCE_GUARD_INITIAL: { passed: true, store_available: true, claims: 1, failures: [] },
  SEMANTIC_GUARD_ATTEMPT: { attempt: 1, outcome: "JUDGED", model: "m" },
  SEMANTIC_GUARD_DECISION: { passed: true, verdict: "SUPPORTED", verdicts: [], summary_verdict: null },
  RELEASE_DECISION: { decision: "NOT_A_DIAGNOSIS", release_result: "NOT_A_DIAGNOSIS" },
  RUN_FINISHED: { status: "FINISHED", run_total_tokens: null, usage_complete: true }
}
const INVALID: { readonly [T in TimelineEventType]: readonly [unknown, string] } = {
  RUN_STARTED: [{ query_chars: -1 }, "query_chars"],
  MODEL_TOKEN_USAGE: [{ ...(VALID.MODEL_TOKEN_USAGE as object), component: "judge" }, "component"],
  ROUTING_ATTEMPT: [{ attempt: 0, outcome: "PARSED" }, "attempt"],
  ROUTING_DECISION: [{ intent: "diagnosis", source: "guess" }, "source"],
  AGENT_MODEL_STEP: [{ ...(VALID.AGENT_MODEL_STEP as object), outcome: "done" }, "outcome"],
  TOOL_INVOCATION: [{ ...(VALID.TOOL_INVOCATION as object), error_code: "OOPS" }, "error_code"],
  STOP_REQUIRED: [{ reason: "NO_GAIN", step_id: "step-2" }, "checked_scopes"],
  EVIDENCE_GUARD_INITIAL: [{ passed: "yes", store_available: true, claims: 1, failures: [] }, "passed"],
  SEMANTIC_GUARD_ATTEMPT: [{ attempt: 1, outcome: "JUDGED" }, "model"],
  SEMANTIC_GUARD_DECISION: [
    { passed: true, verdict: "SUPPORTED", verdicts: [{ claim_index: 0 }], summary_verdict: null },
    "verdicts.0.verdict"
  ],
  RELEASE_DECISION: [{ decision: "PUBLISH_REPORT" }, "release_result"],
  RUN_FINISHED: [{ status: "DONE", run_total_tokens: null, usage_complete: true }, "status"]
}

const timelineOf = (audit: RecordingAuditSink): ReadonlyArray<TimelineEvent> => audit.events

const defectOf = (exit: Exit.Exit<unknown, unknown>) => {
  if (!Exit.isFailure(exit)) throw new Error("expected a defect")
  return Cause.squash(exit.cause)
}

describe("timeline event schemas", () => {
  it("have one schema per event type", () => {
    expect(Object.keys(TIMELINE_PAYLOAD_SCHEMAS)).toEqual([...TIMELINE_EVENT_TYPES])
  })

  it.each(TIMELINE_EVENT_TYPES)("%s: accepts its payload and rejects a malformed one", (type) => {
    const ok = parseTimelinePayload(type, VALID[type])
    expect(ok.ok && ok.event.type).toBe(type)
    const [payload, path] = INVALID[type]
    const bad = parseTimelinePayload(type, payload)
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(bad.error).toBeInstanceOf(InvalidTimelineEvent)
      expect(bad.error.type).toBe(type)
      expect(bad.error.issue.startsWith(`${path}:`)).toBe(true)
    }
  })

  it("rejects an unknown type, a non-object payload and NaN counts", () => {
    const unknown = parseTimelinePayload("RUN_PAUSED", {})
    expect(!unknown.ok && unknown.error.issue).toBe("unknown event type")
    expect(parseTimelinePayload("toString", {}).ok).toBe(false)
    expect(parseTimelinePayload("RUN_STARTED", "text").ok).toBe(false)
    expect(parseTimelinePayload("RUN_STARTED", { query_chars: Number.NaN }).ok).toBe(false)
  })

  it("hasEventType narrows by type", () => {
    const event = routingDecisionEvent({ intent: "diagnosis", source: "fallback" })
    const entries: ReadonlyArray<{ type: string; payload: unknown }> = [event]
    const decision = entries.find((e) => hasEventType(e, "ROUTING_DECISION"))
    expect(hasEventType(decision, "ROUTING_DECISION") && decision.payload.source).toBe("fallback")
    expect(hasEventType(event, "ROUTING_ATTEMPT")).toBe(false)
    expect(hasEventType(undefined, "ROUTING_ATTEMPT")).toBe(false)
  })
})

describe("RunRecorder timeline", () => {
  const run = <A>(body: (r: Effect.Success<ReturnType<typeof makeRun>>) => Effect.Effect<A, unknown>) =>
    Effect.gen(function* () {
      const log = new RecordingAuditSink()
      const exit = yield* Effect.exit(
        Effect.flatMap(makeRun(runOptions()), body).pipe(Effect.provide(log.layer))
      )
      return { exit, log }
    })

  it("owns run id, session id, seq and time; writes RUN_STARTED and RUN_FINISHED itself", async () => {
    const { exit, log } = await Effect.runPromise(
      run((r) =>
        Effect.gen(function* () {
          yield* r.recorder.event(routingAttemptEvent({ attempt: 1, outcome: "PARSED", model: "m" }))
          return yield* r.finish({ status: "FINISHED", releaseResult: "NOT_A_DIAGNOSIS", intent: "other" })
        })
      )
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    const events = timelineOf(log)
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, "RUN_STARTED"],
      [2, "ROUTING_ATTEMPT"],
      [3, "RUN_FINISHED"]
    ])
    expect(new Set(events.map((e) => `${e.runId}/${e.sessionId}`)).size).toBe(1)
    expect(events[2]!.payload).toEqual({
      status: "FINISHED",
      run_total_tokens: 0,
      usage_complete: true,
      release_result: "NOT_A_DIAGNOSIS",
      intent: "other"
    })
  })

  it("a caller cannot forge RUN_FINISHED's status through finish: event and run record agree", async () => {
    const { exit, log } = await Effect.runPromise(
      run((r) =>
        // The old API took a free payload spread over the recorder's fields; it is ignored now.
        r.finish({ status: "FINISHED", payload: { status: "CANCELLED", run_total_tokens: 999 } } as never)
      )
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    const finished = timelineOf(log).at(-1)!
    const record = log.finished[0]!
    expect(finished.payload).toMatchObject({ status: "FINISHED", run_total_tokens: 0 })
    expect(record.status).toBe("FINISHED")
  })

  it("a caller cannot write a recorder-owned event: a defect, nothing written, no seq taken", async () => {
    for (const type of ["RUN_STARTED", "MODEL_TOKEN_USAGE", "RUN_FINISHED"] as const) {
      const { exit, log } = await Effect.runPromise(
        run((r) => r.recorder.event({ type, payload: VALID[type] } as unknown as CallerTimelineEvent))
      )
      const defect = defectOf(exit)
      expect(defect).toBeInstanceOf(InvalidTimelineEvent)
      expect((defect as InvalidTimelineEvent).type).toBe(type)
      expect(timelineOf(log).map((e) => e.type)).toEqual(["RUN_STARTED"])
    }
  })

  it("a malformed event is a defect (InvalidTimelineEvent) and is not written", async () => {
    const { exit, log } = await Effect.runPromise(
      run((r) =>
        Effect.gen(function* () {
          yield* r.recorder.event(
            releaseDecisionEvent({ decision: "PUBLISH_REPORT", release_result: "X", missing: -2 })
          )
        })
      )
    )
    const defect = defectOf(exit) as InvalidTimelineEvent
    expect(defect._tag).toBe("InvalidTimelineEvent")
    expect(defect.issue.startsWith("missing:")).toBe(true)
    expect(timelineOf(log)).toHaveLength(1)
  })
})
