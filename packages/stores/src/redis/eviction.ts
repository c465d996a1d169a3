import { Effect } from "effect"
import { closeBounded, connectBounded, createConnection, TIMEOUT_GRACE_MS } from "./client.js"
import type { RedisCanonicalStoreConfig } from "./config.js"

/** What the eviction-policy check found. */
export interface RedisEvictionCheck {
  /** `maxmemory-policy`, or `null` when it could not be read (CONFIG disabled, Redis down). */
  readonly policy: string | null
  /** `maxmemory` in bytes (0: no limit), or `null` when unknown. */
  readonly maxmemoryBytes: number | null
  /** Redis answers writes with OOM errors once full instead of evicting (`noeviction`). */
  readonly refusesWrites: boolean
  /** A line for the operator, or `null` when nothing needs saying. */
  readonly warning: string | null
}

/** Policies that only evict keys with a TTL: every canonical record has one. */
export const RECOMMENDED_EVICTION_POLICIES: ReadonlySet<string> = new Set([
  "volatile-ttl",
  "volatile-lru",
  "volatile-lfu",
  "allkeys-lru",
  "allkeys-lfu"
])

/** Pure verdict on a policy and a memory limit (see the stores README, "Sizing"). */
export const evaluateEvictionPolicy = (
  policy: string | null,
  maxmemoryBytes: number | null
): RedisEvictionCheck => {
  if (policy === null) {
    return {
      policy,
      maxmemoryBytes,
      refusesWrites: false,
      warning:
        "redis: could not read maxmemory-policy (CONFIG GET refused or failed); make sure it evicts (volatile-ttl)"
    }
  }
  if (policy === "noeviction") {
    const limit =
      maxmemoryBytes === null || maxmemoryBytes === 0
        ? "no maxmemory set: memory grows until the host runs out"
        : `at maxmemory (${maxmemoryBytes} bytes) every write fails with OOM`
    return {
      policy,
      maxmemoryBytes,
      refusesWrites: true,
      warning: `redis: maxmemory-policy is noeviction, ${limit}; tool calls then fail closed (STORE_ERROR). Set maxmemory and maxmemory-policy volatile-ttl`
    }
  }
  return { policy, maxmemoryBytes, refusesWrites: false, warning: null }
}

/**
 * Reads `maxmemory-policy` and `maxmemory` over a short-lived connection (bounded like the store's)
 * and evaluates them. Never fails: an unreadable config is a warning, not a startup error.
 */
export const checkRedisEvictionPolicy = (
  config: RedisCanonicalStoreConfig
): Effect.Effect<RedisEvictionCheck> =>
  Effect.acquireUseRelease(
    Effect.suspend(() => connectBounded(createConnection(config), config)),
    (connection) =>
      Effect.tryPromise(() => connection.memoryConfig()).pipe(
        Effect.timeoutOrElse({
          duration: config.commandTimeoutMs + TIMEOUT_GRACE_MS,
          orElse: () => Effect.fail(new Error("timeout"))
        })
      ),
    (connection) => closeBounded(connection, config)
  ).pipe(
    Effect.map(({ policy, maxmemory }) => evaluateEvictionPolicy(policy, maxmemory)),
    Effect.orElseSucceed(() => evaluateEvictionPolicy(null, null))
  )

/** {@link checkRedisEvictionPolicy}, logging its warning (Effect's logger) when there is one. */
export const warnOnRedisEvictionPolicy = (
  config: RedisCanonicalStoreConfig
): Effect.Effect<RedisEvictionCheck> =>
  Effect.tap(checkRedisEvictionPolicy(config), (check) =>
    check.warning === null ? Effect.void : Effect.logWarning(check.warning)
  )
