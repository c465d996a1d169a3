import { InvalidRequest, type JsonObject, type ToolDefinition } from "@aiops-harness/core"
import { Effect } from "effect"
import { projectLogs, type ToolProjectionLimits } from "@aiops-harness/projectors"
import {
  MAX_LOOKBACK_MINUTES,
  type QueryLogsRequest,
  QueryLogsRequestSchema,
  TOOL_NAMES
} from "../contracts/requests.js"
import type { LogsRaw } from "../contracts/results.js"
import { TOOL_DESCRIPTIONS } from "../contracts/specs.js"
import { LogBackend, type LogBackendShape } from "../logs/backend.js"
import { normalizeText } from "./scope.js"

/** Options of the `query_logs` tool: its log backend and internal controls. */
export interface QueryLogsToolOptions {
  readonly backend: LogBackendShape
  /** Maximum entries the backend returns per call (internal control, never model-facing). */
  readonly sourceLimit: number
  /** Service used when the model names none (internal control). */
  readonly defaultService?: string
  readonly limits?: Partial<ToolProjectionLimits>
  readonly timeoutMillis?: number
}

const MINUTE = 60_000

/** The stable `InvalidRequest.reason` of a window the tool cannot search. */
export const WINDOW_OUT_OF_RANGE = "WINDOW_OUT_OF_RANGE"

/**
 * The searched window: `start_time`/`end_time` when given (`end_time` defaults to now and is cut
 * at now: the future holds no logs), else `now - lookback_minutes .. now`. A start further back
 * than {@link MAX_LOOKBACK_MINUTES}, or not before the end, is refused (`null`), never clipped
 * silently: the caller must know which window was searched.
 */
export const logWindowOf = (
  request: Pick<QueryLogsRequest, "lookback_minutes" | "start_time" | "end_time">,
  now: number
): { readonly startTime: number; readonly endTime: number } | null => {
  if (request.start_time === undefined && request.end_time === undefined) {
    return { startTime: now - request.lookback_minutes * MINUTE, endTime: now }
  }
  const endTime = request.end_time === undefined ? now : Math.min(Date.parse(request.end_time), now)
  const startTime =
    request.start_time === undefined
      ? endTime - request.lookback_minutes * MINUTE
      : Date.parse(request.start_time)
  if (startTime < now - MAX_LOOKBACK_MINUTES * MINUTE || startTime >= endTime) return null
  return { startTime, endTime }
}

/**
 * `query_logs`: window {@link logWindowOf} from the boundary's clock
 * (`context.now`), the injected source limit and default service, then `projectLogs`.
 */
export const queryLogsTool = (options: QueryLogsToolOptions): ToolDefinition<QueryLogsRequest, LogsRaw> => {
  if (!Number.isSafeInteger(options.sourceLimit) || options.sourceLimit < 1) {
    throw new RangeError("queryLogsTool: sourceLimit must be a positive integer")
  }
  const serviceOf = (request: QueryLogsRequest): string | null =>
    request.service ?? options.defaultService ?? null
  return {
    name: TOOL_NAMES.queryLogs,
    description: TOOL_DESCRIPTIONS.query_logs,
    readOnly: true,
    requestSchema: QueryLogsRequestSchema,
    execute: (request, context) => {
      const window = logWindowOf(request, context.now)
      if (window === null) {
        return Effect.fail(
          new InvalidRequest({
            toolName: TOOL_NAMES.queryLogs,
            reason: WINDOW_OUT_OF_RANGE,
            issues: [
              `start_time..end_time: must end after it starts and start at most ${MAX_LOOKBACK_MINUTES} minutes before now`
            ]
          })
        )
      }
      return options.backend.query({
        topic: request.topic,
        query: request.query,
        service: serviceOf(request),
        ...window,
        limit: options.sourceLimit
      })
    },
    project: projectLogs(options.limits),
    scopeOf: (request): JsonObject => {
      const service = serviceOf(request)
      return {
        topic: request.topic,
        query: normalizeText(request.query),
        service: service === null ? null : normalizeText(service),
        // the duplicate identity of an absolute window is the window, else the look-back
        ...(request.start_time !== undefined || request.end_time !== undefined
          ? {
              start_time:
                request.start_time === undefined ? null : new Date(request.start_time).toISOString(),
              end_time: request.end_time === undefined ? null : new Date(request.end_time).toISOString()
            }
          : { lookback_minutes: request.lookback_minutes })
      }
    },
    ...(options.timeoutMillis !== undefined ? { timeoutMillis: options.timeoutMillis } : {})
  }
}

/** {@link queryLogsTool} with the backend taken from the `LogBackend` service. */
export const queryLogsToolFromContext = (options: Omit<QueryLogsToolOptions, "backend">) =>
  LogBackend.useSync((backend) => queryLogsTool({ ...options, backend }))
