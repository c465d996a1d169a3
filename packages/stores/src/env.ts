import {
  type CanonicalInvocationStore,
  type CanonicalStoreConfig,
  EnvConfig,
  InMemoryCanonicalStore,
  type InvalidConfig,
  isValidKeyPrefix,
  KEY_PREFIX_PATTERN,
  MAX_TIMER_MS,
  readEnvConfig,
  readEnvConfigSync,
  type StoreError
} from "@aiops-harness/core"
import { Config, Effect, Layer, type Redacted } from "effect"
import { defaultRedisCanonicalStoreConfig, type RedisCanonicalStoreConfig } from "./redis/config.js"
import { RedisCanonicalStore } from "./redis/store.js"

/** Environment variables the store is configured from (e.g. `process.env`). */
export type StoreEnv = Readonly<Record<string, string | undefined>>

/** Which canonical store the configuration chose, with its settings. */
export type CanonicalStoreSettings =
  | { readonly _tag: "Redis"; readonly redis: RedisCanonicalStoreConfig }
  | { readonly _tag: "InMemory"; readonly memory: Partial<CanonicalStoreConfig> }

const positive = (name: string) => EnvConfig.optionalInt(name, { min: 1 })
const millis = (name: string) => EnvConfig.optionalInt(name, { min: 1, max: MAX_TIMER_MS })

/** `host:port,host:port` -> cluster nodes (`undefined`: malformed). */
const clusterNodes = (text: string): Array<{ host: string; port: number }> | undefined => {
  const nodes: Array<{ host: string; port: number }> = []
  for (const part of text.split(",")) {
    const s = part.trim()
    if (s.length === 0) continue
    const at = s.lastIndexOf(":")
    const portText = s.slice(at + 1)
    const port = Number(portText)
    if (at <= 0 || !/^\d+$/.test(portText) || port <= 0 || port > 65535) return undefined
    nodes.push({ host: s.slice(0, at), port })
  }
  return nodes.length > 0 ? nodes : undefined
}

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>

/**
 * The canonical store the environment describes: Redis with `REDIS_URL` (a `Redacted` URL; Cluster
 * too with `REDIS_CLUSTER_NODES` = `host:port,...`), the embedded in-memory store otherwise. Also
 * reads `CANONICAL_STORE_KEY_PREFIX`, `CANONICAL_STORE_TTL_MS`, `CANONICAL_STORE_MAX_RECORD_BYTES`,
 * `REDIS_COMMAND_TIMEOUT_MS`, `REDIS_CONNECT_TIMEOUT_MS`, `REDIS_RECONNECT_MAX_DELAY_MS`,
 * `CANONICAL_STORE_COMPRESS_ABOVE_BYTES` (strict positive integers; milliseconds at most
 * 2147483647). A malformed value fails with `InvalidConfig` naming the variable.
 */
export const canonicalStoreConfig: Config.Config<CanonicalStoreSettings> = Config.all({
  url: EnvConfig.secretUrl("REDIS_URL", { protocols: ["redis:", "rediss:"] }),
  nodes: EnvConfig.parsed("REDIS_CLUSTER_NODES", {
    expected: "a comma-separated list of host:port",
    parse: clusterNodes
  }),
  keyPrefix: EnvConfig.parsed("CANONICAL_STORE_KEY_PREFIX", {
    expected: `a key prefix matching ${String(KEY_PREFIX_PATTERN)} (no hash-tag braces)`,
    parse: (text) => (isValidKeyPrefix(text) ? text : undefined)
  }),
  ttlMillis: millis("CANONICAL_STORE_TTL_MS"),
  maxRecordBytes: positive("CANONICAL_STORE_MAX_RECORD_BYTES"),
  commandTimeoutMs: millis("REDIS_COMMAND_TIMEOUT_MS"),
  connectTimeoutMs: millis("REDIS_CONNECT_TIMEOUT_MS"),
  reconnectMaxDelayMs: millis("REDIS_RECONNECT_MAX_DELAY_MS"),
  compressAboveBytes: positive("CANONICAL_STORE_COMPRESS_ABOVE_BYTES")
}).pipe(
  Config.map(({ url, nodes, ...rest }): CanonicalStoreSettings => {
    const common = {
      keyPrefix: rest.keyPrefix,
      ttlMillis: rest.ttlMillis,
      maxRecordBytes: rest.maxRecordBytes
    }
    if (url === undefined) return { _tag: "InMemory", memory: defined(common) }
    return {
      _tag: "Redis",
      redis: {
        ...defaultRedisCanonicalStoreConfig,
        ...defined(rest),
        url,
        ...(nodes !== undefined ? { cluster: { nodes } } : {})
      }
    }
  })
)

/**
 * Settings with `overrides` applied (tests: a unique `keyPrefix`). An `overrides.url` turns the
 * in-memory choice into Redis.
 */
export const withStoreOverrides = (
  settings: CanonicalStoreSettings,
  overrides: Partial<RedisCanonicalStoreConfig>
): CanonicalStoreSettings => {
  if (settings._tag === "Redis") return { _tag: "Redis", redis: { ...settings.redis, ...overrides } }
  if (overrides.url !== undefined) {
    const url: string | Redacted.Redacted<string> = overrides.url
    return {
      _tag: "Redis",
      redis: { ...defaultRedisCanonicalStoreConfig, ...settings.memory, ...overrides, url }
    }
  }
  const { keyPrefix, ttlMillis, maxRecordBytes } = overrides
  return {
    _tag: "InMemory",
    memory: { ...settings.memory, ...defined({ keyPrefix, ttlMillis, maxRecordBytes }) }
  }
}

/**
 * The store the settings chose. Settings are checked when called (`TypeError`/`RangeError`
 * for values no environment can produce, e.g. a bad `overrides.keyPrefix`).
 */
export const canonicalStoreLayer = (
  settings: CanonicalStoreSettings
): Layer.Layer<CanonicalInvocationStore, StoreError> =>
  settings._tag === "Redis"
    ? RedisCanonicalStore.layer(settings.redis)
    : InMemoryCanonicalStore.layer(settings.memory)

/** Reads `config` (default {@link canonicalStoreConfig}) when built, then the store it chose. */
export const canonicalStoreLayerConfig = (
  config: Config.Config<CanonicalStoreSettings> = canonicalStoreConfig
): Layer.Layer<CanonicalInvocationStore, StoreError | InvalidConfig> =>
  Layer.unwrap(Effect.map(readEnvConfig(config), canonicalStoreLayer))

/**
 * `canonicalStoreLayer` of `env` read at once: throws `InvalidConfig` naming the variable on a
 * malformed value (for the in-memory store too).
 */
export const canonicalStoreLayerFromEnv = (
  env: StoreEnv = process.env,
  overrides: Partial<RedisCanonicalStoreConfig> = {}
): Layer.Layer<CanonicalInvocationStore, StoreError> =>
  canonicalStoreLayer(withStoreOverrides(readEnvConfigSync(canonicalStoreConfig, env), overrides))
