import { Effect, Layer } from "effect"
import { AuditSink, type AuditSinkShape } from "../audit.js"
import { AuditWriteError } from "../errors.js"

/** One `AuditSink` operation: `startRun`, `appendTimelineEvent`, ... */
export type AuditWriteKind = keyof AuditSinkShape

/** One write an `AuditSink` was given: which operation, and its record. */
export type AuditWrite = {
  readonly [K in AuditWriteKind]: { readonly kind: K; readonly record: Parameters<AuditSinkShape[K]>[0] }
}[AuditWriteKind]

/** The record type of one operation (`AuditRecordOf<"recordAgentStep">` is `AgentStepRecord`). */
export type AuditRecordOf<K extends AuditWriteKind> = Parameters<AuditSinkShape[K]>[0]

/** The Durable Audit record each operation writes: the `record` of the `AuditWriteError` it fails with. */
const RECORD_NAMES: Record<AuditWriteKind, string> = {
  startRun: "diagnosis_run",
  finishRun: "diagnosis_run",
  appendTimelineEvent: "run_timeline_event",
  recordAgentStep: "agent_step",
  recordToolInvocation: "tool_invocation",
  recordTokenUsage: "model_token_usage"
}

/** Options of a `RecordingAuditSink`. */
export interface RecordingAuditSinkOptions {
  /** A sink every write that is not failed goes on to (a real backend under test); default none. */
  readonly forwardTo?: AuditSinkShape
  /**
   * Fault injection: a write for which this returns true fails with `AuditWriteError` (cause
   * `"injected"`) and reaches neither `writes` nor `forwardTo`. `nth` is the 1-based count of
   * writes of that kind so far, this one included.
   */
  readonly fail?: (write: AuditWrite, nth: number) => boolean
}

/**
 * An `AuditSink` for tests that keeps every write, in order (`writes`), and can fail chosen
 * writes or pass the others on to a real sink. Audit writes are fail-open, so a test that
 * loses writes on purpose proves the run goes on.
 *
 * ```ts
 * const audit = new RecordingAuditSink()
 * yield* program.pipe(Effect.provide(audit.layer))
 * expect(audit.eventTypes()).toEqual(["RUN_STARTED", "TOOL_INVOCATION"])
 * ```
 */
export class RecordingAuditSink implements AuditSinkShape {
  /** Every write that succeeded, in the order it completed. */
  readonly writes: AuditWrite[] = []
  /** Writes that failed (injected by `fail`, or failed by `forwardTo`), in order. */
  readonly failed: AuditWrite[] = []
  readonly #counts = new Map<AuditWriteKind, number>()
  readonly #options: RecordingAuditSinkOptions

  constructor(options: RecordingAuditSinkOptions = {}) {
    this.#options = options
  }

  readonly startRun = this.#operation("startRun")
  readonly finishRun = this.#operation("finishRun")
  readonly appendTimelineEvent = this.#operation("appendTimelineEvent")
  readonly recordAgentStep = this.#operation("recordAgentStep")
  readonly recordToolInvocation = this.#operation("recordToolInvocation")
  readonly recordTokenUsage = this.#operation("recordTokenUsage")

  /** Provides this sink as the `AuditSink` service. */
  get layer(): Layer.Layer<AuditSink> {
    return Layer.succeed(AuditSink, this)
  }

  /** The records of one operation that succeeded, in order. */
  of<K extends AuditWriteKind>(kind: K): Array<AuditRecordOf<K>> {
    return this.writes.filter((w) => w.kind === kind).map((w) => w.record as AuditRecordOf<K>)
  }

  get started() {
    return this.of("startRun")
  }
  get finished() {
    return this.of("finishRun")
  }
  get events() {
    return this.of("appendTimelineEvent")
  }
  get steps() {
    return this.of("recordAgentStep")
  }
  get invocations() {
    return this.of("recordToolInvocation")
  }
  get tokens() {
    return this.of("recordTokenUsage")
  }

  /** Types of the recorded Timeline events, in order (of one run when `runId` is given). */
  eventTypes(runId?: string): Array<AuditRecordOf<"appendTimelineEvent">["type"]> {
    return this.events.filter((e) => runId === undefined || e.runId === runId).map((e) => e.type)
  }

  #operation<K extends AuditWriteKind>(kind: K) {
    return (record: AuditRecordOf<K>): Effect.Effect<void, AuditWriteError> =>
      Effect.suspend(() => {
        const write = { kind, record } as AuditWrite
        const nth = (this.#counts.get(kind) ?? 0) + 1
        this.#counts.set(kind, nth)
        if (this.#options.fail?.(write, nth) === true) {
          this.failed.push(write)
          return Effect.fail(new AuditWriteError({ record: RECORD_NAMES[kind], cause: "injected" }))
        }
        const forward = this.#options.forwardTo
          ? (this.#options.forwardTo[kind] as (r: AuditRecordOf<K>) => Effect.Effect<void, AuditWriteError>)(
              record
            )
          : Effect.void
        return forward.pipe(
          Effect.tapError(() => Effect.sync(() => this.failed.push(write))),
          Effect.tap(() => Effect.sync(() => this.writes.push(write)))
        )
      })
  }
}
