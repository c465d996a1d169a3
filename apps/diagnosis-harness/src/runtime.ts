import { type ChatModel, OfflineModel, OpenAICompatibleModel } from "@aiops-harness/agent"
import { auditLayer, migrate, type TraceQuery } from "@aiops-harness/audit"
import {
  type AuditSink,
  BackendError,
  type CanonicalInvocationStore,
  type ToolDefinition
} from "@aiops-harness/core"
import { externalToolsScoped, loadMcpConfigFile } from "@aiops-harness/mcp"
import { canonicalStoreLayer, warnOnRedisEvictionPolicy } from "@aiops-harness/stores"
import {
  EmbeddedKnowledgeSearch,
  EmbeddedLogBackend,
  ensureMysqlQueryUser,
  type LogBackendShape,
  type MysqlExecutionError,
  lookupKnowledgeTool,
  makeMysqlReadOnlyExecutor,
  type MysqlBreakerView,
  parseMysqlAllowlist,
  queryLogsTool,
  queryMysqlTool
} from "@aiops-harness/tools"
import { type Cause, Clock, Context, Data, Effect, Layer, ManagedRuntime, type Redacted } from "effect"
import { type AppConfig, mysqlDatabaseOf } from "./config.js"
import {
  DEMO_DATASOURCE,
  demoAllowlistJson,
  demoSchemaStatements,
  generateDemoLogs,
  runbooksDir,
  type ScenarioId,
  toNdjson
} from "./demo/index.js"
import {
  AppMetrics,
  type AppMetricsShape,
  auditObserver,
  instrumentedStoreLayer,
  jsonLoggerLayer,
  makeAppMetrics,
  QueryMysqlBreaker
} from "./ops.js"
import { type BackendFailure, backendAddress, describeBackendFailure } from "./startup-errors.js"
import { telemetryLayer } from "./telemetry.js"

/** What each startup stage is called in messages. */
const STAGE_LABEL = {
  canonical_store: "canonical store",
  audit: "audit",
  model: "model",
  knowledge: "knowledge",
  logs: "demo logs",
  mysql_datasource: "business datasource",
  mcp_servers: "external MCP servers",
  migrate: "migration"
} as const

/**
 * Building the app's services failed. `stage` says which backend; `reason` what failed and
 * where (`Redis at 127.0.0.1:1 is unreachable (connection refused)`), never credentials or
 * error text; `cause` is internal only.
 */
export class StartupError extends Data.TaggedError("StartupError")<{
  readonly stage: keyof typeof STAGE_LABEL
  readonly reason: string
  readonly cause?: unknown
}> {
  override get message() {
    return `${STAGE_LABEL[this.stage]}: ${this.reason}`
  }
}

export interface DiagnosisToolsShape {
  /** The tools a diagnosis run may use (`query_mysql` only with a business datasource). */
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly scenario: ScenarioId
  readonly maxSteps: number
}

/** The app's tool set and run settings. */
export class DiagnosisTools extends Context.Service<DiagnosisTools, DiagnosisToolsShape>()(
  "@aiops-harness/diagnosis-harness/DiagnosisTools"
) {}

export type AppServices =
  | ChatModel
  | CanonicalInvocationStore
  | AuditSink
  | TraceQuery
  | DiagnosisTools
  | AppMetrics

export interface AppLayerOptions {
  /**
   * Injected "now" (epoch ms): the app's clock starts there and runs at real speed; the demo
   * logs are generated relative to it. Default: the real clock.
   */
  readonly now?: number
  /** Replaces the configured model (tests). */
  readonly modelLayer?: Layer.Layer<ChatModel>
  /** Replaces the configured audit (tests that inspect every row). */
  readonly auditLayer?: Layer.Layer<AuditSink | TraceQuery>
  /** The metrics registry to fill (default: a new one per runtime). */
  readonly metrics?: AppMetricsShape
}

