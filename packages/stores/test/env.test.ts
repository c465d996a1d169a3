import { CanonicalInvocationStore, InvalidConfig, readEnvConfigSync, revealed } from "@aiops-harness/core"
import { invalidConfigOf, projectingRecord, redisGate, redisUrl } from "@aiops-harness/core/testing"
import { ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CanonicalStoreSettings,
  canonicalStoreConfig,
  canonicalStoreLayerConfig,
  canonicalStoreLayerFromEnv,
  type RedisCanonicalStoreConfig,
  withStoreOverrides
} from "../src/index.js"
import { uniquePrefix } from "./helpers.js"

const redisUp = await redisGate()

type Env = Record<string, string | undefined>

const settings = (env: Env): CanonicalStoreSettings => readEnvConfigSync(canonicalStoreConfig, env)

/** The Redis settings of `env`, `undefined` when it chose the in-memory store. */
const redisConfigFromEnv = (
  env: Env,
  overrides: Partial<RedisCanonicalStoreConfig> = {}
): RedisCanonicalStoreConfig | undefined => {
  const s = withStoreOverrides(settings(env), overrides)
  return s._tag === "Redis" ? s.redis : undefined
}

const invalid = (env: Env): InvalidConfig => invalidConfigOf(canonicalStoreConfig, env)

const roundTrip = Effect.gen(function* () {
  const store = yield* CanonicalInvocationStore
  const record = projectingRecord()
  yield* store.create(record)
  return Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))
})

