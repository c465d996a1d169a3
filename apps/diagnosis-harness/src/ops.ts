import type { DiagnosisResult } from "@aiops-harness/agent"
import { AuditHealth, type AuditObserver, type AuditReadiness } from "@aiops-harness/audit"
import {
  type CanonicalInvocationStoreShape,
  type CircuitSnapshot,
  CanonicalInvocationStore,
  type RunId,
  type ToolCallId
} from "@aiops-harness/core"
import type { MysqlBreakerView } from "@aiops-harness/tools"
import { Context, Effect, Layer, Logger, Option, References } from "effect"
import type { Hono } from "hono"
import { Counter, Gauge, Histogram, Registry } from "prom-client"
import type { AppConfig } from "./config.js"
import type { AppRuntime } from "./runtime.js"

/**
 * The app's Prometheus metrics, one registry per app runtime (never prom-client's global one:
 * tests and two apps in one process must not share counters).
 */
export interface AppMetricsShape {
  readonly registry: Registry
  readonly runs: Counter<"outcome">
  readonly toolCalls: Counter<"tool" | "status" | "error_code">
  readonly tokens: Counter<"kind">
  readonly storeLatency: Histogram<"operation" | "outcome">
  readonly auditLatency: Histogram<"kind" | "outcome">
  readonly auditQueueDepth: Gauge
  readonly auditDroppedWrites: Gauge
  readonly auditPendingRepairs: Gauge
  readonly auditBreakerState: Gauge<"state">
  readonly auditBreakerOpened: Gauge
  readonly queryMysqlBreakerState: Gauge<"state">
  readonly queryMysqlBreakerOpened: Gauge
}

export class AppMetrics extends Context.Service<AppMetrics, AppMetricsShape>()(
  "@aiops-harness/diagnosis-harness/AppMetrics"
) {}

/**
 * The `query_mysql` executor's circuit breaker (`query-mysql`), read-only. Provided only when
 * the app runs `query_mysql` against MySQL (`MYSQL_URL` and `MYSQL_QUERY_URL`).
 */
export class QueryMysqlBreaker extends Context.Service<QueryMysqlBreaker, MysqlBreakerView>()(
  "@aiops-harness/diagnosis-harness/QueryMysqlBreaker"
) {}

const QUERY_MYSQL_BREAKER_STATE = "aiops_query_mysql_breaker_state"

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

