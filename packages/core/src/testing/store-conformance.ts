import { Clock, Effect, Exit, type Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { RunId, ToolCallId } from "../ids.js"
import { CanonicalInvocationStore } from "../store.js"
import { errorRecord, projectingRecord, readyRecord, testId } from "./fixtures.js"
import { doublingTtls, JUDGED, judgeAtGrowingTtls, type TtlVerdict } from "./ttl-attempts.js"

export interface StoreConformanceOptions {
  /** Suite title, e.g. `in-memory` or `redis single node`. */
  readonly name: string
  /** A fresh store per test, with `ttlMillis` and `maxRecordBytes` as configured below. */
  readonly layer: () => Layer.Layer<CanonicalInvocationStore, unknown>
  readonly ttlMillis: number
  readonly maxRecordBytes: number
  /**
   * Stores with a short TTL for the three TTL tests on a real clock (a server): the tests
   * measure each command's start and end and judge by those bounds. An attempt that finished
   * too late to judge is retried with a doubled TTL, `attempts` times in all (default 5).
   * Without it the TTL tests run once on `layer` with `ttlMillis` (meant for `TestClock`).
   */
  readonly expiry?: {
    readonly layer: (ttlMillis: number) => Layer.Layer<CanonicalInvocationStore, unknown>
    /** The first TTL tried, e.g. 250 ms. */
    readonly ttlMillis: number
    readonly attempts?: number
  }
  /** Lets time pass for the store: `TestClock.adjust` in memory, a real sleep for a server. */
  readonly advance: (millis: number) => Effect.Effect<void>
  /** Wraps each test program, e.g. to provide `TestClock`. */
  readonly wrap?: <A, E>(
    program: Effect.Effect<A, E, CanonicalInvocationStore>
  ) => Effect.Effect<A, E, CanonicalInvocationStore>
  /** Skip the whole suite (e.g. server missing outside CI). */
  readonly skip?: boolean
  readonly timeoutMs?: number
}

/**
 * Redis keeps a key alive through its expiry millisecond; reads scheduled this much later
 * must find it gone.
 */
const EXPIRY_MARGIN_MS = 2

/** Runs `effect` with its start and end on the current `Clock`. */
const timedRun = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    const value = yield* effect
    const end = yield* Clock.currentTimeMillis
    return { value, start, end }
  })

/**
 * The behaviour every `CanonicalInvocationStore` backend must have. Call it from a vitest
 * file of the backend's package with that backend's layer.
 */