describe("canonicalStoreConfig / canonicalStoreLayerFromEnv", () => {
  it("without REDIS_URL: the embedded in-memory store", async () => {
    expect(redisConfigFromEnv({})).toBeUndefined()
    const got = await Effect.runPromise(Effect.provide(roundTrip, canonicalStoreLayerFromEnv({})))
    expect(got.status).toBe("PROJECTING")
  })

  it("in-memory honours CANONICAL_STORE_MAX_RECORD_BYTES", async () => {
    const layer = canonicalStoreLayerFromEnv({ CANONICAL_STORE_MAX_RECORD_BYTES: "10" })
    const error = await Effect.runPromise(Effect.provide(Effect.flip(roundTrip), layer))
    expect(error._tag).toBe("RecordTooLarge")
  })

  it("reads the Redis settings, cluster nodes included", () => {
    const config = redisConfigFromEnv({
      REDIS_URL: "redis://:secret@10.0.0.1:6379",
      REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7001",
      CANONICAL_STORE_KEY_PREFIX: "tenant-a",
      CANONICAL_STORE_TTL_MS: "5000",
      REDIS_COMMAND_TIMEOUT_MS: "250"
    })
    expect(Redacted.isRedacted(config?.url)).toBe(true)
    expect(revealed(config!.url)).toBe("redis://:secret@10.0.0.1:6379")
    expect(JSON.stringify(config)).not.toContain("secret")
    expect(config).toMatchObject({
      keyPrefix: "tenant-a",
      ttlMillis: 5000,
      commandTimeoutMs: 250,
      cluster: {
        nodes: [
          { host: "10.0.0.1", port: 7000 },
          { host: "10.0.0.2", port: 7001 }
        ]
      }
    })
  })

  it("rejects malformed numbers and nodes with InvalidConfig naming the variable", () => {
    expect(invalid({ REDIS_URL: "redis://x", CANONICAL_STORE_TTL_MS: "soon" }).message).toBe(
      'CANONICAL_STORE_TTL_MS: expected an integer in 1..2147483647, got "soon"'
    )
    expect(invalid({ REDIS_URL: "redis://x", REDIS_CLUSTER_NODES: "nohost" }).message).toBe(
      'REDIS_CLUSTER_NODES: expected a comma-separated list of host:port, got "nohost"'
    )
    expect(invalid({ REDIS_CLUSTER_NODES: "h:1,h:70000" }).variable).toBe("REDIS_CLUSTER_NODES")
    expect(invalid({ REDIS_CLUSTER_NODES: "h:1x" }).variable).toBe("REDIS_CLUSTER_NODES")
  })

  it("integers are strict and milliseconds capped at 2^31-1 (no silent NaN, no 12abc)", () => {
    for (const [name, text] of [
      ["CANONICAL_STORE_TTL_MS", "12abc"],
      ["CANONICAL_STORE_TTL_MS", "2147483648"],
      ["REDIS_COMMAND_TIMEOUT_MS", "1e3"],
      ["REDIS_CONNECT_TIMEOUT_MS", "0"],
      ["REDIS_RECONNECT_MAX_DELAY_MS", "-5"],
      ["CANONICAL_STORE_MAX_RECORD_BYTES", "1.5"],
      ["CANONICAL_STORE_COMPRESS_ABOVE_BYTES", "lots"]
    ] as const) {
      const error = invalid({ REDIS_URL: "redis://x", [name]: text })
      expect(error.variable).toBe(name)
      expect(error.got).toBe(text)
    }
    expect(
      redisConfigFromEnv({ REDIS_URL: "redis://x", CANONICAL_STORE_TTL_MS: "2147483647" })?.ttlMillis
    ).toBe(2_147_483_647)
  })

  it("a REDIS_URL that is not a redis URL is refused without showing it", () => {
    const error = invalid({ REDIS_URL: "http://:hunter2@h:1" })
    expect(error.message).toBe('REDIS_URL: expected a redis: or rediss: URL, got "<redacted>"')
  })

  it("rejects a CANONICAL_STORE_KEY_PREFIX outside core's KEY_PREFIX_PATTERN with InvalidConfig naming it", () => {
    for (const prefix of ["{tenant}", "a b", "x".repeat(65)]) {
      const env = { CANONICAL_STORE_KEY_PREFIX: prefix }
      // Redis and in-memory alike.
      expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", ...env })).toThrow(InvalidConfig)
      expect(invalid({ REDIS_URL: "redis://x", ...env }).variable).toBe("CANONICAL_STORE_KEY_PREFIX")
      expect(() => canonicalStoreLayerFromEnv({ REDIS_URL: "redis://x", ...env })).toThrow(
        /CANONICAL_STORE_KEY_PREFIX/
      )
      expect(() => canonicalStoreLayerFromEnv(env)).toThrow(/CANONICAL_STORE_KEY_PREFIX/)
    }
    expect(redisConfigFromEnv({ REDIS_URL: "redis://x", CANONICAL_STORE_KEY_PREFIX: "" })?.keyPrefix).toBe(
      "aiops"
    )
  })

  it("validates the resulting config: a bad overrides.keyPrefix throws too", () => {
    expect(() => canonicalStoreLayerFromEnv({ REDIS_URL: "redis://x" }, { keyPrefix: "a{b}" })).toThrow(
      TypeError
    )
    expect(() => canonicalStoreLayerFromEnv({}, { keyPrefix: "a{b}" })).toThrow(TypeError)
  })

  it("reads REDIS_RECONNECT_MAX_DELAY_MS (default 2000)", () => {
    expect(redisConfigFromEnv({ REDIS_URL: "redis://x" })?.reconnectMaxDelayMs).toBe(2_000)
    expect(
      redisConfigFromEnv({ REDIS_URL: "redis://x", REDIS_RECONNECT_MAX_DELAY_MS: "500" })?.reconnectMaxDelayMs
    ).toBe(500)
    expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", REDIS_RECONNECT_MAX_DELAY_MS: "0" })).toThrow(
      /REDIS_RECONNECT_MAX_DELAY_MS/
    )
  })

  it("without REDIS_URL each layer build is its own in-memory store", async () => {
    const env = { CANONICAL_STORE_KEY_PREFIX: "mem-env" }
    const record = await Effect.runPromise(Effect.provide(roundTrip, canonicalStoreLayerFromEnv(env)))
    const elsewhere = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Effect.service(CanonicalInvocationStore), (s) =>
          s.get(record.runId, record.toolCallId)
        ),
        canonicalStoreLayerFromEnv(env)
      )
    )
    expect(Option.isNone(elsewhere)).toBe(true)
  })

  it.skipIf(!redisUp)(
    "with REDIS_URL: the Redis store (a record outlives the layer that wrote it)",
    async () => {
      const env = { REDIS_URL: redisUrl(), CANONICAL_STORE_KEY_PREFIX: uniquePrefix("env") }
      const overrides = { ttlMillis: 10_000 }
      const written = await Effect.runPromise(
        Effect.provide(roundTrip, canonicalStoreLayerFromEnv(env, overrides))
      )
      expect(written.status).toBe("PROJECTING")
      // A second, independent build (a new connection) reads it back: not an in-memory map.
      const read = await Effect.runPromise(
        Effect.provide(
          Effect.flatMap(Effect.service(CanonicalInvocationStore), (s) =>
            s.get(written.runId, written.toolCallId)
          ),
          canonicalStoreLayerFromEnv(env, overrides)
        )
      )
      expect(Option.getOrThrow(read)).toEqual(written)
    }
  )

  it("canonicalStoreLayerConfig reads the ambient ConfigProvider when built; a bad value fails the layer", async () => {
    const provider = (env: Env) => ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))
    const got = await Effect.runPromise(
      Effect.provide(roundTrip, canonicalStoreLayerConfig().pipe(Layer.provide(provider({}))))
    )
    expect(got.status).toBe("PROJECTING")
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.provide(
          roundTrip,
          canonicalStoreLayerConfig().pipe(Layer.provide(provider({ CANONICAL_STORE_TTL_MS: "x" })))
        )
      )
    )
    expect(error._tag).toBe("InvalidConfig")
  })

  it("withStoreOverrides: a url override turns the in-memory choice into Redis", () => {
    const s = withStoreOverrides(settings({ CANONICAL_STORE_TTL_MS: "5000" }), { url: "redis://h:1" })
    expect(s._tag).toBe("Redis")
    expect(s._tag === "Redis" && s.redis.ttlMillis).toBe(5000)
    const memory = withStoreOverrides(settings({}), { keyPrefix: "over" })
    expect(memory).toEqual({ _tag: "InMemory", memory: { keyPrefix: "over" } })
  })
})
