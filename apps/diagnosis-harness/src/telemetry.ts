import {
  CaptureTraceContent,
  EnvConfig,
  readEnvConfigSync,
  rejectConfig,
  revealed
} from "@aiops-harness/core"
import { Config, ConfigProvider, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

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
  /** `OTEL_EXPORTER_OTLP_HEADERS` (e.g. `Authorization=Basic ...` for Langfuse): `Redacted`. */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  /** `OTEL_RESOURCE_ATTRIBUTES` (`k=v,k2=v2`, URL-encoded values), checked at startup. */
  readonly resourceAttributes: Readonly<Record<string, string>>
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

/** `k1=v1,k2=v2` with URL-encoded values (the OTel spec's format); `undefined`: malformed. */
const keyValuePairs = (text: string): Record<string, string> | undefined => {
  const pairs: Record<string, string> = {}
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue
    const eq = pair.indexOf("=")
    const key = eq > 0 ? pair.slice(0, eq).trim() : ""
    if (key === "") return undefined
    try {
      pairs[key] = decodeURIComponent(pair.slice(eq + 1).trim())
    } catch {
      return undefined
    }
  }
  return pairs
}

const PAIRS = "comma-separated key=value pairs with URL-encoded values"

const isTrue = (text: string | undefined): boolean => text === "1" || text?.toLowerCase() === "true"

const HTTP = { protocols: ["http:", "https:"], expected: "an http(s) URL" }

/** The `_TRACES_` variant of an OTLP variable when it is set, else the general one. */
const tracesOr = (suffix: string): Config.Config<string> =>
  EnvConfig.string(`OTEL_EXPORTER_OTLP_TRACES_${suffix}`).pipe(
    Config.map((v) =>
      v === undefined ? `OTEL_EXPORTER_OTLP_${suffix}` : `OTEL_EXPORTER_OTLP_TRACES_${suffix}`
    )
  )

const millis = (name: string, fallback: number) => EnvConfig.int(name, fallback, { min: 1, max: 600_000 })

const exporterConfig = (tracesUrl: string): Config.Config<TelemetryConfig> =>
  Config.all({
    protocolVar: tracesOr("PROTOCOL"),
    headersVar: tracesOr("HEADERS"),
    timeoutVar: tracesOr("TIMEOUT")
  }).pipe(
    Config.flatMap(({ protocolVar, headersVar, timeoutVar }) =>
      Config.all({
        protocol: EnvConfig.string(protocolVar, "http/protobuf").pipe(
          Config.mapEffect((protocol) =>
            protocol === "http/json" || protocol === "http/protobuf"
              ? Effect.succeed<OtlpProtocol>(protocol)
              : rejectConfig({
                  variable: protocolVar,
                  expected: `http/protobuf or http/json${protocol === "grpc" ? " (grpc is not supported)" : ""}`,
                  got: protocol
                })
          )
        ),
        // Header values are credentials: never shown.
        headers: EnvConfig.parsed(headersVar, { expected: PAIRS, parse: keyValuePairs, secret: true }),
        resourceAttributes: EnvConfig.parsed("OTEL_RESOURCE_ATTRIBUTES", {
          expected: PAIRS,
          parse: keyValuePairs
        }),
        serviceName: EnvConfig.string("OTEL_SERVICE_NAME", DEFAULT_SERVICE_NAME),
        capture: EnvConfig.string("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
        exportIntervalMs: millis("OTEL_BSP_SCHEDULE_DELAY", 5000),
        exportTimeoutMs: millis(timeoutVar, 3000)
      })
    ),
    Config.map(
      (c): TelemetryConfig => ({
        tracesUrl,
        protocol: c.protocol,
        serviceName: c.serviceName,
        headers: Redacted.make(c.headers ?? {}, { label: "OTLP headers" }),
        resourceAttributes: c.resourceAttributes ?? {},
        captureContent: isTrue(c.capture),
        exportIntervalMs: c.exportIntervalMs,
        exportTimeoutMs: c.exportTimeoutMs
      })
    )
  )

/**
 * The OTLP exporter settings (the OTel SDK variables):
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (+ `/v1/traces`);
 * `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` `http/protobuf` (default) or `http/json`;
 * `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` (`Redacted`); `OTEL_SERVICE_NAME`; `OTEL_RESOURCE_ATTRIBUTES`;
 * `OTEL_SDK_DISABLED`. No endpoint (or disabled): `null`, nothing is exported. A bad value fails
 * with `InvalidConfig` naming the variable.
 */
export const telemetryConfig: Config.Config<TelemetryConfig | null> = Config.all({
  disabled: EnvConfig.string("OTEL_SDK_DISABLED"),
  tracesEndpoint: EnvConfig.url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", HTTP),
  endpoint: EnvConfig.url("OTEL_EXPORTER_OTLP_ENDPOINT", HTTP)
}).pipe(
  Config.flatMap(({ disabled, tracesEndpoint, endpoint }): Config.Config<TelemetryConfig | null> => {
    if (isTrue(disabled)) return Config.succeed(null)
    if (tracesEndpoint !== undefined) return exporterConfig(new URL(tracesEndpoint).toString())
    if (endpoint !== undefined)
      return exporterConfig(`${new URL(endpoint).toString().replace(/\/+$/, "")}/v1/traces`)
    return Config.succeed(null)
  })
)

/** `telemetryConfig` read from `env` at once (throws `InvalidConfig`). */
export const telemetryConfigFromEnv = (
  env: Readonly<Record<string, string | undefined>>
): TelemetryConfig | null => readEnvConfigSync(telemetryConfig, env)

/**
 * Effect's OTLP tracer (`effect/observability`) for `config`, or no layer at all (`null`):
 * the spans of `@aiops-harness/agent` and `core` then go to Effect's default tracer and nowhere
 * else. Buffered spans are flushed when the runtime is disposed.
 */
export const telemetryLayer = (config: TelemetryConfig | null): Layer.Layer<never> => {
  if (config === null) return Layer.empty
  const tracer = OtlpTracer.layer({
    url: config.tracesUrl,
    resource: { serviceName: config.serviceName, attributes: { ...config.resourceAttributes } },
    headers: revealed(config.headers),
    exportInterval: config.exportIntervalMs,
    shutdownTimeout: config.exportTimeoutMs
  }).pipe(
    Layer.provide(
      config.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
    ),
    Layer.provide(FetchHttpClient.layer),
    // Everything the tracer needs was read at startup: it reads nothing from the process env
    // (a malformed OTEL_RESOURCE_ATTRIBUTES there would kill the process).
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))
  )
  const capture = config.captureContent ? Layer.succeed(CaptureTraceContent, true) : Layer.empty
  return Layer.mergeAll(tracer, capture) as unknown as Layer.Layer<never>
}