/** A layer that fails with a `StartupError` saying what failed and where (never the error text). */
const startupFailure =
  (stage: StartupError["stage"], failure: Omit<BackendFailure, "cause">) =>
  (cause: Cause.Cause<unknown>): Layer.Layer<unknown, StartupError> =>
    // `Layer.catchCause` intersects the outputs: `unknown` keeps the recovered layer's services.
    Layer.effectDiscard(
      Effect.flatMap(describeBackendFailure({ ...failure, cause }), (reason) =>
        Effect.fail(new StartupError({ stage, reason, cause }))
      )
    ) as Layer.Layer<unknown, StartupError>

/** `StartupError` of a MySQL step (migration, datasource) with the failure described. */
const mysqlStartupError =
  (stage: StartupError["stage"], url: Redacted.Redacted<string>) => (cause: unknown) =>
    Effect.flatMap(describeBackendFailure({ kind: "MySQL", url, cause }), (reason) =>
      Effect.fail(new StartupError({ stage, reason, cause }))
    )

/** Business schema migration: versions far above the audit schema's, same `schema_migrations` table. */
export const demoSchemaMigration = () => ({
  version: 1001,
  name: "demo_shop_business_schema",
  statements: demoSchemaStatements()
})

/** Creates the SELECT-only user of `MYSQL_QUERY_URL` with SELECT on the demo schema (idempotent). */
const ensureQueryUser = (mysqlUrl: Redacted.Redacted<string>, mysqlQueryUrl: Redacted.Redacted<string>) =>
  ensureMysqlQueryUser({
    adminUrl: mysqlUrl,
    queryUrl: mysqlQueryUrl,
    databases: [mysqlDatabaseOf(mysqlUrl)]
  })

/**
 * Applies the audit schema and the demo business schema to `mysqlUrl` (idempotent); with
 * `mysqlQueryUrl`, also creates its SELECT-only user for `query_mysql`.
 */
export const migrateAll = (
  mysqlUrl: Redacted.Redacted<string>,
  mysqlQueryUrl: Redacted.Redacted<string> | null = null
) =>
  Effect.gen(function* () {
    const audit = yield* migrate(mysqlUrl)
    const business = yield* migrate(mysqlUrl, { migrations: [demoSchemaMigration()] })
    const queryUser =
      mysqlQueryUrl === null
        ? null
        : {
            ...(yield* ensureQueryUser(mysqlUrl, mysqlQueryUrl)),
            database: mysqlDatabaseOf(mysqlUrl)
          }
    return { audit, business, queryUser }
  }).pipe(Effect.catch(mysqlStartupError("migrate", mysqlUrl)))

/** The query user may do more than SELECT: say so (the problems hold no secrets), never start. */
const unsafeQueryUser = (url: Redacted.Redacted<string>) => (error: MysqlExecutionError) =>
  error.code === "UNSAFE_PRIVILEGES"
    ? Effect.fail(
        new StartupError({
          stage: "mysql_datasource",
          reason: `the MYSQL_QUERY_URL user at ${backendAddress("MySQL", url)} is not read-only (${error.internalMessage.replace(/^[^:]*refused: /, "")}); use a user with only SELECT on the demo schema (migrate creates one)`,
          cause: error
        })
      )
    : mysqlStartupError("mysql_datasource", url)(error)

/** A clock that starts at `now` and advances with the real clock. */
export const shiftedClockLayer = (now: number): Layer.Layer<never> =>
  Layer.effect(
    Clock.Clock,
    Clock.clockWith((base) => {
      const offset = now - base.currentTimeMillisUnsafe()
      const nanos = BigInt(offset) * 1_000_000n
      const clock: Clock.Clock = {
        currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe() + offset,
        currentTimeMillis: Effect.sync(() => base.currentTimeMillisUnsafe() + offset),
        currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe() + nanos,
        currentTimeNanos: Effect.sync(() => base.currentTimeNanosUnsafe() + nanos),
        monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
        monotonicTimeNanos: base.monotonicTimeNanos,
        sleep: (d) => base.sleep(d)
      }
      return Effect.succeed(clock)
    })
  ) as unknown as Layer.Layer<never>

