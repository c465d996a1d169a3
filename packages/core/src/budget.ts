import { Effect, Ref } from "effect"
import { type BudgetDimension, BudgetExhausted } from "./errors.js"

/** Per-call and per-run limits of one run. All byte figures are UTF-8 bytes of JSON. */
export interface RunBudgetLimits {
  readonly maxToolCalls: number
  readonly maxRequestBytesPerCall: number
  readonly maxRequestBytesPerRun: number
  readonly maxRawBytesPerCall: number
  readonly maxRawBytesPerRun: number
  readonly maxProjectionBytesPerCall: number
  readonly maxProjectionBytesPerRun: number
}

/** Default per-call and per-run budget limits. */
export const defaultRunBudgetLimits: RunBudgetLimits = {
  maxToolCalls: 8,
  maxRequestBytesPerCall: 8 * 1024,
  maxRequestBytesPerRun: 64 * 1024,
  maxRawBytesPerCall: 16 * 1024 * 1024,
  maxRawBytesPerRun: 64 * 1024 * 1024,
  maxProjectionBytesPerCall: 16 * 1024,
  maxProjectionBytesPerRun: 128 * 1024
}

/** Amount used so far in each budget dimension of a run. */
export type BudgetUsage = { readonly [K in BudgetDimension]: number }

const runLimit = (limits: RunBudgetLimits, dimension: BudgetDimension): number => {
  switch (dimension) {
    case "toolCalls":
      return limits.maxToolCalls
    case "requestBytes":
      return limits.maxRequestBytesPerRun
    case "rawBytes":
      return limits.maxRawBytesPerRun
    case "projectionBytes":
      return limits.maxProjectionBytesPerRun
  }
}

/** One run's budget: all-or-nothing reservations against its limits. */
export interface RunBudget {
  readonly limits: RunBudgetLimits
  /**
   * Reserve amounts of one or more dimensions, all or nothing. Atomic per run: concurrent
   * reservations cannot overspend, and a refused reservation takes nothing.
   */
  readonly reserve: (amounts: Partial<BudgetUsage>) => Effect.Effect<void, BudgetExhausted>
  readonly used: Effect.Effect<BudgetUsage>
  readonly remaining: Effect.Effect<BudgetUsage>
}

/** Makes a fresh `RunBudget` (nothing used yet) with the given limits. */
export const makeRunBudget = (limits: RunBudgetLimits): Effect.Effect<RunBudget> =>
  Effect.map(
    Ref.make<BudgetUsage>({ toolCalls: 0, requestBytes: 0, rawBytes: 0, projectionBytes: 0 }),
    (ref): RunBudget => ({
      limits,
      reserve: (amounts) =>
        Ref.modify(ref, (used): readonly [BudgetExhausted | null, BudgetUsage] => {
          let next = used
          for (const [dimension, amount] of Object.entries(amounts) as Array<[BudgetDimension, number]>) {
            const remaining = runLimit(limits, dimension) - used[dimension]
            if (amount > remaining) {
              return [
                new BudgetExhausted({ dimension, requested: amount, remaining: Math.max(0, remaining) }),
                used
              ]
            }
            next = { ...next, [dimension]: used[dimension] + amount }
          }
          return [null, next]
        }).pipe(Effect.flatMap((error) => (error ? Effect.fail(error) : Effect.void))),
      used: Ref.get(ref),
      remaining: Effect.map(Ref.get(ref), (used) => ({
        toolCalls: limits.maxToolCalls - used.toolCalls,
        requestBytes: limits.maxRequestBytesPerRun - used.requestBytes,
        rawBytes: limits.maxRawBytesPerRun - used.rawBytes,
        projectionBytes: limits.maxProjectionBytesPerRun - used.projectionBytes
      }))
    })
  )
