import { CaptureTraceContent } from "@aiops-harness/core"
import { ConfigProvider, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { ConfigError, type Env } from "./config.js"

/** The OpenTelemetry GenAI semantic conventions version the spans follow (see README). */
export const GENAI_SEMCONV_VERSION = "1.38.0"

export const DEFAULT_SERVICE_NAME = "aiops-diagnosis-harness"

export type OtlpProtocol = "http/json" | "http/protobuf"

/** Where and how spans are exported (OTLP/HTTP); `null` from the env: not exported at all. */
export interface TelemetryConfig {
  /** The traces URL (`.../v1/traces`). */
  readonly tracesUrl: string
  readonly protocol: OtlpProtocol
  readonly serviceName: string
  /** `OTEL_EXPORTER_OTLP_HEADERS` (e.g. `Authorization=Basic ...` for Langfuse). */
  readonly headers: Readonly<Record<string, string>>
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: attach redacted observations and the released report. */
  readonly captureContent: boolean
  /** `OTEL_BSP_SCHEDULE_DELAY` (ms) between exports; spans are also flushed when the runtime is disposed. */
  readonly exportIntervalMs: number
  /**
   * `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT` (ms): how long the last flush may take when the process
   * stops (a collector that is down delays the exit by at most this). Default 3000.
   */
  readonly exportTimeoutMs: number
}

const value = (env: Env, name: string): string | null => {
  const v = env[name]?.trim()
  return v ? v : null
}

const isTrue = (env: Env, name: string): boolean => {
  const v = value(env, name)?.toLowerCase()
  return v === "true" || v === "1"
}

/** `k1=v1,k2=v2` with URL-encoded values (the OTel spec's format). Values are never echoed in errors. */
const parseHeaders = (field: string, text: string | null): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (text === null) return headers
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue
    const eq = pair.indexOf("=")
    const key = eq > 0 ? pair.slice(0, eq).trim() : ""
    if (key === "") throw new ConfigError({ field, reason: "expected comma-separated key=value pairs" })
    try {
      headers[key] = decodeURIComponent(pair.slice(eq + 1).trim())
    } catch {
      throw new ConfigError({ field, reason: `the value of ${key} is not URL-encoded correctly` })
    }
  }
  return headers
}

const parseUrl = (field: string, text: string): URL => {
  try {
    const url = new URL(text)
    if (url.protocol === "http:" || url.protocol === "https:") return url
  } catch {
    // reported below, without the value (it may carry credentials)
  }
  throw new ConfigError({ field, reason: "expected an http(s) URL" })
}

/**
 * Reads the OTLP exporter settings from the environment (the OTel SDK variables):
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`);
 * `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` `http/protobuf` (default) or `http/json`;
 * `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`; `OTEL_SERVICE_NAME`; `OTEL_SDK_DISABLED`.
 * No endpoint (or disabled): `null`, nothing is exported. Throws `ConfigError` naming the variable.
 */
export const telemetryConfigFromEnv = (env: Env): TelemetryConfig | null => {
  if (isTrue(env, "OTEL_SDK_DISABLED")) return null
  const tracesEndpoint = value(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  const endpoint = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
  let tracesUrl: string
  if (tracesEndpoint !== null) {
    tracesUrl = parseUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tracesEndpoint).toString()
  } else if (endpoint !== null) {
    const base = parseUrl("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint).toString()
    tracesUrl = `${base.replace(/\/+$/, "")}/v1/traces`
  } else {
    return null
  }
  const protocolField = value(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL"
  const protocol = value(env, protocolField) ?? "http/protobuf"
  if (protocol !== "http/json" && protocol !== "http/protobuf") {
    throw new ConfigError({
      field: protocolField,
      reason: `expected http/protobuf or http/json (${protocol === "grpc" ? "grpc is not supported" : "unknown protocol"})`
    })
  }
  const headersField = value(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
    ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
    : "OTEL_EXPORTER_OTLP_HEADERS"
  const millis = (field: string, fallback: number): number => {
    const text = value(env, field)
    const ms = text === null ? fallback : Number(text)
    if (!Number.isInteger(ms) || ms < 1 || ms > 600_000) {
      throw new ConfigError({ field, reason: "expected an integer 1..600000 (ms)" })
    }
    return ms
  }
  const exportIntervalMs = millis("OTEL_BSP_SCHEDULE_DELAY", 5000)
  const exportTimeoutMs = millis(
    value(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
      ? "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
      : "OTEL_EXPORTER_OTLP_TIMEOUT",
    3000
  )
  return {
    tracesUrl,
    protocol,
    serviceName: value(env, "OTEL_SERVICE_NAME") ?? DEFAULT_SERVICE_NAME,
    headers: parseHeaders(headersField, value(env, headersField)),
    captureContent: isTrue(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
    exportIntervalMs,
    exportTimeoutMs
  }
}

/**
 * Effect's OTLP tracer (`effect/observability`) for `config`, or no layer at all (`null`):
 * the spans of `@aiops-harness/agent` and `core` then go to Effect's default tracer and nowhere
 * else. Buffered spans are flushed when the runtime is disposed.
 */
export const telemetryLayer = (config: TelemetryConfig | null, env: Env = {}): Layer.Layer<never> => {
  if (config === null) return Layer.empty
  const defined: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) defined[k] = v
  const tracer = OtlpTracer.layer({
    url: config.tracesUrl,
    resource: { serviceName: config.serviceName },
    headers: config.headers,
    exportInterval: config.exportIntervalMs,
    shutdownTimeout: config.exportTimeoutMs
  }).pipe(
    Layer.provide(
      config.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
    ),
    Layer.provide(FetchHttpClient.layer),
    // `OTEL_RESOURCE_ATTRIBUTES` is read from the app's environment, not the process's.
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: defined })))
  )
  const capture = config.captureContent ? Layer.succeed(CaptureTraceContent, true) : Layer.empty
  return Layer.mergeAll(tracer, capture) as unknown as Layer.Layer<never>
}
