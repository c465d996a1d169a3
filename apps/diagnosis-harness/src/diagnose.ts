import { type DiagnosisResult, type ProgressEvent, runDiagnosis } from "@aiops-harness/agent"
import { type RunTrace, TraceQuery } from "@aiops-harness/audit"
import {
  newRunId,
  newSessionId,
  parseRunId,
  parseSessionId,
  type RunId,
  type SessionId
} from "@aiops-harness/core"
import { Effect } from "effect"
import { recordRunMetrics } from "./ops.js"
import { DiagnosisTools } from "./runtime.js"

export interface DiagnoseRequest {
  readonly question: string
  readonly sessionId?: string
  readonly runId?: string
}

export interface DiagnoseOptions {
  /** Called synchronously, in order, for every progress event of the run. */
  readonly onProgress?: (event: ProgressEvent) => void
}

/** What a trace read after the run gave: the reconciled trace, or why there is none. */
export type TraceOutcome =
  | { readonly found: true; readonly trace: RunTrace }
  | { readonly found: false; readonly reason: "RUN_NOT_FOUND" | "AUDIT_UNAVAILABLE" }

export interface DiagnoseOutcome {
  readonly result: DiagnosisResult
  readonly trace: TraceOutcome
}

/** A session or run id from the outside is malformed. */
export class InvalidIdInput extends Error {
  readonly _tag = "InvalidIdInput"
  constructor(readonly field: "sessionId" | "runId") {
    super(`${field}: expected 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit`)
  }
}

/** Validates (or creates) the ids of one run. */
export const runIds = (
  request: Pick<DiagnoseRequest, "sessionId" | "runId">
): Effect.Effect<{ sessionId: SessionId; runId: RunId }, InvalidIdInput> =>
  Effect.gen(function* () {
    const sessionId =
      request.sessionId === undefined
        ? newSessionId()
        : yield* parseSessionId(request.sessionId).pipe(
            Effect.mapError(() => new InvalidIdInput("sessionId"))
          )
    const runId =
      request.runId === undefined
        ? newRunId()
        : yield* parseRunId(request.runId).pipe(Effect.mapError(() => new InvalidIdInput("runId")))
    return { sessionId, runId }
  })

/** The trace of one run through the audit's `TraceQuery` (never fails: a missing trace is a value). */
export const readTrace = (sessionId: string, runId: string): Effect.Effect<TraceOutcome, never, TraceQuery> =>
  Effect.gen(function* () {
    const query = yield* TraceQuery
    return yield* query.getTrace(sessionId, runId).pipe(
      Effect.map((trace): TraceOutcome => ({ found: true, trace })),
      Effect.catchTag("RunNotFound", () =>
        Effect.succeed<TraceOutcome>({ found: false, reason: "RUN_NOT_FOUND" })
      ),
      Effect.catchTag("AuditReadError", () =>
        Effect.succeed<TraceOutcome>({ found: false, reason: "AUDIT_UNAVAILABLE" })
      )
    )
  })

/**
 * One diagnosis on the app's services: the code path of `cli diagnose` and `POST /api/chat`.
 * Runs the agent with the app's tools and step budget, then reads the run's trace back from
 * the durable audit by `sessionId` + `runId`.
 */
export const diagnose = (request: DiagnoseRequest, options: DiagnoseOptions = {}) =>
  Effect.gen(function* () {
    const { sessionId, runId } = yield* runIds(request)
    const { tools, maxSteps } = yield* DiagnosisTools
    const result = yield* runDiagnosis(
      { sessionId, runId, question: request.question },
      { tools: [...tools], maxSteps, ...(options.onProgress ? { onProgress: options.onProgress } : {}) }
    )
    yield* recordRunMetrics(result)
    const trace = yield* readTrace(result.sessionId, result.runId)
    return { result, trace } satisfies DiagnoseOutcome
  })
