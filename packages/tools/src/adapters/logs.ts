import type { JsonObject, ToolDefinition } from "@aiops-harness/core"
import { projectLogs, type ToolProjectionLimits } from "@aiops-harness/projectors"
import { type QueryLogsRequest, QueryLogsRequestSchema, TOOL_NAMES } from "../contracts/requests.js"
import type { LogsRaw } from "../contracts/results.js"
import { TOOL_DESCRIPTIONS } from "../contracts/specs.js"
import { LogBackend, type LogBackendShape } from "../logs/backend.js"
import { normalizeText } from "./scope.js"

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

/**
 * `query_logs`: window `now - lookback_minutes .. now` from the boundary's clock
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
    execute: (request, context) =>
      options.backend.query({
        topic: request.topic,
        query: request.query,
        service: serviceOf(request),
        startTime: context.now - request.lookback_minutes * MINUTE,
        endTime: context.now,
        limit: options.sourceLimit
      }),
    project: projectLogs(options.limits),
    scopeOf: (request): JsonObject => {
      const service = serviceOf(request)
      return {
        topic: request.topic,
        query: normalizeText(request.query),
        service: service === null ? null : normalizeText(service),
        lookback_minutes: request.lookback_minutes
      }
    },
    ...(options.timeoutMillis !== undefined ? { timeoutMillis: options.timeoutMillis } : {})
  }
}

/** {@link queryLogsTool} with the backend taken from the `LogBackend` service. */
export const queryLogsToolFromContext = (options: Omit<QueryLogsToolOptions, "backend">) =>
  LogBackend.useSync((backend) => queryLogsTool({ ...options, backend }))
