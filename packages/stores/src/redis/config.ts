import { defaultCanonicalStoreConfig, revealed, validateStoreConfig } from "@aiops-harness/core"
import type { Redacted } from "effect"

/** Configuration of the Redis-backed canonical invocation store. */
export interface RedisCanonicalStoreConfig {
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://...` (TLS). With `cluster` set,
   * only its credentials and scheme are used; the nodes come from `cluster.nodes`. `Redacted`
   * keeps a password out of logs and errors (the environment config always gives one).
   */
  readonly url: string | Redacted.Redacted<string>
  /**
   * Key prefix, e.g. `aiops`: keys are `<prefix>:run:{<runId>}:inv:<toolCallId>`. Must match
   * core's `KEY_PREFIX_PATTERN` (`[A-Za-z0-9_.:-]{1,64}`, no hash-tag braces).
   */
  readonly keyPrefix: string
  /** Time to live of a record, set at creation, in milliseconds. */
  readonly ttlMillis: number
  /** Maximum serialized size of one record in UTF-8 bytes. */
  readonly maxRecordBytes: number
  /** Client-side timeout of one command: the store's own timer, one per command (ioredis `commandTimeout` is not used). */
  readonly commandTimeoutMs: number
  /** Bound on establishing the connection (TCP connect and handshake). */
  readonly connectTimeoutMs: number
  /** Set to talk to a Redis Cluster (ioredis `Cluster`) started from these nodes. */
  readonly cluster?: { readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }> }
  /**
   * Cap of the delay between reconnection attempts after a connection loss. Reconnection
   * never gives up: the delays are `min(50 * 2^n, reconnectMaxDelayMs)` ms (no jitter), and
   * commands issued meanwhile fail at once with `StoreError` (no offline queue). Default 2000.
   */
  readonly reconnectMaxDelayMs?: number
  /**
   * A terminal (READY/ERROR) record whose JSON is larger than this many UTF-8 bytes is stored
   * DEFLATE-compressed (node:zlib, level 1) behind a header that reads tell apart (see
   * encoding.ts). Default {@link DEFAULT_COMPRESS_ABOVE_BYTES}; set it to `maxRecordBytes` to never
   * compress. `maxRecordBytes` still bounds the uncompressed JSON.
   */
  readonly compressAboveBytes?: number
}

/** Default compression threshold: 16 KiB (a logs or rows raw response is 100+ KB, a request < 16 KiB). */
export const DEFAULT_COMPRESS_ABOVE_BYTES = 16 * 1024

/** Defaults of everything but `url`. */
export const defaultRedisCanonicalStoreConfig: Omit<RedisCanonicalStoreConfig, "url"> = {
  keyPrefix: defaultCanonicalStoreConfig.keyPrefix,
  ttlMillis: defaultCanonicalStoreConfig.ttlMillis,
  maxRecordBytes: defaultCanonicalStoreConfig.maxRecordBytes,
  commandTimeoutMs: 2_000,
  connectTimeoutMs: 3_000,
  reconnectMaxDelayMs: 2_000,
  compressAboveBytes: DEFAULT_COMPRESS_ABOVE_BYTES
}

/** First reconnection delay; each further attempt doubles it up to `reconnectMaxDelayMs`. */
export const RECONNECT_BASE_DELAY_MS = 50

/** Delay before reconnection attempt `attempt` (1-based): unbounded attempts, capped delay. */
export const reconnectDelay = (attempt: number, maxDelayMs: number): number =>
  Math.min(RECONNECT_BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1), maxDelayMs)

const positiveInteger = (name: string, value: unknown): void => {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new RangeError(`redis canonical store: ${name} must be a positive integer, got ${String(value)}`)
  }
}

/**
 * Checks a Redis store configuration eagerly (a bad one is a programming error): the key
 * prefix, TTL and size limit as core's `validateStoreConfig` (`TypeError`/`RangeError`), the
 * timeouts, reconnection cap and compression threshold positive integers (`RangeError`), the url a string
 * (`TypeError`) and the cluster nodes non-empty (`TypeError`). Returns the config.
 */
export const validateRedisCanonicalStoreConfig = <C extends RedisCanonicalStoreConfig>(config: C): C => {
  const url: unknown = revealed(config.url)
  if (typeof url !== "string" || url.length === 0) {
    throw new TypeError("redis canonical store: url must be a non-empty string")
  }
  validateStoreConfig({
    keyPrefix: config.keyPrefix,
    ttlMillis: config.ttlMillis,
    maxRecordBytes: config.maxRecordBytes
  })
  positiveInteger("ttlMillis", config.ttlMillis)
  positiveInteger("maxRecordBytes", config.maxRecordBytes)
  positiveInteger("commandTimeoutMs", config.commandTimeoutMs)
  positiveInteger("connectTimeoutMs", config.connectTimeoutMs)
  if (config.reconnectMaxDelayMs !== undefined)
    positiveInteger("reconnectMaxDelayMs", config.reconnectMaxDelayMs)
  if (config.compressAboveBytes !== undefined)
    positiveInteger("compressAboveBytes", config.compressAboveBytes)
  if (config.cluster !== undefined && config.cluster.nodes.length === 0) {
    throw new TypeError("redis canonical store: cluster.nodes must not be empty")
  }
  return config
}
