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

  it.skipIf(!redisUp)("with REDIS_URL: the Redis store", async () => {
    const layer = canonicalStoreLayerFromEnv(
      { REDIS_URL: redisUrl() },
      { keyPrefix: uniquePrefix("env"), ttlMillis: 2_000 }
    )
    const got = await Effect.runPromise(Effect.provide(roundTrip, layer))
    expect(got.status).toBe("PROJECTING")
  })
})
