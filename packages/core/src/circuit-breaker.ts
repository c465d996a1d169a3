import { Cause, Clock, Data, Effect } from "effect"

/**
 * `CLOSED`: calls go through. `OPEN`: calls fail at once with `CircuitOpen`. `HALF_OPEN`: one
 * probe call is in flight; its success closes the breaker, its failure opens it again.
 */
export type CircuitState = "CLOSED" | "OPEN" | "HALF_OPEN"

/** Configuration of a `CircuitBreaker`. */
export interface CircuitBreakerConfig {
  /** Names the breaker in errors, logs and metrics (e.g. `audit-mysql`). */
  readonly name: string
  /** Consecutive failures that open a closed breaker (default 3). */
  readonly failureThreshold?: number
  /** How long an open breaker refuses calls before it lets a probe through (default 1000 ms). */
  readonly resetAfterMs?: number
  /**
   * Open only when no call succeeded for at least this long, too (default 0: failures alone).
   * A brief stall makes every call in flight fail at once; this keeps such a burst of
   * failures from opening the breaker while the dependency still answers.
   */
  readonly openAfterQuietMs?: number
}

/** Defaults for the optional fields of `CircuitBreakerConfig`. */
export const defaultCircuitBreakerConfig = {
  failureThreshold: 3,
  resetAfterMs: 1000,
  openAfterQuietMs: 0
} as const

/** The breaker refused the call without trying it: the dependency failed recently. */
export class CircuitOpen extends Data.TaggedError("CircuitOpen")<{
  readonly name: string
  /** When a probe may be tried next (0 while a probe is in flight). */
  readonly retryAfterMs: number
}> {}

/** One state change of a breaker, passed to `CircuitBreakerHooks.onTransition`. */
export interface CircuitTransition {
  readonly name: string
  readonly from: CircuitState
  readonly to: CircuitState
  readonly at: number
  /** Consecutive failures when the transition happened. */
  readonly consecutiveFailures: number
}

/** Point-in-time view of a breaker's state and counters (for health checks and metrics). */
export interface CircuitSnapshot {
  readonly name: string
  readonly state: CircuitState
  readonly consecutiveFailures: number
  /** Times the breaker opened since it was made. */
  readonly opened: number
  /** Calls refused with `CircuitOpen` since it was made. */
  readonly rejected: number
}

/** Options of one `CircuitBreaker.call`. */
export interface CallOptions<E> {
  /** Whether an error means the dependency is unhealthy (default: every error). Others count as success. */
  readonly isFailure?: (error: E) => boolean
  /**
   * May this call be the half-open probe (default true)? Callers on a latency-sensitive path
   * pass false and leave probing to a background check (`probe`), so none of them waits on a
   * dependency that is probably still down.
   */
  readonly probe?: boolean
}

/** Guards calls to one dependency: opens after consecutive failures and fails fast with `CircuitOpen` while open. */
export interface CircuitBreaker {
  readonly name: string
  /** Runs the effect through the breaker; fails with `CircuitOpen` without running it when the breaker is open. */
  readonly call: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options?: CallOptions<E>
  ) => Effect.Effect<A, E | CircuitOpen, R>
  readonly state: Effect.Effect<CircuitState>
  readonly snapshot: Effect.Effect<CircuitSnapshot>
  /** True when an open breaker's reset time has passed (a background probe is due). */
  readonly probeDue: Effect.Effect<boolean>
}

/** Callbacks a `CircuitBreaker` runs on its state changes. */
export interface CircuitBreakerHooks {
  /** Runs after every state change, in the calling fiber (log it, export it, repair after it). */
  readonly onTransition?: (transition: CircuitTransition) => Effect.Effect<void>
}

/** The pure transition rules (exported for property tests and for other breakers). */
export const nextCircuitState = (
  state: CircuitState,
  event: "success" | "failure",
  consecutiveFailures: number,
  failureThreshold: number
): CircuitState => {
  if (event === "success") return "CLOSED"
  if (state === "HALF_OPEN") return "OPEN"
  if (state === "CLOSED") return consecutiveFailures >= failureThreshold ? "OPEN" : "CLOSED"
  return state
}

const positive = (field: string, value: number) => {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`circuit breaker: ${field} must be a positive integer`)
  }
  return value
}

