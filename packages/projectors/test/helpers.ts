import type { Projection, Projector, ToolCallId } from "@aiops-harness/core"
import { Effect, Result } from "effect"

export const CALL_ID = "call-0001" as ToolCallId

export type Outcome =
  | { readonly ok: true; readonly projection: Projection }
  | { readonly ok: false; readonly error: { readonly _tag: string; readonly reason?: string } & object }

/** Run a projector synchronously and expose success or the typed failure. */
export const run = <Req, Raw>(
  projector: Projector<Req, Raw>,
  request: Req,
  raw: Raw,
  maxBytes = 1 << 20
): Outcome => {
  const result = Effect.runSync(Effect.result(projector({ request, toolCallId: CALL_ID, raw, maxBytes })))
  return Result.isSuccess(result)
    ? { ok: true, projection: result.success }
    : { ok: false, error: result.failure as unknown as { _tag: string; reason?: string } }
}

export const ok = (outcome: Outcome): Projection => {
  if (!outcome.ok)
    throw new Error(`expected success, got ${outcome.error._tag} ${outcome.error.reason ?? ""}`)
  return outcome.projection
}

export const bytesOf = (value: unknown): number => new TextEncoder().encode(JSON.stringify(value)).length
