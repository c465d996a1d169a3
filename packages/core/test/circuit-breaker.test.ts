import { Effect, Exit, Fiber, Latch } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { type CircuitTransition, makeCircuitBreaker, nextCircuitState } from "../src/index.js"

const run = <A, E>(program: Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.provide(program, TestClock.layer()))

class Down {
  readonly _tag = "Down"
}
class RowRefused {
  readonly _tag = "RowRefused"
}
const down = Effect.fail(new Down())

describe("circuit breaker", () => {
  it("opens after failureThreshold consecutive failures and then refuses at once", async () => {
    await run(
      Effect.gen(function* () {
        const transitions: CircuitTransition[] = []
        const breaker = yield* makeCircuitBreaker(
          { name: "db", failureThreshold: 3, resetAfterMs: 1000 },
          { onTransition: (t) => Effect.sync(() => void transitions.push(t)) }
        )
        let tried = 0
        const call = breaker.call(
          Effect.suspend(() => {
            tried++
            return down
          })
        )
        for (let i = 0; i < 2; i++) expect((yield* Effect.flip(call))._tag).toBe("Down")
        expect(yield* breaker.state).toBe("CLOSED")
        expect((yield* Effect.flip(call))._tag).toBe("Down")
        expect(yield* breaker.state).toBe("OPEN")
        const refused = yield* Effect.flip(call)
        expect(refused).toMatchObject({ _tag: "CircuitOpen", name: "db", retryAfterMs: 1000 })
        expect(tried).toBe(3)
        expect(yield* breaker.snapshot).toMatchObject({ state: "OPEN", opened: 1, rejected: 1 })
        expect(transitions.map((t) => `${t.from}->${t.to}`)).toEqual(["CLOSED->OPEN"])
      })
    )
  })

  it("a success in between resets the count; errors that isFailure rejects count as success", async () => {
    await run(
      Effect.gen(function* () {
        const breaker = yield* makeCircuitBreaker({ name: "db", failureThreshold: 2 })
        yield* Effect.flip(breaker.call(down))
        yield* breaker.call(Effect.void)
        yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.state).toBe("CLOSED")
        const rowError = breaker.call(
          Effect.fail(new RowRefused()) as Effect.Effect<never, RowRefused | Down>,
          {
            isFailure: (e) => e._tag !== "RowRefused"
          }
        )
        yield* Effect.flip(rowError)
        yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.state).toBe("CLOSED")
        yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.state).toBe("OPEN")
      })
    )
  })

  it("half-open: after resetAfterMs one probe goes through; success closes, failure reopens", async () => {
    await run(
      Effect.gen(function* () {
        const transitions: string[] = []
        const breaker = yield* makeCircuitBreaker(
          { name: "db", failureThreshold: 1, resetAfterMs: 1000 },
          { onTransition: (t) => Effect.sync(() => void transitions.push(`${t.from}->${t.to}`)) }
        )
        yield* Effect.flip(breaker.call(down))
        yield* TestClock.adjust(999)
        expect(yield* breaker.probeDue).toBe(false)
        expect((yield* Effect.flip(breaker.call(Effect.void)))._tag).toBe("CircuitOpen")
        yield* TestClock.adjust(1)
        expect(yield* breaker.probeDue).toBe(true)
        // A failing probe opens it again for another resetAfterMs.
        yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.state).toBe("OPEN")
        yield* TestClock.adjust(1000)
        // While the probe is in flight, every other call is refused.
        const gate = yield* Latch.make(false)
        const probe = yield* Effect.forkChild(breaker.call(gate.await))
        yield* Effect.yieldNow
        expect(yield* breaker.state).toBe("HALF_OPEN")
        expect(yield* Effect.flip(breaker.call(Effect.void))).toMatchObject({
          _tag: "CircuitOpen",
          retryAfterMs: 0
        })
        yield* gate.open
        yield* Fiber.join(probe)
        expect(yield* breaker.state).toBe("CLOSED")
        yield* breaker.call(Effect.void)
        expect(transitions).toEqual([
          "CLOSED->OPEN",
          "OPEN->HALF_OPEN",
          "HALF_OPEN->OPEN",
          "OPEN->HALF_OPEN",
          "HALF_OPEN->CLOSED"
        ])
      })
    )
  })

  it("probe: false callers never probe; an interrupted probe leaves it open", async () => {
    await run(
      Effect.gen(function* () {
        const breaker = yield* makeCircuitBreaker({ name: "db", failureThreshold: 1, resetAfterMs: 10 })
        yield* Effect.flip(breaker.call(down))
        yield* TestClock.adjust(10)
        expect((yield* Effect.flip(breaker.call(Effect.void, { probe: false })))._tag).toBe("CircuitOpen")
        const probe = yield* Effect.forkChild(breaker.call(Effect.never))
        yield* Effect.yieldNow
        expect(yield* breaker.state).toBe("HALF_OPEN")
        yield* Fiber.interrupt(probe)
        expect(yield* breaker.state).toBe("OPEN")
        // A late failure of a call admitted while closed does not reopen or close anything.
        yield* TestClock.adjust(10)
        yield* breaker.call(Effect.void)
        expect(yield* breaker.state).toBe("CLOSED")
      })
    )
  })

  it("openAfterQuietMs: a burst of failures right after a success does not open it; a quiet spell does", async () => {
    await run(
      Effect.gen(function* () {
        const breaker = yield* makeCircuitBreaker({ name: "db", failureThreshold: 2, openAfterQuietMs: 1000 })
        yield* breaker.call(Effect.void)
        yield* TestClock.adjust(500)
        for (let i = 0; i < 5; i++) yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.snapshot).toMatchObject({ state: "CLOSED", consecutiveFailures: 5 })
        yield* TestClock.adjust(500)
        yield* Effect.flip(breaker.call(down))
        expect(yield* breaker.state).toBe("OPEN")
        expect(() => Effect.runSync(makeCircuitBreaker({ name: "x", openAfterQuietMs: -1 }))).toThrow(
          RangeError
        )
      })
    )
  })

  it("a defect counts as a failure", async () => {
    await run(
      Effect.gen(function* () {
        const breaker = yield* makeCircuitBreaker({ name: "db", failureThreshold: 1 })
        const exit = yield* Effect.exit(breaker.call(Effect.die("boom")))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* breaker.state).toBe("OPEN")
      })
    )
  })

  it("pure rules and configuration errors", () => {
    expect(nextCircuitState("CLOSED", "failure", 2, 3)).toBe("CLOSED")
    expect(nextCircuitState("CLOSED", "failure", 3, 3)).toBe("OPEN")
    expect(nextCircuitState("HALF_OPEN", "failure", 1, 3)).toBe("OPEN")
    expect(nextCircuitState("HALF_OPEN", "success", 0, 3)).toBe("CLOSED")
    expect(() => Effect.runSync(makeCircuitBreaker({ name: "x", failureThreshold: 0 }))).toThrow(RangeError)
    expect(() => Effect.runSync(makeCircuitBreaker({ name: "x", resetAfterMs: 1.5 }))).toThrow(RangeError)
  })
})
