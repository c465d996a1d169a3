import type { DiagnosisResult, ProgressEvent } from "@aiops-harness/agent"
import type { TraceOutcome } from "../diagnose.js"

/**
 * The internal event stream of one run over HTTP. Every wire protocol (`/api/chat` SSE, AG-UI,
 * the AI SDK UI message stream) is a pure encoding of these events: the run, its cancellation
 * and its ordering live once, in `transport.ts`.
 */
export interface RunIds {
  readonly sessionId: string
  readonly runId: string
}

/** Token usage of one model in a run, from the audit's token ledger. */
export interface ModelUsage {
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

export interface RunUsage {
  /** Per model, only calls that reported usage. */
  readonly byModel: ReadonlyArray<ModelUsage>
  /** The run's total (`RecorderSummary.totalTokens`); `null` when unknown. */
  readonly totalTokens: number | null
  /** False when some model call reported no usage (the totals are then a lower bound). */
  readonly complete: boolean
}

export type RunEvent =
  /** The run's ids are known; nothing has run yet. */
  | { readonly type: "started"; readonly ids: RunIds }
  /** One agent `ProgressEvent`, in order. */
  | { readonly type: "progress"; readonly event: ProgressEvent }
  /** The run ended with a result (any release result, `RUN_FAILED` included). Terminal. */
  | {
      readonly type: "answer"
      readonly ids: RunIds
      readonly result: DiagnosisResult
      readonly usage: RunUsage
    }
  /** The run did not produce a result: cancelled (client gone, shutdown) or could not execute. Terminal. */
  | {
      readonly type: "failed"
      readonly ids: RunIds
      readonly error: "CANCELLED" | "INTERNAL"
      readonly message: string
    }

/** One SSE message of a protocol (the transport adds `id:`). */
export interface SseFrame {
  readonly event?: string
  readonly data: string
}

/** A protocol encoder: per-stream state (open step, message ids) lives in the instance. */
export interface RunEncoder {
  readonly encode: (event: RunEvent) => ReadonlyArray<SseFrame>
}

/** The run's usage: totals from the result's summary, per-model sums from the trace's ledger. */
export const usageOf = (result: DiagnosisResult, trace: TraceOutcome): RunUsage => {
  const byModel = new Map<string, { input: number; output: number; total: number }>()
  if (trace.found) {
    for (const entry of trace.trace.token_ledger) {
      if (!entry.usage_available) continue
      const sums = byModel.get(entry.model) ?? { input: 0, output: 0, total: 0 }
      sums.input += entry.prompt_tokens ?? 0
      sums.output += entry.completion_tokens ?? 0
      sums.total += entry.total_tokens ?? 0
      byModel.set(entry.model, sums)
    }
  }
  return {
    byModel: [...byModel].map(([model, s]) => ({
      model,
      inputTokens: s.input,
      outputTokens: s.output,
      totalTokens: s.total
    })),
    totalTokens: result.summary.totalTokens,
    complete: result.summary.usageComplete
  }
}

/** The `tool_call` fields every protocol needs; a refused call with a malformed id gets a stable placeholder. */
export const toolCallIdOf = (event: Extract<ProgressEvent, { type: "tool_call" }>, ordinal: number): string =>
  event.tool_call_id ?? `invalid-tool-call-${ordinal}`

/** The model's tool arguments as JSON (a malformed text is passed on as a string). */
export const toolInputOf = (argumentsText: string): unknown => {
  if (argumentsText.trim() === "") return {}
  try {
    return JSON.parse(argumentsText) as unknown
  } catch {
    return argumentsText
  }
}
