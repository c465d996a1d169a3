import { revealed, StoreError } from "@aiops-harness/core"
import { Effect } from "effect"
import { Cluster, Redis, type RedisOptions } from "ioredis"
import { defaultRedisCanonicalStoreConfig, type RedisCanonicalStoreConfig, reconnectDelay } from "./config.js"

/** The few commands the store uses, the same for a single node and a Cluster. */
export interface RedisConnection {
  /** `GET key` as bytes (a stored record may be compressed, see encoding.ts). */
  readonly get: (key: string) => Promise<Buffer | null>
  /** `SET key value PX ttl NX`: `"OK"` when written, `null` when the key exists. */
  readonly setPxNx: (key: string, value: string | Buffer, ttlMillis: number) => Promise<string | null>
  readonly evalsha: (sha1: string, key: string, arg: string | Buffer) => Promise<unknown>
  readonly eval: (script: string, key: string, arg: string | Buffer) => Promise<unknown>
  /** `CONFIG GET maxmemory-policy` and `maxmemory` (for the eviction-policy check). */
  readonly memoryConfig: () => Promise<{ readonly policy: string | null; readonly maxmemory: number | null }>
  readonly connect: () => Promise<void>
  readonly quit: () => Promise<unknown>
  readonly disconnect: () => void
}

/** Extra time the Effect-level timeouts allow on top of ioredis' own timeouts. */
export const TIMEOUT_GRACE_MS = 500

export const storeError = (operation: StoreError["operation"], cause: unknown): StoreError =>
  new StoreError({
    operation,
    reason:
      cause instanceof Error && /timed? ?out|ETIMEDOUT/i.test(cause.message) ? "TIMEOUT" : "UNAVAILABLE",
    cause
  })

/** `CLIENT SETNAME` accepts no spaces or newlines. */
const connectionName = (keyPrefix: string): string =>
  `aiops-stores:${keyPrefix.replace(/[^A-Za-z0-9:_.-]/g, "_")}`.slice(0, 96)

/**
 * Options that make every failure surface as a command error within a bounded time: no
 * offline queue, no per-request retries, a connect timeout. Commands are bounded by the store
 * (one timer for all pending commands, deadlines.ts), not by ioredis' `commandTimeout`: a timer per
 * command cost measurable time on every round trip. Reconnection never
 * gives up (a Redis restart of any length heals by itself) and its delay is capped, so
 * nothing piles up meanwhile: commands fail at once while the connection is down.
 */
const boundedOptions = (config: RedisCanonicalStoreConfig) => {
  const maxDelayMs =
    config.reconnectMaxDelayMs ?? defaultRedisCanonicalStoreConfig.reconnectMaxDelayMs ?? 2_000
  const retryStrategy = (times: number): number => reconnectDelay(times, maxDelayMs)
  const perNode = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: config.connectTimeoutMs,
    connectionName: connectionName(config.keyPrefix),
    autoResendUnfulfilledCommands: false
  } satisfies RedisOptions
  return { retryStrategy, perNode }
}

/**
 * ioredis' Cluster builds its node connections with `enableOfflineQueue: true` whatever
 * `redisOptions` says (its defaults win), so that a node's first command can wait for the
 * lazy connect. Once a node connection is ready its offline queue is switched off: from then
 * on a command to a node that is not writable fails at once instead of waiting in a queue.
 * (Node connections do not reconnect; a lost node is replaced after a slots refresh.)
 */
const failFastOnceReady = (node: Redis): void => {
  const off = () => {
    node.options.enableOfflineQueue = false
  }
  if (node.status === "ready") off()
  else node.once("ready", off)
}

const credentials = (url: string): Pick<RedisOptions, "username" | "password" | "tls"> => {
  const u = new URL(url)
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {})
  }
}

/** Builds an unconnected ioredis client (single node or Cluster) behind `RedisConnection`. */
export const createConnection = (config: RedisCanonicalStoreConfig): RedisConnection => {
  const { retryStrategy, perNode } = boundedOptions(config)
  const client: Redis | Cluster = config.cluster
    ? new Cluster(
        config.cluster.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          lazyConnect: true,
          enableOfflineQueue: false,
          enableReadyCheck: true,
          clusterRetryStrategy: retryStrategy,
          slotsRefreshTimeout: config.commandTimeoutMs,
          redisOptions: { ...perNode, ...credentials(revealed(config.url)) }
        }
      )
    : new Redis(revealed(config.url), { ...perNode, enableReadyCheck: true, retryStrategy })
  if (client instanceof Cluster) client.on("+node", failFastOnceReady)
  // Failures reach callers as command rejections; without a listener ioredis logs them.
  client.on("error", () => {})
  const c = client as Redis
  return {
    get: (key) => c.getBuffer(key),
    setPxNx: (key, value, ttlMillis) => c.set(key, value, "PX", ttlMillis, "NX"),
    evalsha: (sha1, key, arg) => c.evalsha(sha1, 1, key, arg),
    eval: (script, key, arg) => c.eval(script, 1, key, arg),
    memoryConfig: async () => {
      // On a Cluster, ask one master: every master of one deployment shares its config.
      const node: Redis = client instanceof Cluster ? (client.nodes("master")[0] ?? c) : c
      const [policy, maxmemory] = await Promise.all([
        node.config("GET", "maxmemory-policy") as Promise<string[]>,
        node.config("GET", "maxmemory") as Promise<string[]>
      ])
      const max = maxmemory[1] === undefined ? Number.NaN : Number(maxmemory[1])
      return { policy: policy[1] ?? null, maxmemory: Number.isFinite(max) ? max : null }
    },
    connect: () => c.connect(),
    quit: () => c.quit(),
    disconnect: () => c.disconnect()
  }
}

/** Connects within `connectTimeoutMs` or fails with `StoreError` (and stops reconnecting). */
export const connectBounded = (
  connection: RedisConnection,
  config: RedisCanonicalStoreConfig
): Effect.Effect<RedisConnection, StoreError> =>
  Effect.tryPromise({ try: () => connection.connect(), catch: (cause) => storeError("connect", cause) }).pipe(
    Effect.timeoutOrElse({
      duration: config.connectTimeoutMs + TIMEOUT_GRACE_MS,
      orElse: () => Effect.fail(new StoreError({ operation: "connect", reason: "TIMEOUT" }))
    }),
    Effect.tapError(() => Effect.sync(() => connection.disconnect())),
    Effect.as(connection)
  )

/** `QUIT` (bounded), then a hard disconnect whatever happened. Never fails. */
export const closeBounded = (
  connection: RedisConnection,
  config: RedisCanonicalStoreConfig
): Effect.Effect<void> =>
  Effect.tryPromise(() => connection.quit()).pipe(
    Effect.timeoutOrElse({ duration: config.commandTimeoutMs + TIMEOUT_GRACE_MS, orElse: () => Effect.void }),
    Effect.ignore,
    Effect.ensuring(Effect.sync(() => connection.disconnect()))
  )