/**
 * A circuit breaker for calls to one dependency, on Effect's `Clock` (so `TestClock` drives
 * it). Opens after `failureThreshold` consecutive failures, refuses calls for `resetAfterMs`,
 * then lets one probe through (`HALF_OPEN`): success closes it, failure opens it again.
 * Interrupted calls count as neither. Bad configuration is a `RangeError` (a programming error).
 */
export const makeCircuitBreaker = (
  config: CircuitBreakerConfig,
  hooks: CircuitBreakerHooks = {}
): Effect.Effect<CircuitBreaker> =>
  Effect.sync(() => {
    const failureThreshold = positive(
      "failureThreshold",
      config.failureThreshold ?? defaultCircuitBreakerConfig.failureThreshold
    )
    const resetAfterMs = positive(
      "resetAfterMs",
      config.resetAfterMs ?? defaultCircuitBreakerConfig.resetAfterMs
    )
    const openAfterQuietMs = config.openAfterQuietMs ?? defaultCircuitBreakerConfig.openAfterQuietMs
    if (!Number.isInteger(openAfterQuietMs) || openAfterQuietMs < 0) {
      throw new RangeError("circuit breaker: openAfterQuietMs must be a non-negative integer")
    }
    const name = config.name
    let state: CircuitState = "CLOSED"
    let failures = 0
    let openedAt = 0
    let opened = 0
    let rejected = 0
    /** Unknown until the first call: the breaker's creation counts as the last success. */
    let lastSuccessAt: number | null = null

    const moveTo = (to: CircuitState, at: number): Effect.Effect<void> => {
      const from = state
      if (from === to) return Effect.void
      state = to
      if (to === "OPEN") {
        openedAt = at
        opened++
      }
      if (to === "CLOSED") failures = 0
      const transition = { name, from, to, at, consecutiveFailures: failures }
      return hooks.onTransition ? Effect.ignore(hooks.onTransition(transition)) : Effect.void
    }
    const record = (event: "success" | "failure", wasProbe: boolean) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        lastSuccessAt ??= now
        failures = event === "success" ? 0 : failures + 1
        if (event === "success") lastSuccessAt = now
        // A late answer of a call started before the breaker opened does not close it:
        // only the probe (or any call while closed) decides.
        if (state === "OPEN" || (state === "HALF_OPEN" && !wasProbe)) return Effect.void
        const next = nextCircuitState(state, event, failures, failureThreshold)
        // A burst of failures while the dependency answered recently is a stall, not an outage.
        if (state === "CLOSED" && next === "OPEN" && now - lastSuccessAt < openAfterQuietMs)
          return Effect.void
        return moveTo(next, now)
      })

    /** Admits the call (`probe`: it is the half-open probe) or refuses it. */
    const admit = (allowProbe: boolean) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now): Effect.Effect<{ readonly probe: boolean }, CircuitOpen> => {
          lastSuccessAt ??= now
          if (state === "CLOSED") return Effect.succeed({ probe: false })
          const due = state === "OPEN" && now - openedAt >= resetAfterMs
          if (due && allowProbe) return Effect.as(moveTo("HALF_OPEN", now), { probe: true })
          rejected++
          const retryAfterMs = state === "OPEN" ? Math.max(0, openedAt + resetAfterMs - now) : 0
          return Effect.fail(new CircuitOpen({ name, retryAfterMs }))
        }
      )

    const breaker: CircuitBreaker = {
      name,
      call: (effect, options = {}) =>
        Effect.flatMap(admit(options.probe ?? true), ({ probe }) =>
          Effect.onExit(effect, (exit) => {
            if (exit._tag === "Success") return record("success", probe)
            const failure = exit.cause.reasons.find(Cause.isFailReason)
            if (failure === undefined && !exit.cause.reasons.some(Cause.isDieReason)) {
              // Interrupted: says nothing of the dependency; an unfinished probe leaves it open.
              return probe
                ? Effect.flatMap(Clock.currentTimeMillis, (now) => moveTo("OPEN", now))
                : Effect.void
            }
            const counts = failure === undefined || (options.isFailure?.(failure.error) ?? true)
            return record(counts ? "failure" : "success", probe)
          })
        ),
      state: Effect.sync(() => state),
      snapshot: Effect.sync(() => ({ name, state, consecutiveFailures: failures, opened, rejected })),
      probeDue: Effect.map(
        Clock.currentTimeMillis,
        (now) => state === "OPEN" && now - openedAt >= resetAfterMs
      )
    }
    return breaker
  })
