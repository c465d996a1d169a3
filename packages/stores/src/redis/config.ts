import { defaultCanonicalStoreConfig } from "@aiops-harness/core"

/** Configuration of the Redis-backed canonical invocation store. */
export interface RedisCanonicalStoreConfig {
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://...` (TLS). With `cluster` set,
   * only its credentials and scheme are used; the nodes come from `cluster.nodes`.
   */
  readonly url: string
  /** Key prefix, e.g. `aiops`: keys are `<prefix>:run:{<runId>}:inv:<toolCallId>`. */
  readonly keyPrefix: string
  /** Time to live of a record, set at creation, in milliseconds. */
  readonly ttlMillis: number
  /** Maximum serialized size of one record in UTF-8 bytes. */
  readonly maxRecordBytes: number
  /** Client-side timeout of one command (ioredis `commandTimeout`). */
  readonly commandTimeoutMs: number
  /** Bound on establishing the connection (TCP connect and handshake). */
  readonly connectTimeoutMs: number
  /** Set to talk to a Redis Cluster (ioredis `Cluster`) started from these nodes. */
  readonly cluster?: { readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }> }
  /**
   * Reconnection attempts after a connection loss before the client gives up for good
   * (commands then fail with `StoreError` UNAVAILABLE until the layer is rebuilt). Default 20.
   */
  readonly maxReconnectAttempts?: number
}

/** Defaults of everything but `url`. */
export const defaultRedisCanonicalStoreConfig: Omit<RedisCanonicalStoreConfig, "url"> = {
  keyPrefix: defaultCanonicalStoreConfig.keyPrefix,
  ttlMillis: defaultCanonicalStoreConfig.ttlMillis,
  maxRecordBytes: defaultCanonicalStoreConfig.maxRecordBytes,
  commandTimeoutMs: 2_000,
  connectTimeoutMs: 3_000,
  maxReconnectAttempts: 20
}