export const makeAppMetrics = (): AppMetricsShape => {
  const registry = new Registry()
  const registers = [registry]
  return {
    registry,
    runs: new Counter({
      name: "aiops_runs_total",
      help: "Diagnosis runs by outcome (release result).",
      labelNames: ["outcome"],
      registers
    }),
    toolCalls: new Counter({
      name: "aiops_tool_calls_total",
      help: "Tool calls by tool, invocation status and error code.",
      labelNames: ["tool", "status", "error_code"],
      registers
    }),
    tokens: new Counter({
      name: "aiops_model_tokens_total",
      help: "Model tokens of finished runs (reported usage only).",
      labelNames: ["kind"],
      registers
    }),
    storeLatency: new Histogram({
      name: "aiops_canonical_store_seconds",
      help: "Canonical store operation latency.",
      labelNames: ["operation", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers
    }),
    auditLatency: new Histogram({
      name: "aiops_audit_seconds",
      help: "Durable audit query latency (writes and trace reads).",
      labelNames: ["kind", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers
    }),
    auditQueueDepth: new Gauge({
      name: "aiops_audit_queue_depth",
      help: "Audit writes in flight plus timeline events buffered.",
      registers
    }),
    auditDroppedWrites: new Gauge({
      name: "aiops_audit_dropped_writes",
      help: "Audit records dropped since start (fail-open).",
      registers
    }),
    auditPendingRepairs: new Gauge({
      name: "aiops_audit_pending_repairs",
      help: "Runs whose lost finish record waits for the repair pass.",
      registers
    }),
    auditBreakerState: new Gauge({
      name: "aiops_audit_breaker_state",
      help: "Audit circuit breaker: 1 for the current state.",
      labelNames: ["state"],
      registers
    }),
    auditBreakerOpened: new Gauge({
      name: "aiops_audit_breaker_opened",
      help: "Times the audit circuit breaker opened since start.",
      registers
    }),
    // Not registered here: the first scrape that finds the `query_mysql` breaker registers them
    // (an app without `query_mysql` has no such breaker, and an unset gauge would still print 0).
    queryMysqlBreakerState: new Gauge({
      name: QUERY_MYSQL_BREAKER_STATE,
      help: "query_mysql circuit breaker: 1 for the current state.",
      labelNames: ["state"],
      registers: []
    }),
    queryMysqlBreakerOpened: new Gauge({
      name: "aiops_query_mysql_breaker_opened",
      help: "Times the query_mysql circuit breaker opened since start.",
      registers: []
    })
  }
}

/** Audit latency into the metrics (the audit calls it; an exception is ignored there). */
export const auditObserver = (metrics: AppMetricsShape): AuditObserver => ({
  onWrite: ({ durationMs, ok }) =>
    metrics.auditLatency.observe({ kind: "write", outcome: ok ? "ok" : "error" }, durationMs / 1000),
  onRead: ({ durationMs, ok }) =>
    metrics.auditLatency.observe({ kind: "read", outcome: ok ? "ok" : "error" }, durationMs / 1000)
})

/** Counts a finished run: its outcome, its tool calls, its tokens. */
export const recordRunMetrics = (result: DiagnosisResult): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(AppMetrics), (metrics) =>
    Effect.sync(() => {
      if (Option.isNone(metrics)) return
      const m = metrics.value
      m.runs.inc({ outcome: result.releaseResult })
      for (const c of result.checked) {
        m.toolCalls.inc({ tool: c.tool, status: c.status ?? "REFUSED", error_code: c.errorCode ?? "" })
      }
      if (result.summary.totalTokens !== null) m.tokens.inc({ kind: "total" }, result.summary.totalTokens)
    })
  )

/**
 * The canonical store with latency metrics and structured logs of its faults and recoveries:
 * the first failure after a success logs at error level, the first success after failures at
 * info (one line per transition, not per call).
 */
export const instrumentStore = (
  inner: CanonicalInvocationStoreShape,
  metrics: AppMetricsShape
): CanonicalInvocationStoreShape => {
  let healthy = true
  const observe = <A, E extends { readonly _tag: string }>(
    operation: "create" | "transition" | "get",
    effect: Effect.Effect<A, E>
  ): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const started = performance.now()
      return Effect.onExit(effect, (exit) => {
        const seconds = (performance.now() - started) / 1000
        const failure =
          exit._tag === "Failure" ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const error =
          failure?._tag === "Fail" ? (failure.error as { _tag: string; reason?: string }) : undefined
        const storeDown =
          error?._tag === "StoreError" && error.reason !== "FULL" && error.reason !== "CORRUPT_RECORD"
        metrics.storeLatency.observe({ operation, outcome: storeDown ? "error" : "ok" }, seconds)
        if (storeDown && healthy) {
          healthy = false
          return Effect.logError(
            "canonical store unavailable: tool calls answer STORE_ERROR, guards fail closed"
          ).pipe(
            Effect.annotateLogs({
              component: "canonical_store",
              operation,
              reason: error?.reason ?? "UNKNOWN"
            })
          )
        }
        if (error?._tag === "StoreError" && error.reason === "FULL") {
          return Effect.logWarning("canonical store full: records are refused until others expire").pipe(
            Effect.annotateLogs({ component: "canonical_store", operation })
          )
        }
        if (!storeDown && exit._tag === "Success" && !healthy) {
          healthy = true
          return Effect.logInfo("canonical store recovered").pipe(
            Effect.annotateLogs({ component: "canonical_store", operation })
          )
        }
        return Effect.void
      })
    })
  return {
    create: (record) => observe("create", inner.create(record)),
    transition: (next) => observe("transition", inner.transition(next)),
    get: (runId, toolCallId) => observe("get", inner.get(runId, toolCallId))
  }
}

/** Wraps the store layer's service with `instrumentStore`. */
export const instrumentedStoreLayer = <E, R>(
  store: Layer.Layer<CanonicalInvocationStore, E, R>,
  metrics: AppMetricsShape
): Layer.Layer<CanonicalInvocationStore, E, R> =>
  Layer.effect(
    CanonicalInvocationStore,
    Effect.gen(function* () {
      return instrumentStore(yield* CanonicalInvocationStore, metrics)
    })
  ).pipe(Layer.provide(store))

export interface BackendReadiness {
  readonly ready: boolean
  readonly backend: string
  readonly reason: string | null
  readonly latency_ms: number
}

export interface Readiness {
  readonly ready: boolean
  readonly canonical_store: BackendReadiness
  readonly audit: BackendReadiness & { readonly breaker: string | null }
  /**
   * With `query_mysql` on MySQL: its executor's breaker, shown but never failing readiness (the
   * business database may be the very outage being diagnosed; pulling every replica out of the
   * load balancer then would stop the diagnosis, while the other tools still answer).
   */
  readonly query_mysql?: { readonly breaker: string; readonly opened: number }
}

/** A key that is never written: a read of it is a round trip to the store and nothing else. */
const PROBE_RUN = "readyz-probe" as RunId
const PROBE_CALL = "probe" as ToolCallId

const storeReadiness = (config: AppConfig, timeoutMs: number) =>
  Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    const started = performance.now()
    const exit = yield* Effect.exit(
      store
        .get(PROBE_RUN, PROBE_CALL)
        .pipe(Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.fail("TIMEOUT" as const) }))
    )
    const latency_ms = Math.round(performance.now() - started)
    const backend = config.redisUrl ? "redis" : "in-memory"
    if (exit._tag === "Success") return { ready: true, backend, reason: null, latency_ms }
    const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
    const reason =
      failure?._tag === "Fail"
        ? typeof failure.error === "string"
          ? failure.error
          : failure.error.reason
        : "UNAVAILABLE"
    return { ready: false, backend, reason, latency_ms }
  })

