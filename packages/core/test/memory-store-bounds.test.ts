import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { InMemoryCanonicalStore, makeInMemoryCanonicalStore } from "../src/index.js"
import { projectingRecord, readyRecord } from "../src/testing/fixtures.js"

const run = <A, E>(program: Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.provide(program, TestClock.layer()))

describe("in-memory canonical store: sweep and bounds", () => {
  it("drops expired records that are never read again (swept on writes)", async () => {
    await run(
      Effect.gen(function* () {
        const store = yield* makeInMemoryCanonicalStore({ ttlMillis: 1000 })
        for (let i = 0; i < 50; i++) yield* store.create(projectingRecord())
        expect((yield* store.stats).entries).toBe(50)
        yield* TestClock.adjust(1001)
        yield* store.create(projectingRecord())
        const stats = yield* store.stats
        expect(stats.entries).toBe(1)
        expect(stats.bytes).toBeGreaterThan(0)
        expect(stats.bytes).toBeLessThan(1000)
      })
    )
  })

  it("an idle store is swept by its scoped timer", async () => {
    await run(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* InMemoryCanonicalStore.scoped({ ttlMillis: 1000, sweepIntervalMs: 500 })
          for (let i = 0; i < 10; i++) yield* store.create(projectingRecord())
          yield* TestClock.adjust(999)
          expect((yield* store.stats).entries).toBe(10)
          yield* TestClock.adjust(600)
          expect(yield* store.stats).toEqual({ entries: 0, bytes: 0 })
        })
      )
    )
  })

  it("full by entries: a typed StoreError FULL, and room again once records expire", async () => {
    await run(
      Effect.gen(function* () {
        const store = yield* makeInMemoryCanonicalStore({ ttlMillis: 1000, maxEntries: 3 })
        for (let i = 0; i < 3; i++) yield* store.create(projectingRecord())
        const full = yield* Effect.exit(store.create(projectingRecord()))
        expect(Exit.isFailure(full)).toBe(true)
        const error = yield* Effect.flip(store.create(projectingRecord()))
        expect(error).toMatchObject({ _tag: "StoreError", operation: "create", reason: "FULL" })
        yield* TestClock.adjust(1000)
        yield* store.create(projectingRecord())
        expect((yield* store.stats).entries).toBe(1)
      })
    )
  })

  it("full by bytes: creation and a growing transition fail FULL; nothing half-written", async () => {
    await run(
      Effect.gen(function* () {
        const one = JSON.stringify(projectingRecord()).length
        const store = yield* makeInMemoryCanonicalStore({ ttlMillis: 10_000, maxBytes: one * 2 + 10 })
        const a = projectingRecord()
        yield* store.create(a)
        yield* store.create(projectingRecord())
        const error = yield* Effect.flip(store.create(projectingRecord()))
        expect(error).toMatchObject({ _tag: "StoreError", reason: "FULL" })
        const before = yield* store.stats
        const grow = yield* Effect.flip(store.transition(readyRecord(a)))
        expect(grow).toMatchObject({ _tag: "StoreError", operation: "transition", reason: "FULL" })
        expect(yield* store.stats).toEqual(before)
        const stored = yield* store.get(a.runId, a.toolCallId)
        expect(stored._tag === "Some" && stored.value.status).toBe("PROJECTING")
      })
    )
  })

  it("bytes are given back on expiry and when a record shrinks", async () => {
    await run(
      Effect.gen(function* () {
        const store = yield* makeInMemoryCanonicalStore({ ttlMillis: 1000 })
        const a = projectingRecord()
        yield* store.create(a)
        const created = (yield* store.stats).bytes
        yield* store.transition(readyRecord(a))
        const grown = (yield* store.stats).bytes
        expect(grown).toBeGreaterThan(created)
        yield* TestClock.adjust(1000)
        expect(yield* store.sweep).toBe(1)
        expect(yield* store.stats).toEqual({ entries: 0, bytes: 0 })
      })
    )
  })

  it("rejects non-positive limits", () => {
    expect(() => InMemoryCanonicalStore.layer({ maxEntries: 0 })).toThrow(RangeError)
    expect(() => InMemoryCanonicalStore.layer({ maxBytes: -1 })).toThrow(RangeError)
    expect(() => InMemoryCanonicalStore.layer({ sweepIntervalMs: 0 })).toThrow(RangeError)
  })
})
