import { type BackendError, type Projection, ProjectionError } from "@aiops-harness/core"
import { Effect } from "effect"
import type { z } from "zod"
import type { ToolProjectionLimits } from "./limits.js"

/**
 * Strict parse: an unexpected shape fails closed with `UNEXPECTED_SHAPE`. The detail names
 * paths and issue codes only, never the offending values (they may be secret).
 */
export const parseStrict = <T>(schema: z.ZodType<T>, raw: unknown): T | ProjectionError => {
  const result = schema.safeParse(raw)
  if (result.success) return result.data
  const detail = result.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.code}`)
    .join("; ")
  return new ProjectionError({ reason: "UNEXPECTED_SHAPE", detail })
}

/** The byte budget of one projection: the tighter of the limits and the caller's budget. */
export const byteBudget = (limits: ToolProjectionLimits, maxBytes: number): number =>
  Number.isFinite(maxBytes) && maxBytes >= 0
    ? Math.min(limits.maxBytes, Math.floor(maxBytes))
    : limits.maxBytes

/** Run a synchronous projection step as an Effect (errors in the failure channel). */
export const fromResult = <E extends ProjectionError | BackendError>(
  compute: () => Projection | E
): Effect.Effect<Projection, E> =>
  Effect.suspend(() => {
    const result = compute()
    return "evidenceStatus" in result ? Effect.succeed(result) : Effect.fail(result)
  })

/** Whitespace-collapsed, lower-cased text for duplicate identity of scopes. */
export const normalizeQuery = (query: string): string => query.trim().replace(/\s+/g, " ").toLowerCase()