/** Regenerates the (deterministic) demo world when the clock has moved on by 5 minutes. */
const demoLogBackend = (config: AppConfig): Effect.Effect<LogBackendShape, StartupError> =>
  Effect.gen(function* () {
    const build = (now: number) =>
      EmbeddedLogBackend.fromNdjson([
        {
          name: `demo:${config.scenario}`,
          ndjson: toNdjson(
            generateDemoLogs({
              scenario: config.scenario,
              now,
              minutes: config.logMinutes,
              seed: config.seed
            })
          )
        }
      ]).pipe(Effect.map((backend) => ({ backend, now })))
    const start = yield* Clock.currentTimeMillis
    let current = yield* build(start).pipe(
      Effect.mapError((e) => new StartupError({ stage: "logs", reason: e.reason, cause: e }))
    )
    const backend: LogBackendShape = {
      query: (request) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (now - current.now > 5 * 60_000) {
            // A failed rebuild is a backend failure of this call, never a defect.
            current = yield* build(now).pipe(
              Effect.mapError((cause) => new BackendError({ toolName: "query_logs", cause }))
            )
          }
          return yield* current.backend.query(request)
        })
    }
    return backend
  })

/**
 * The allowed tools of the configured external MCP servers (connections closed with the layer).
 * A bad file or a server that cannot be reached or listed stops the startup.
 */
const externalMcpTools = (path: string) =>
  Effect.gen(function* () {
    const mcpConfig = yield* loadMcpConfigFile(path)
    const external = yield* externalToolsScoped(mcpConfig)
    return external.tools
  }).pipe(
    Effect.mapError(
      (e) =>
        new StartupError({
          stage: "mcp_servers",
          reason: e._tag === "McpConfigError" ? `MCP_SERVERS_CONFIG ${e.message}` : e.message,
          cause: e
        })
    )
  )

/** The tools, and with `query_mysql` on MySQL its executor's breaker (`QueryMysqlBreaker`, for /metrics). */
const toolsLayer = (config: AppConfig): Layer.Layer<DiagnosisTools, StartupError> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const search = yield* EmbeddedKnowledgeSearch.fromDirectory(runbooksDir).pipe(
        Effect.mapError((e) => new StartupError({ stage: "knowledge", reason: e.reason, cause: e }))
      )
      const logs = yield* demoLogBackend(config)
      const tools: Array<ToolDefinition> = [
        lookupKnowledgeTool({ search }),
        queryLogsTool({ backend: logs, sourceLimit: 500 })
      ]
      let queryBreaker: MysqlBreakerView | undefined
      if (config.mysqlUrl !== null && config.mysqlQueryUrl !== null) {
        const database = mysqlDatabaseOf(config.mysqlUrl)
        yield* migrate(config.mysqlUrl, { migrations: [demoSchemaMigration()] }).pipe(
          Effect.catch(mysqlStartupError("migrate", config.mysqlUrl))
        )
        yield* ensureQueryUser(config.mysqlUrl, config.mysqlQueryUrl).pipe(
          Effect.catch(mysqlStartupError("migrate", config.mysqlUrl))
        )
        const allowlist = yield* parseMysqlAllowlist(demoAllowlistJson(database)).pipe(
          Effect.mapError((e) => new StartupError({ stage: "mysql_datasource", reason: e.detail, cause: e }))
        )
        // query_mysql runs as the SELECT-only user; the executor refuses any other at startup.
        const executor = yield* makeMysqlReadOnlyExecutor({
          url: config.mysqlQueryUrl,
          connectTimeoutMs: 5000,
          statementTimeoutMs: 5000,
          maxRows: 200,
          databases: { [DEMO_DATASOURCE]: database }
        }).pipe(Effect.catch(unsafeQueryUser(config.mysqlQueryUrl)))
        tools.push(queryMysqlTool({ allowlist, executor, defaultDatasource: DEMO_DATASOURCE, maxRows: 50 }))
        queryBreaker = executor.breaker
      }
      if (config.mcpServersConfig !== null) tools.push(...(yield* externalMcpTools(config.mcpServersConfig)))
      let services: Context.Context<DiagnosisTools> = Context.make(DiagnosisTools, {
        tools,
        scenario: config.scenario,
        maxSteps: config.maxSteps
      })
      if (queryBreaker) services = Context.add(services, QueryMysqlBreaker, queryBreaker)
      return services
    })
  )

