import { CanonicalInvocationStore } from "@aiops-harness/core"
import { projectingRecord, redisGate, redisUrl } from "@aiops-harness/core/testing"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { canonicalStoreLayerFromEnv, redisConfigFromEnv } from "../src/index.js"
import { uniquePrefix } from "./helpers.js"

const redisUp = await redisGate()

const roundTrip = Effect.gen(function* () {
  const store = yield* CanonicalInvocationStore
  const record = projectingRecord()
  yield* store.create(record)
  return Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))
})

describe("canonicalStoreLayerFromEnv", () => {
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
    expect(config).toMatchObject({
      url: "redis://:secret@10.0.0.1:6379",
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

  it("rejects malformed numbers and nodes with a TypeError naming the variable", () => {
    expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", CANONICAL_STORE_TTL_MS: "soon" })).toThrow(
      /CANONICAL_STORE_TTL_MS/
    )
    expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", REDIS_CLUSTER_NODES: "nohost" })).toThrow(
      /REDIS_CLUSTER_NODES/
    )
  })

  it("rejects a CANONICAL_STORE_KEY_PREFIX outside core's KEY_PREFIX_PATTERN with a TypeError naming it", () => {
    for (const prefix of ["{tenant}", "a b", "x".repeat(65)]) {
      const env = { CANONICAL_STORE_KEY_PREFIX: prefix }
      // Redis and in-memory alike.
      expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", ...env })).toThrow(TypeError)
      expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x", ...env })).toThrow(
        /CANONICAL_STORE_KEY_PREFIX/
      )
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
    expect(() => redisConfigFromEnv({ REDIS_URL: "redis://x" }, { keyPrefix: "a{b}" })).toThrow(TypeError)
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
})
