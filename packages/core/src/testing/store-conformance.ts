import { Effect, Exit, type Layer, Option } from "effect"
import { describe, expect, it } from "vitest"
import type { RunId, ToolCallId } from "../ids.js"
import { CanonicalInvocationStore } from "../store.js"
import { errorRecord, projectingRecord, readyRecord, testId } from "./fixtures.js"

export interface StoreConformanceOptions {
  /** Suite title, e.g. `in-memory` or `redis single node`. */
  readonly name: string
  /** A fresh store per test, with `ttlMillis` and `maxRecordBytes` as configured below. */
  readonly layer: () => Layer.Layer<CanonicalInvocationStore, unknown>
  readonly ttlMillis: number
  readonly maxRecordBytes: number
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
 * The behaviour every `CanonicalInvocationStore` backend must have. Call it from a vitest
 * file of the backend's package with that backend's layer.
 */
export const canonicalStoreConformance = (options: StoreConformanceOptions): void => {
  const run = <A, E>(program: Effect.Effect<A, E, CanonicalInvocationStore>) => {
    const wrapped = options.wrap ? options.wrap(program) : program
    return Effect.runPromise(Effect.provide(wrapped, options.layer()) as Effect.Effect<A, unknown>)
  }
  const ttl = options.ttlMillis
  const timeout = options.timeoutMs ?? Math.max(10_000, ttl * 4)
  const t = (name: string, program: () => Effect.Effect<void, unknown, CanonicalInvocationStore>) =>
    it(name, () => run(Effect.suspend(program)), timeout)

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

    t("a record expires after its TTL; afterwards create succeeds again", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        yield* options.advance(ttl + Math.ceil(ttl * 0.2))
        expect(Option.isNone(yield* store.get(record.runId, record.toolCallId))).toBe(true)
        yield* store.create(record)
      })
    )

    t("reads never renew the TTL", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        yield* options.advance(Math.ceil(ttl * 0.6))
        expect(Option.isSome(yield* store.get(record.runId, record.toolCallId))).toBe(true)
        yield* options.advance(Math.ceil(ttl * 0.6))
        expect(Option.isNone(yield* store.get(record.runId, record.toolCallId))).toBe(true)
      })
    )

    t("a transition keeps the remaining TTL", () =>
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const record = projectingRecord()
        yield* store.create(record)
        yield* options.advance(Math.ceil(ttl * 0.6))
        yield* store.transition(readyRecord(record))
        yield* options.advance(Math.ceil(ttl * 0.6))
        expect(Option.isNone(yield* store.get(record.runId, record.toolCallId))).toBe(true)
      })
    )
  })
}