export const canonicalStoreConformance = (options: StoreConformanceOptions): void => {
  const runOn = <A, E>(
    layer: Layer.Layer<CanonicalInvocationStore, unknown>,
    program: Effect.Effect<A, E, CanonicalInvocationStore>
  ) => {
    const wrapped = options.wrap ? options.wrap(program) : program
    return Effect.runPromise(Effect.provide(wrapped, layer) as Effect.Effect<A, unknown>)
  }
  const timeout = options.timeoutMs ?? Math.max(10_000, options.ttlMillis * 4)
  const t = (name: string, program: () => Effect.Effect<void, unknown, CanonicalInvocationStore>) =>
    it(name, () => runOn(options.layer(), Effect.suspend(program)), timeout)

  const { expiry } = options
  const ttls = expiry ? doublingTtls(expiry.ttlMillis, expiry.attempts ?? 5) : [options.ttlMillis]
  const ttlTimeout = options.timeoutMs ?? Math.max(10_000, 4 * ttls.reduce((sum, ttl) => sum + ttl, 0))
  const ttlTest = (
    name: string,
    program: (ttlMillis: number) => Effect.Effect<TtlVerdict, unknown, CanonicalInvocationStore>
  ) =>
    it(
      name,
      () =>
        judgeAtGrowingTtls(ttls, (ttl) =>
          runOn(
            expiry ? expiry.layer(ttl) : options.layer(),
            Effect.suspend(() => program(ttl))
          )
        ),
      ttlTimeout
    )
  /** Lets time pass until the `Clock` reads at least `target`. */
  const waitUntil = (target: number): Effect.Effect<void> =>
    Effect.gen(function* () {
      for (let now = yield* Clock.currentTimeMillis; now < target; now = yield* Clock.currentTimeMillis) {
        yield* options.advance(target - now)
      }
    })

  describe.skipIf(options.skip === true)(`CanonicalInvocationStore conformance: ${options.name}`, () => {
    t("create then get returns the same record", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        const got = yield* store.get(record.runId, record.toolCallId)
        expect(Option.getOrUndefined(got)).toEqual(record)
      })
    )

    t("get of an absent record is None", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const got = yield* store.get(testId("run") as RunId, testId("call") as ToolCallId)
        expect(Option.isNone(got)).toBe(true)
      })
    )

    t("create is create-if-absent: a second create fails and keeps the first", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        const again = yield* Effect.exit(store.create({ ...record, request: { query: "other" } }))
        expect(Exit.isFailure(again)).toBe(true)
        const error = yield* Effect.flip(store.create(record))
        expect(error._tag).toBe("InvocationAlreadyExists")
        const got = yield* store.get(record.runId, record.toolCallId)
        expect(Option.getOrUndefined(got)?.request).toEqual(record.request)
      })
    )

    t("concurrent creates of one key: exactly one succeeds", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        const exits = yield* Effect.all(
          Array.from({ length: 8 }, () => Effect.exit(store.create(record))),
          { concurrency: "unbounded" }
        )
        expect(exits.filter(Exit.isSuccess).length).toBe(1)
      })
    )

    t("PROJECTING -> READY keeps identity and stores raw and agent result", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        const ready = readyRecord(record)
        yield* store.transition(ready)
        const got = Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))
        expect(got).toEqual(ready)
        expect(got.status).toBe("READY")
      })
    )

    t("PROJECTING -> ERROR", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        yield* store.transition(errorRecord(record))
        const got = Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))
        expect(got.status).toBe("ERROR")
        expect(got.evidenceStatus).toBe("ERROR")
      })
    )

    t("READY -> ERROR and ERROR -> READY are illegal and change nothing", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const a = projectingRecord()
        const b = projectingRecord()
        yield* store.create(a)
        yield* store.create(b)
        yield* store.transition(readyRecord(a))
        yield* store.transition(errorRecord(b))
        const e1 = yield* Effect.flip(store.transition(errorRecord(a)))
        const e2 = yield* Effect.flip(store.transition(readyRecord(b)))
        expect(e1._tag).toBe("IllegalTransition")
        expect(e2._tag).toBe("IllegalTransition")
        if (e1._tag === "IllegalTransition") expect([e1.from, e1.to]).toEqual(["READY", "ERROR"])
        expect(Option.getOrThrow(yield* store.get(a.runId, a.toolCallId)).status).toBe("READY")
        expect(Option.getOrThrow(yield* store.get(b.runId, b.toolCallId)).status).toBe("ERROR")
      })
    )

    t("transition of an absent record is InvocationNotFound", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const error = yield* Effect.flip(store.transition(readyRecord(projectingRecord())))
        expect(error._tag).toBe("InvocationNotFound")
      })
    )

    t("two concurrent transitions of one record: exactly one wins", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        const exits = yield* Effect.all(
          [
            Effect.exit(store.transition(readyRecord(record))),
            Effect.exit(store.transition(errorRecord(record)))
          ],
          {
            concurrency: "unbounded"
          }
        )
        expect(exits.filter(Exit.isSuccess).length).toBe(1)
        const got = Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))
        const winner = Exit.isSuccess(exits[0]!) ? "READY" : "ERROR"
        expect(got.status).toBe(winner)
      })
    )

    t("a record over the size limit is refused on create, nothing is stored", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord({ request: { blob: "x".repeat(options.maxRecordBytes) } })
        const error = yield* Effect.flip(store.create(record))
        expect(error._tag).toBe("RecordTooLarge")
        expect(Option.isNone(yield* store.get(record.runId, record.toolCallId))).toBe(true)
      })
    )

    t("a transition over the size limit is refused, the record stays PROJECTING", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        const big = { ...readyRecord(record), rawResponse: { blob: "y".repeat(options.maxRecordBytes) } }
        const error = yield* Effect.flip(store.transition(big))
        expect(error._tag).toBe("RecordTooLarge")
        expect(Option.getOrThrow(yield* store.get(record.runId, record.toolCallId)).status).toBe("PROJECTING")
      })
    )

    t("same toolCallId in two runs: two independent records", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const toolCallId = testId("call")
        const a = projectingRecord({ toolCallId })
        const b = projectingRecord({ toolCallId })
        yield* store.create(a)
        yield* store.create(b)
        yield* store.transition(readyRecord(a))
        expect(Option.getOrThrow(yield* store.get(a.runId, a.toolCallId)).status).toBe("READY")
        expect(Option.getOrThrow(yield* store.get(b.runId, b.toolCallId)).status).toBe("PROJECTING")
      })
    )

    ttlTest("a record expires after its TTL; afterwards create succeeds again", (ttl) =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        const created = yield* timedRun(store.create(record))
        const read = yield* timedRun(store.get(record.runId, record.toolCallId))
        // Alive before its TTL: only judged when the read finished before the earliest expiry.
        if (read.end >= created.start + ttl) return "the first read finished after the TTL"
        expect(Option.isSome(read.value)).toBe(true)
        yield* waitUntil(created.end + ttl + EXPIRY_MARGIN_MS)
        expect(Option.isNone(yield* store.get(record.runId, record.toolCallId))).toBe(true)
        yield* store.create(record)
        return JUDGED
      })
    )

    ttlTest("reads never renew the TTL", (ttl) =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        const created = yield* timedRun(store.create(record))
        yield* waitUntil(created.start + Math.ceil(ttl / 2))
        const read = yield* timedRun(store.get(record.runId, record.toolCallId))
        if (read.end >= created.start + ttl) return "the read finished after the TTL"
        expect(Option.isSome(read.value)).toBe(true)
        // Past the first TTL the record is gone, whatever the read did.
        yield* waitUntil(created.end + ttl + EXPIRY_MARGIN_MS)
        const late = yield* timedRun(store.get(record.runId, record.toolCallId))
        expect(Option.isNone(late.value)).toBe(true)
        // A renewed record would still have been there: the check could fail.
        return late.end < read.start + ttl ? JUDGED : "the last read finished after a renewed TTL"
      })
    )

    ttlTest("a transition keeps the remaining TTL", (ttl) =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        const created = yield* timedRun(store.create(record))
        yield* waitUntil(created.start + Math.ceil(ttl / 2))
        const moved = yield* timedRun(Effect.exit(store.transition(readyRecord(record))))
        if (moved.end >= created.start + ttl) return "the transition finished after the TTL"
        expect(Exit.isSuccess(moved.value)).toBe(true)
        const read = yield* timedRun(store.get(record.runId, record.toolCallId))
        if (read.end < created.start + ttl) {
          expect(Option.getOrUndefined(read.value)?.status).toBe("READY")
        }
        yield* waitUntil(created.end + ttl + EXPIRY_MARGIN_MS)
        const late = yield* timedRun(store.get(record.runId, record.toolCallId))
        expect(Option.isNone(late.value)).toBe(true)
        return late.end < moved.start + ttl ? JUDGED : "the last read finished after a reset TTL"
      })
    )
  })
}
