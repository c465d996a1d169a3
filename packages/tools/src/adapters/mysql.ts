import { BackendError, InvalidRequest, type JsonObject, type ToolDefinition } from "@aiops-harness/core"
import { projectMysqlRows, type ToolProjectionLimits } from "@aiops-harness/projectors"
import { Effect } from "effect"
import { type QueryMysqlRequest, QueryMysqlRequestSchema, TOOL_NAMES } from "../contracts/requests.js"
import type { MysqlRaw } from "../contracts/results.js"
import { TOOL_DESCRIPTIONS } from "../contracts/specs.js"
import {
  type MysqlAllowlist,
  MysqlReadOnlyExecutor,
  type MysqlReadOnlyExecutorShape,
  validateMysqlQuery
} from "../mysql/index.js"
import { normalizeText } from "./scope.js"

/** Options of the `query_mysql` tool: its allowlist, executor and defaults. */
export interface QueryMysqlToolOptions {
  readonly allowlist: MysqlAllowlist
  readonly executor: MysqlReadOnlyExecutorShape
  /** Datasource used when the model sends an empty `datasource`. */
  readonly defaultDatasource?: string
  /** LIMIT the validator enforces (internal control, never model-facing). */
  readonly maxRows: number
  readonly limits?: Partial<ToolProjectionLimits>
  readonly timeoutMillis?: number
}

const TOOL = TOOL_NAMES.queryMysql

/**
 * `query_mysql`: the allowlist validator first (a rejection is `InvalidRequest` with the
 * rejection `reason`, and the SQL never reaches the executor), then the read-only executor
 * (its failures are `BackendError`), then `projectMysqlRows`.
 */
export const queryMysqlTool = (
  options: QueryMysqlToolOptions
): ToolDefinition<QueryMysqlRequest, MysqlRaw> => {
  // The default datasource is resolved at preflight, so the canonical request, the projection
  // and the duplicate identity all carry the datasource that actually ran.
  const requestSchema = QueryMysqlRequestSchema.transform(
    (request): QueryMysqlRequest =>
      request.datasource === "" && options.defaultDatasource
        ? { ...request, datasource: options.defaultDatasource }
        : request
  )
  return {
    name: TOOL,
    description: TOOL_DESCRIPTIONS.query_mysql,
    readOnly: true,
    requestSchema,
    execute: (request) =>
      Effect.gen(function* () {
        const plan = yield* validateMysqlQuery(
          { datasource: request.datasource, sql: request.sql },
          options.allowlist,
          { maxRows: options.maxRows }
        ).pipe(
          Effect.mapError(
            (rejected) =>
              new InvalidRequest({
                toolName: TOOL,
                reason: rejected.reason,
                issues: [`sql: ${rejected.reason}`]
              })
          )
        )
        const result = yield* options.executor
          .execute(plan)
          .pipe(
            Effect.mapError(
              (cause) => new BackendError({ toolName: TOOL, timeout: cause.code === "TIMEOUT", cause })
            )
          )
        const raw: MysqlRaw = {
          columns: result.columns.map((c) => ({ name: c.name, type: c.type, origin: c.origin })),
          rows: result.rows,
          rowCount: result.rowCount,
          truncated: result.truncated
        }
        return raw
      }),
    project: projectMysqlRows(options.limits),
    scopeOf: (request): JsonObject => ({
      datasource: normalizeText(request.datasource),
      sql: normalizeText(request.sql)
    }),
    ...(options.timeoutMillis !== undefined ? { timeoutMillis: options.timeoutMillis } : {})
  }
}

/** {@link queryMysqlTool} with the executor taken from the `MysqlReadOnlyExecutor` service. */
export const queryMysqlToolFromContext = (options: Omit<QueryMysqlToolOptions, "executor">) =>
  MysqlReadOnlyExecutor.useSync((executor) => queryMysqlTool({ ...options, executor }))
