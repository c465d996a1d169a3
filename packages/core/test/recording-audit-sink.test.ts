import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { AuditSink, AuditWriteError, makeRun } from "../src/index.js"
import { RecordingAuditSink } from "../src/testing/index.js"
import { runOptions } from "./helpers.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** One run that starts, records one token usage and finishes. */
const smallRun = Effect.gen(function* () {
  const r = yield* makeRun(runOptions())
  yield* r.recorder.tokenUsage({
    component: "router",
    componentIndex: 1,
    model: "m",
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }
  })
  return yield* r.finish({ status: "FINISHED" })
})

describe("RecordingAuditSink", () => {
  it("keeps every write in order, and per kind", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink()
        yield* smallRun.pipe(Effect.provide(audit.layer))
        expect(audit.writes.map((w) => w.kind)).toEqual([
          "startRun",
          "appendTimelineEvent",
          "recordTokenUsage",
          "appendTimelineEvent",
          "appendTimelineEvent",
          "finishRun"
        ])
        expect(audit.eventTypes()).toEqual(["RUN_STARTED", "MODEL_TOKEN_USAGE", "RUN_FINISHED"])
        expect(audit.eventTypes("another-run")).toEqual([])
        expect(audit.started.map((s) => s.query)).toEqual([runOptions().query])
        expect(audit.finished.map((f) => f.status)).toEqual(["FINISHED"])
        expect(audit.tokens.map((t) => t.totalTokens)).toEqual([2])
        expect([audit.steps, audit.invocations, audit.failed]).toEqual([[], [], []])
      })
    ))

  it("fails chosen writes with AuditWriteError (the n-th of a kind) and keeps them out of `writes`", () =>
    run(
      Effect.gen(function* () {
        const audit = new RecordingAuditSink({
          fail: (write, nth) => write.kind === "appendTimelineEvent" && nth === 2
        })
        const summary = yield* smallRun.pipe(Effect.provide(audit.layer))
        // Fail-open: the run finished and counted the lost write.
        expect(summary.failedWrites).toBe(1)
        expect(audit.eventTypes()).toEqual(["RUN_STARTED", "RUN_FINISHED"])
        expect(audit.failed.map((w) => w.kind)).toEqual(["appendTimelineEvent"])
        const exit = yield* Effect.exit(
          new RecordingAuditSink({ fail: () => true }).startRun(audit.started[0]!)
        )
        expect(exit).toEqual(Exit.fail(new AuditWriteError({ record: "diagnosis_run", cause: "injected" })))
      })
    ))

  it("passes writes on to `forwardTo`, and records its failures as failed", () =>
    run(
      Effect.gen(function* () {
        const inner = new RecordingAuditSink()
        const audit = new RecordingAuditSink({ forwardTo: inner })
        yield* smallRun.pipe(Effect.provide(audit.layer))
        expect(inner.writes).toEqual(audit.writes)

        const broken = new RecordingAuditSink({ forwardTo: AuditSink.of(brokenSink) })
        const summary = yield* smallRun.pipe(Effect.provide(broken.layer))
        expect(broken.writes).toEqual([])
        expect(broken.failed).toHaveLength(6)
        expect(summary.failedWrites).toBe(6)
      })
    ))
})

const broke = Effect.fail(new AuditWriteError({ record: "any" }))
const brokenSink = {
  startRun: () => broke,
  finishRun: () => broke,
  appendTimelineEvent: () => broke,
  recordAgentStep: () => broke,
  recordToolInvocation: () => broke,
  recordTokenUsage: () => broke
}
