import {
  type CanonicalInvocationStore,
  type CanonicalStoreConfig,
  InMemoryCanonicalStore,
  isValidKeyPrefix,
  KEY_PREFIX_PATTERN,
  type StoreError
} from "@aiops-harness/core"
import type { Layer } from "effect"
import {
  defaultRedisCanonicalStoreConfig,
  type RedisCanonicalStoreConfig,
  validateRedisCanonicalStoreConfig
} from "./redis/config.js"
import { RedisCanonicalStore } from "./redis/store.js"

/** Environment variables the store is configured from (e.g. `process.env`). */
export type StoreEnv = Readonly<Record<string, string | undefined>>

const positiveInt = (env: StoreEnv, name: string): number | undefined => {
  const raw = env[name]
  if (raw === undefined || raw === "") return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new TypeError(`${name} must be a positive integer`)
  return n
}

/** `CANONICAL_STORE_KEY_PREFIX`, checked against core's `KEY_PREFIX_PATTERN`. */
const keyPrefix = (env: StoreEnv): string | undefined => {
  const raw = env.CANONICAL_STORE_KEY_PREFIX
  if (raw === undefined || raw === "") return undefined
  if (!isValidKeyPrefix(raw)) {
    throw new TypeError(
      `CANONICAL_STORE_KEY_PREFIX must match ${String(KEY_PREFIX_PATTERN)} (no hash-tag braces)`
    )
  }
  return raw
}

/** `host:port,host:port` -> cluster nodes. */
const clusterNodes = (raw: string): Array<{ host: string; port: number }> =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      const at = s.lastIndexOf(":")
      const port = Number(s.slice(at + 1))
      if (at <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
        throw new TypeError("REDIS_CLUSTER_NODES: expected a comma-separated list of host:port")
      }
      return { host: s.slice(0, at), port }
    })

/**
 * The Redis config the environment describes, or `undefined` without `REDIS_URL`.
 * Reads `REDIS_URL`, `REDIS_CLUSTER_NODES` (`host:port,...`), `CANONICAL_STORE_KEY_PREFIX`,
 * `CANONICAL_STORE_TTL_MS`, `CANONICAL_STORE_MAX_RECORD_BYTES`, `REDIS_COMMAND_TIMEOUT_MS`,
 * `REDIS_CONNECT_TIMEOUT_MS`, `REDIS_RECONNECT_MAX_DELAY_MS`, `CANONICAL_STORE_COMPRESS_ABOVE_BYTES`;
 * `overrides` win over both. Throws `TypeError` naming the variable
 * on malformed values, and `TypeError`/`RangeError` when the resulting config is invalid
 * (`validateRedisCanonicalStoreConfig`, e.g. a bad `overrides.keyPrefix`).
 */
export const redisConfigFromEnv = (
  env: StoreEnv,
  overrides: Partial<RedisCanonicalStoreConfig> = {}
): RedisCanonicalStoreConfig | undefined => {
  const url = overrides.url ?? env.REDIS_URL
  if (!url) return undefined
  const nodes = env.REDIS_CLUSTER_NODES ? clusterNodes(env.REDIS_CLUSTER_NODES) : undefined
  const d = defaultRedisCanonicalStoreConfig
  return validateRedisCanonicalStoreConfig({
    ...d,
    url,
    keyPrefix: keyPrefix(env) ?? d.keyPrefix,
    ttlMillis: positiveInt(env, "CANONICAL_STORE_TTL_MS") ?? d.ttlMillis,
    maxRecordBytes: positiveInt(env, "CANONICAL_STORE_MAX_RECORD_BYTES") ?? d.maxRecordBytes,
    commandTimeoutMs: positiveInt(env, "REDIS_COMMAND_TIMEOUT_MS") ?? d.commandTimeoutMs,
    connectTimeoutMs: positiveInt(env, "REDIS_CONNECT_TIMEOUT_MS") ?? d.connectTimeoutMs,
    reconnectMaxDelayMs: positiveInt(env, "REDIS_RECONNECT_MAX_DELAY_MS") ?? d.reconnectMaxDelayMs,
    compressAboveBytes: positiveInt(env, "CANONICAL_STORE_COMPRESS_ABOVE_BYTES") ?? d.compressAboveBytes,
    ...(nodes && nodes.length > 0 ? { cluster: { nodes } } : {}),
    ...overrides
  })
}

/**
 * `REDIS_URL` set -> the Redis store (Cluster too with `REDIS_CLUSTER_NODES`); otherwise the
 * embedded in-memory store (single process only; records vanish with it). Throws like
 * `redisConfigFromEnv` on malformed values, for the in-memory store too.
 */
export const canonicalStoreLayerFromEnv = (
  env: StoreEnv = process.env,
  overrides: Partial<RedisCanonicalStoreConfig> = {}
): Layer.Layer<CanonicalInvocationStore, StoreError> => {
  const redis = redisConfigFromEnv(env, overrides)
  if (redis) return RedisCanonicalStore.layer(redis)
  const memory: Partial<CanonicalStoreConfig> = {
    keyPrefix: overrides.keyPrefix ?? keyPrefix(env),
    ttlMillis: overrides.ttlMillis ?? positiveInt(env, "CANONICAL_STORE_TTL_MS"),
    maxRecordBytes: overrides.maxRecordBytes ?? positiveInt(env, "CANONICAL_STORE_MAX_RECORD_BYTES")
  }
  const defined = Object.fromEntries(Object.entries(memory).filter(([, v]) => v !== undefined))
  return InMemoryCanonicalStore.layer(defined)
}