const auditReadiness = (config: AppConfig, timeoutMs: number) =>
  Effect.gen(function* () {
    const health = yield* Effect.serviceOption(AuditHealth)
    const backend = config.mysqlUrl ? "mysql" : "in-memory"
    if (Option.isNone(health)) return { ready: true, backend, reason: null, latency_ms: 0, breaker: null }
    const started = performance.now()
    const check = yield* health.value.check.pipe(
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () =>
          Effect.succeed<AuditReadiness>({
            ready: false,
            breaker: null,
            reason: "TIMEOUT",
            latencyMs: timeoutMs
          })
      })
    )
    return {
      ready: check.ready,
      backend,
      reason: check.reason,
      latency_ms: Math.round(performance.now() - started),
      breaker: check.breaker
    }
  })

/** Readiness of every backend, checked concurrently, each within `timeoutMs`. */
export const readiness = (config: AppConfig, timeoutMs = 1500) =>
  Effect.gen(function* () {
    const [store, audit] = yield* Effect.all(
      [storeReadiness(config, timeoutMs), auditReadiness(config, timeoutMs)],
      {
        concurrency: 2
      }
    )
    const queryBreaker = yield* Effect.serviceOption(QueryMysqlBreaker)
    const report: Readiness = { ready: store.ready && audit.ready, canonical_store: store, audit }
    if (Option.isNone(queryBreaker)) return report
    const snapshot = yield* queryBreaker.value.snapshot
    return { ...report, query_mysql: { breaker: snapshot.state, opened: snapshot.opened } }
  })

const BREAKER_STATES = ["CLOSED", "OPEN", "HALF_OPEN"] as const

/** A breaker's gauges: 1 for its current state, 0 for the others, and the times it opened. */
const setBreakerGauges = (
  gauges: { readonly state: Gauge<"state">; readonly opened: Gauge },
  breaker: Pick<CircuitSnapshot, "state" | "opened"> | null
): void => {
  for (const state of BREAKER_STATES) gauges.state.set({ state }, breaker?.state === state ? 1 : 0)
  gauges.opened.set(breaker?.opened ?? 0)
}

/** Sets the gauges read from the audit's health and the `query_mysql` breaker (at scrape time). */
const refreshGauges = Effect.gen(function* () {
  const metrics = yield* AppMetrics
  const health = yield* Effect.serviceOption(AuditHealth)
  if (Option.isSome(health)) {
    const status = yield* health.value.status
    metrics.auditQueueDepth.set(status.queueDepth)
    metrics.auditDroppedWrites.set(status.droppedWrites)
    metrics.auditPendingRepairs.set(status.pendingRepairs)
    setBreakerGauges({ state: metrics.auditBreakerState, opened: metrics.auditBreakerOpened }, status.breaker)
  }
  const queryBreaker = yield* Effect.serviceOption(QueryMysqlBreaker)
  if (Option.isSome(queryBreaker)) {
    const snapshot = yield* queryBreaker.value.snapshot
    if (metrics.registry.getSingleMetric(QUERY_MYSQL_BREAKER_STATE) === undefined) {
      metrics.registry.registerMetric(metrics.queryMysqlBreakerState)
      metrics.registry.registerMetric(metrics.queryMysqlBreakerOpened)
    }
    setBreakerGauges(
      { state: metrics.queryMysqlBreakerState, opened: metrics.queryMysqlBreakerOpened },
      snapshot
    )
  }
})

/**
 * `GET /readyz` (200 when every backend answers and the audit breaker is closed, else 503, with
 * the reason per backend; the `query_mysql` breaker is reported, not judged) and `GET /metrics`
 * (Prometheus text). `/healthz` stays liveness.
 */
export const mountOpsRoutes = (app: Hono, runtime: AppRuntime, config: AppConfig): void => {
  app.get("/readyz", async (c) => {
    const report = await runtime.runPromise(readiness(config))
    if (!report.ready) {
      await runtime.runPromise(
        Effect.logWarning("not ready").pipe(
          Effect.annotateLogs({
            component: "readyz",
            canonical_store: report.canonical_store.reason ?? "ok",
            audit: report.audit.reason ?? "ok",
            ...(report.query_mysql ? { query_mysql_breaker: report.query_mysql.breaker } : {})
          })
        )
      )
    }
    return c.json(report, report.ready ? 200 : 503)
  })
  app.get("/metrics", async (c) => {
    const registry = await runtime.runPromise(
      Effect.gen(function* () {
        yield* refreshGauges
        return (yield* AppMetrics).registry
      })
    )
    return c.body(await registry.metrics(), 200, { "content-type": registry.contentType })
  })
}

/** The app's logger: one JSON object per line on stderr (stdout stays the CLI's output). */
export const jsonLoggerLayer = (level: "Debug" | "Info" | "Warn" | "Error" = "Info") =>
  Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
    Layer.succeed(References.MinimumLogLevel, level)
  )