const modelLayer = (config: AppConfig): Layer.Layer<ChatModel> =>
  config.model.kind === "offline"
    ? OfflineModel.layer()
    : OpenAICompatibleModel.layer({
        baseUrl: config.model.baseUrl,
        apiKey: config.model.apiKey,
        model: config.model.model,
        timeoutMs: config.model.timeoutMs,
        maxRetries: config.model.maxRetries,
        stream: config.model.stream,
        ...(config.model.apiKeyHeader ? { apiKeyHeader: config.model.apiKeyHeader } : {}),
        ...(config.model.query ? { query: config.model.query } : {})
      })

/**
 * Every service of the app in one layer: canonical store (Redis or in-memory), audit (MySQL or
 * in-memory), model (OpenAI-compatible or offline), tools (embedded knowledge + demo logs, plus
 * `query_mysql` on the demo business schema with MySQL). Pools are scoped to the layer.
 */
export const appLayer = (
  config: AppConfig,
  options: AppLayerOptions = {}
): Layer.Layer<AppServices, StartupError> => {
  const store = config.store
  const clusterNodes =
    store._tag === "Redis"
      ? store.redis.cluster?.nodes.map((n) => `${n.host}:${n.port}`).join(",")
      : undefined
  const metrics = options.metrics ?? makeAppMetrics()
  const rawStore = canonicalStoreLayer(store).pipe(
    Layer.catchCause(
      startupFailure("canonical_store", {
        kind: "Redis",
        url: config.redisUrl ?? "",
        probe: true,
        ...(clusterNodes ? { address: clusterNodes } : {})
      })
    )
  )
  const storeLayer = instrumentedStoreLayer(rawStore, metrics)
  // A Redis that refuses writes when full (noeviction) is said at startup, never fatal.
  const evictionCheck =
    store._tag === "Redis" ? Layer.effectDiscard(warnOnRedisEvictionPolicy(store.redis)) : Layer.empty
  const audit = auditLayer(config.audit, { observer: auditObserver(metrics) }).pipe(
    Layer.catchCause(startupFailure("audit", { kind: "MySQL", url: config.mysqlUrl ?? "" }))
  )
  // The tools' business-schema migration runs after the audit's (same MySQL): a MySQL that
  // does not answer is reported once, by the audit stage.
  const services = Layer.mergeAll(
    storeLayer,
    telemetryLayer(config.telemetry),
    evictionCheck,
    options.modelLayer ?? modelLayer(config),
    Layer.succeed(AppMetrics, metrics),
    toolsLayer(config).pipe(Layer.provideMerge(options.auditLayer ?? audit))
  ).pipe(Layer.provideMerge(jsonLoggerLayer(config.logLevel)))
  return options.now === undefined
    ? services
    : services.pipe(Layer.provideMerge(shiftedClockLayer(options.now)))
}

export type AppRuntime = ManagedRuntime.ManagedRuntime<AppServices, StartupError>

/** One runtime for the whole process: `dispose()` releases every pool and connection. */
export const makeAppRuntime = (config: AppConfig, options: AppLayerOptions = {}): AppRuntime =>
  ManagedRuntime.make(appLayer(config, options))
