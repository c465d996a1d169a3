import {
  CanonicalInvocationStore,
  canonicalInvocationKey,
  encodeInvocation,
  rememberJsonText,
  type StoreError
} from "@aiops-harness/core"
import { errorRecord, projectingRecord, readyRecord, redisGate, redisUrl } from "@aiops-harness/core/testing"
import { canonicalStoreConformance } from "@aiops-harness/core/testing/conformance"
import { Effect, Exit, type Layer, Option } from "effect"
import type { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  canonicalStoreLayerFromEnv,
  checkRedisEvictionPolicy,
  evaluateEvictionPolicy,
  RedisCanonicalStore,
  type RedisCanonicalStoreConfig
} from "../src/index.js"
import { TIMEOUT_GRACE_MS } from "../src/redis/client.js"
import { PROJECTING_SUFFIX } from "../src/redis/transition-script.js"
import {
  baseConfig,
  eventuallyEffect,
  faultyProxy,
  hangBound,
  rawClient,
  silentServer,
  sleep,
  uniquePrefix,
  unusedPort
} from "./helpers.js"

const redisUp = await redisGate()
const url = redisUrl()

const runWith = <A, E>(
  config: RedisCanonicalStoreConfig,
  program: Effect.Effect<A, E, CanonicalInvocationStore>
): Promise<A> =>
  Effect.runPromise(Effect.provide(program, RedisCanonicalStore.layer(config)) as Effect.Effect<A, unknown>)

/** Runs `effect`, returning its exit and how long it took in wall-clock milliseconds. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const started = Date.now()
    const exit = yield* Effect.exit(effect)
    return { exit, elapsed: Date.now() - started }
  })

const storeErrorOf = <A>(exit: Exit.Exit<A, unknown>): StoreError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure, got a success")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error?._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  const e = error.error as { _tag?: string }
  expect(e._tag).toBe("StoreError")
  return e as StoreError
}

/** Worst case of one failing command: ioredis' timeout, then the Effect-level one. */
const commandBound = (config: RedisCanonicalStoreConfig) =>
  hangBound(config.commandTimeoutMs + TIMEOUT_GRACE_MS)

// Records of the non-TTL tests outlive any test; the TTL tests get stores with a short TTL
// (`expiry`), judged by bounds and retried with a longer TTL when the machine was too slow.
const CONFORMANCE_TTL_MS = 4_000
const EXPIRY_TTL_MS = 250

canonicalStoreConformance({
  name: `redis single node (${url})`,
  layer: () => RedisCanonicalStore.layer(baseConfig(url, { ttlMillis: CONFORMANCE_TTL_MS })),
  ttlMillis: CONFORMANCE_TTL_MS,
  maxRecordBytes: 4_096,
  advance: (millis) => Effect.sleep(millis),
  expiry: {
    layer: (ttlMillis) => RedisCanonicalStore.layer(baseConfig(url, { ttlMillis })),
    ttlMillis: EXPIRY_TTL_MS
  },
  skip: !redisUp
})

// Every terminal record compressed (threshold 1 byte): reads and transitions see the header.
canonicalStoreConformance({
  name: `redis single node, compressed records (${url})`,
  layer: () =>
    RedisCanonicalStore.layer(baseConfig(url, { ttlMillis: CONFORMANCE_TTL_MS, compressAboveBytes: 1 })),
  ttlMillis: CONFORMANCE_TTL_MS,
  maxRecordBytes: 4_096,
  advance: (millis) => Effect.sleep(millis),
  expiry: {
    layer: (ttlMillis) => RedisCanonicalStore.layer(baseConfig(url, { ttlMillis, compressAboveBytes: 1 })),
    ttlMillis: EXPIRY_TTL_MS
  },
  skip: !redisUp
})

describe.skipIf(!redisUp)("Redis canonical store: compression of large records", () => {
  let raw: Redis
  beforeAll(() => {
    raw = rawClient(url)
  })
  afterAll(async () => {
    await raw.quit()
  })

  const bigReady = (record: ReturnType<typeof projectingRecord>) => {
    const entries = Array.from({ length: 2_000 }, (_, i) => ({
      timestamp: "2026-01-01T00:00:00Z",
      level: "ERROR",
      message: `Connection ${i} to 10.0.0.${i % 250} timed out`
    }))
    return { ...readyRecord(record), rawResponse: { entries } }
  }

  it("a raw response whose text the boundary remembered is stored as those bytes, compressed or not, at the exact size limit", async () => {
    for (const compressAboveBytes of [1, 1 << 20]) {
      const record = projectingRecord()
      const ready = bigReady(record)
      // Non-ASCII text: the byte count and the bytes written must agree.
      const rawResponse = { ...ready.rawResponse, note: "é\u{1F600}€" }
      rememberJsonText(rawResponse, JSON.stringify(rawResponse))
      const remembered = { ...ready, rawResponse }
      const bytes = Buffer.byteLength(encodeInvocation(remembered))
      const config = baseConfig(url, { ttlMillis: 60_000, maxRecordBytes: bytes, compressAboveBytes })
      await runWith(
        config,
        Effect.gen(function* () {
          const store = yield* CanonicalInvocationStore
          yield* store.create(record)
          const tooBig = yield* Effect.flip(
            RedisCanonicalStore.make({ ...config, maxRecordBytes: bytes - 1 }).pipe(
              Effect.flatMap((small) => small.transition(remembered)),
              Effect.scoped
            )
          )
          expect(tooBig).toMatchObject({ _tag: "RecordTooLarge", bytes, limit: bytes - 1 })
          yield* store.transition(remembered)
          expect(Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))).toEqual(remembered)
        })
      )
      const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
      const stored = (await raw.getBuffer(key))!
      if (compressAboveBytes === 1) expect(stored[0]).toBe(0)
      else expect(stored.equals(Buffer.from(encodeInvocation(remembered)))).toBe(true)
      await raw.del(key)
    }
  })

  it("a READY record above the threshold is stored compressed, read back equal, refused a 2nd transition", async () => {
    const config = baseConfig(url, { ttlMillis: 60_000, maxRecordBytes: 1 << 20, compressAboveBytes: 1024 })
    const record = projectingRecord()
    const ready = bigReady(record)
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        // PROJECTING is never compressed: the transition script decodes it as JSON.
        expect((yield* Effect.promise(() => raw.getBuffer(key)))![0]).toBe("{".charCodeAt(0))
        yield* store.transition(ready)
        const stored = (yield* Effect.promise(() => raw.getBuffer(key)))!
        expect(stored.subarray(0, 10).toString("latin1")).toBe("\u0000Z1:READY\n")
        expect(stored.length * 5).toBeLessThan(JSON.stringify(ready).length)
        expect(Option.getOrThrow(yield* store.get(record.runId, record.toolCallId))).toEqual(ready)
        const again = yield* Effect.flip(store.transition(errorRecord(record)))
        expect(again).toMatchObject({ _tag: "IllegalTransition", from: "READY", to: "ERROR" })
      })
    )
    expect(await raw.pttl(key)).toBeGreaterThan(0)
    await raw.del(key)
  })

  it("maxRecordBytes bounds the uncompressed JSON: a large record is refused even if it would compress", async () => {
    const config = baseConfig(url, { maxRecordBytes: 4_096, compressAboveBytes: 1024 })
    const record = projectingRecord()
    const e = await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        return yield* Effect.flip(store.transition(bigReady(record)))
      })
    )
    expect(e).toMatchObject({ _tag: "RecordTooLarge", limit: 4_096 })
  })

  it("a damaged compressed value is CORRUPT_RECORD on get; an unknown status in its header on transition", async () => {
    const config = baseConfig(url, { ttlMillis: 60_000 })
    const record = projectingRecord()
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    await raw.set(key, Buffer.concat([Buffer.from("\u0000Z1:READY\n", "latin1"), Buffer.from("not deflate")]))
    const other = projectingRecord()
    const otherKey = canonicalInvocationKey(config.keyPrefix, other.runId, other.toolCallId)
    await raw.set(otherKey, Buffer.from("\u0000Z1:WEIRD\nxx", "latin1"))
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const e = yield* Effect.flip(store.get(record.runId, record.toolCallId))
        expect(e).toMatchObject({ _tag: "StoreError", operation: "get", reason: "CORRUPT_RECORD" })
        const t = yield* Effect.flip(store.transition(readyRecord(other)))
        expect(t).toMatchObject({ _tag: "StoreError", operation: "transition", reason: "CORRUPT_RECORD" })
      })
    )
    await raw.del(key, otherKey)
  })
})

describe.skipIf(!redisUp)("Redis eviction-policy check against a real server", () => {
  it("reads maxmemory-policy and maxmemory and says whether writes would be refused", async () => {
    const check = await Effect.runPromise(checkRedisEvictionPolicy(baseConfig(url)))
    expect(check.policy).not.toBeNull()
    expect(check.maxmemoryBytes).not.toBeNull()
    expect(check).toEqual(evaluateEvictionPolicy(check.policy, check.maxmemoryBytes))
  })

  it("an unreachable Redis is a warning, never a failure", async () => {
    const port = await unusedPort()
    const check = await Effect.runPromise(
      checkRedisEvictionPolicy(baseConfig(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 300 }))
    )
    expect(check).toMatchObject({ policy: null, refusesWrites: false })
    expect(check.warning).toContain("could not read maxmemory-policy")
  })
})

describe.skipIf(!redisUp)("Redis canonical store against a real server", () => {
  let raw: Redis
  beforeAll(() => {
    raw = rawClient(url)
  })
  afterAll(async () => {
    await raw.quit()
  })

  it("stores under canonicalInvocationKey with the TTL set at creation (SET PX NX)", async () => {
    const config = baseConfig(url, { ttlMillis: 60_000 })
    const record = projectingRecord()
    await runWith(
      config,
      Effect.flatMap(Effect.service(CanonicalInvocationStore), (s) => s.create(record))
    )
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    expect(key).toContain(`{${record.runId}}`)
    expect(JSON.parse((await raw.get(key)) ?? "null")).toEqual(record)
    const pttl = await raw.pttl(key)
    expect(pttl).toBeGreaterThan(55_000)
    expect(pttl).toBeLessThanOrEqual(60_000)
    await raw.del(key)
  })

  it("PTTL after a read is not larger than before", async () => {
    const config = baseConfig(url, { ttlMillis: 60_000 })
    const record = projectingRecord()
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        yield* Effect.sleep(50)
        const before = yield* Effect.promise(() => raw.pttl(key))
        for (let i = 0; i < 3; i++)
          expect(Option.isSome(yield* store.get(record.runId, record.toolCallId))).toBe(true)
        const after = yield* Effect.promise(() => raw.pttl(key))
        expect(before).toBeGreaterThan(0)
        expect(after).toBeGreaterThan(0)
        expect(after).toBeLessThanOrEqual(before)
      })
    )
    await raw.del(key)
  })

  it("PTTL after a transition is not larger than before and still set", async () => {
    const config = baseConfig(url, { ttlMillis: 60_000 })
    const record = projectingRecord()
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        yield* Effect.sleep(50)
        const before = yield* Effect.promise(() => raw.pttl(key))
        yield* store.transition(readyRecord(record))
        const after = yield* Effect.promise(() => raw.pttl(key))
        expect(after).toBeGreaterThan(0)
        expect(after).toBeLessThanOrEqual(before)
        expect(Option.getOrThrow(yield* store.get(record.runId, record.toolCallId)).status).toBe("READY")
      })
    )
    await raw.del(key)
  })

  it("many concurrent transitions of one record: exactly one wins, the others are IllegalTransition", async () => {
    const record = projectingRecord()
    await runWith(
      baseConfig(url),
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        const attempts = Array.from({ length: 12 }, (_, i) =>
          Effect.exit(
            store.transition(i % 2 === 0 ? readyRecord(record, record.createdAt + i) : errorRecord(record))
          )
        )
        const exits = yield* Effect.all(attempts, { concurrency: "unbounded" })
        expect(exits.filter(Exit.isSuccess).length).toBe(1)
        for (const exit of exits.filter(Exit.isFailure)) {
          const reason = exit.cause.reasons[0]
          expect(reason?._tag === "Fail" && (reason.error as { _tag: string })._tag).toBe("IllegalTransition")
        }
      })
    )
  })

  it("a record exactly at the size limit is stored; one byte over is refused and nothing is written", async () => {
    const config = baseConfig(url)
    const probe = projectingRecord({ request: { blob: "" } })
    const overhead = Buffer.byteLength(JSON.stringify(probe))
    const atLimit = projectingRecord({ request: { blob: "a".repeat(config.maxRecordBytes - overhead) } })
    const over = projectingRecord({ request: { blob: "a".repeat(config.maxRecordBytes - overhead + 1) } })
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        expect(Buffer.byteLength(JSON.stringify(atLimit))).toBe(config.maxRecordBytes)
        yield* store.create(atLimit)
        const error = yield* Effect.flip(store.create(over))
        expect(error._tag).toBe("RecordTooLarge")
        if (error._tag === "RecordTooLarge") {
          expect(error.bytes).toBe(config.maxRecordBytes + 1)
          expect(error.limit).toBe(config.maxRecordBytes)
        }
        const key = canonicalInvocationKey(config.keyPrefix, over.runId, over.toolCallId)
        expect(yield* Effect.promise(() => raw.exists(key))).toBe(0)
      })
    )
  })

  it("a corrupt stored value is StoreError CORRUPT_RECORD on get and on transition", async () => {
    const config = baseConfig(url)
    const notJson = projectingRecord()
    const wrongShape = projectingRecord()
    const unknownStatus = projectingRecord()
    const keyOf = (r: typeof notJson) => canonicalInvocationKey(config.keyPrefix, r.runId, r.toolCallId)
    await raw.set(keyOf(notJson), "{not json", "PX", 5_000)
    await raw.set(keyOf(wrongShape), JSON.stringify({ ...wrongShape, extra: 1 }), "PX", 5_000)
    await raw.set(keyOf(unknownStatus), JSON.stringify({ ...unknownStatus, status: "DONE" }), "PX", 5_000)
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        for (const r of [notJson, wrongShape, unknownStatus]) {
          const e = yield* Effect.flip(store.get(r.runId, r.toolCallId))
          expect(e).toMatchObject({ _tag: "StoreError", operation: "get", reason: "CORRUPT_RECORD" })
        }
        for (const r of [notJson, unknownStatus]) {
          const e = yield* Effect.flip(store.transition(readyRecord(r)))
          expect(e).toMatchObject({ _tag: "StoreError", operation: "transition", reason: "CORRUPT_RECORD" })
        }
      })
    )
    // The corrupt values are left untouched by the failed transitions.
    expect(await raw.get(keyOf(notJson))).toBe("{not json")
    await raw.del(keyOf(notJson), keyOf(wrongShape), keyOf(unknownStatus))
  })

  it("a damaged value ending like a PROJECTING record is replaced by a transition (the script does not decode it)", async () => {
    const config = baseConfig(url)
    const record = projectingRecord()
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    await raw.set(key, `{not json${PROJECTING_SUFFIX}`, "PX", 5_000)
    const ready = readyRecord(record)
    const got = await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.transition(ready)
        return yield* store.get(record.runId, record.toolCallId)
      })
    )
    expect(Option.getOrThrow(got)).toEqual(ready)
    await raw.del(key)
  })

  it("canonicalStoreLayerFromEnv with REDIS_URL builds the Redis store: the record lands in Redis and outlives the layer", async () => {
    const env = {
      REDIS_URL: url,
      CANONICAL_STORE_KEY_PREFIX: uniquePrefix("env"),
      CANONICAL_STORE_TTL_MS: "60000"
    }
    const record = projectingRecord()
    const key = canonicalInvocationKey(env.CANONICAL_STORE_KEY_PREFIX, record.runId, record.toolCallId)
    // The error channel is the Redis layer's (connecting can fail).
    const layer: Layer.Layer<CanonicalInvocationStore, StoreError> = canonicalStoreLayerFromEnv(env)
    await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Effect.service(CanonicalInvocationStore), (s) => s.create(record)),
        layer
      )
    )
    // Written to Redis under the env's prefix with the env's TTL.
    expect(JSON.parse((await raw.get(key)) ?? "null")).toEqual(record)
    const pttl = await raw.pttl(key)
    expect(pttl).toBeGreaterThan(50_000)
    expect(pttl).toBeLessThanOrEqual(60_000)
    // A second, independent build of the layer reads it back (an in-memory store would not).
    const got = await Effect.runPromise(
      Effect.provide(
        Effect.flatMap(Effect.service(CanonicalInvocationStore), (s) =>
          s.get(record.runId, record.toolCallId)
        ),
        canonicalStoreLayerFromEnv(env)
      )
    )
    expect(Option.getOrThrow(got)).toEqual(record)
    await raw.del(key)
  })

  it("CLIENT KILL of the store's connection mid-test: StoreError UNAVAILABLE within bounds, never a hang; then it recovers", async () => {
    const config = baseConfig(url)
    const record = projectingRecord()
    await runWith(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        const killed = yield* Effect.promise(async () => {
          const list = String(await raw.client("LIST"))
          const ids = list
            .split("\n")
            .filter((line) => line.includes(` name=aiops-stores:${config.keyPrefix} `))
            .map((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1])
            .filter((id): id is string => id !== undefined)
          for (const id of ids) await raw.client("KILL", "ID", id)
          return ids.length
        })
        expect(killed).toBeGreaterThanOrEqual(1)
        const { exit, elapsed } = yield* timed(store.get(record.runId, record.toolCallId))
        expect(elapsed).toBeLessThan(commandBound(config))
        // The killed socket can never answer: whether the close is seen before or after the
        // command is written, the command fails (no offline queue, no per-request retries).
        expect(storeErrorOf(exit).reason).toBe("UNAVAILABLE")
        // Reconnection brings the store back (retried until a deadline, not a fixed sleep).
        const again = yield* eventuallyEffect(store.get(record.runId, record.toolCallId), 10_000)
        expect(Option.getOrThrow(again).toolCallId).toBe(record.toolCallId)
      })
    )
  }, 30_000)

  it("Redis gone for more reconnection attempts than the old limit (20): reconnection never gives up, the store recovers", async () => {
    const target = new URL(url)
    const proxy = await faultyProxy({ host: target.hostname, port: Number(target.port || 6379) })
    // A short reconnection cap makes many attempts fit in a few seconds.
    const config = baseConfig(`redis://127.0.0.1:${proxy.port}`, {
      reconnectMaxDelayMs: 100,
      ttlMillis: 60_000
    })
    const record = projectingRecord()
    try {
      await runWith(
        config,
        Effect.gen(function* () {
          const store = yield* CanonicalInvocationStore
          yield* store.create(record)
          proxy.kill()
          const acceptedAtKill = proxy.accepted()
          // While Redis is gone, commands fail fast (nothing is queued).
          const { exit, elapsed } = yield* timed(store.get(record.runId, record.toolCallId))
          expect(elapsed).toBeLessThan(commandBound(config))
          expect(storeErrorOf(exit).reason).toBe("UNAVAILABLE")
          // Stay down until the client has tried to reconnect more often than the old limit.
          const attempts = yield* Effect.promise(async () => {
            const deadline = Date.now() + 20_000
            while (proxy.accepted() - acceptedAtKill <= 25 && Date.now() < deadline) await sleep(50)
            return proxy.accepted() - acceptedAtKill
          })
          expect(attempts).toBeGreaterThan(25)
          const failedMeanwhile = yield* Effect.exit(store.get(record.runId, record.toolCallId))
          expect(storeErrorOf(failedMeanwhile).reason).toBe("UNAVAILABLE")
          proxy.restore()
          const again = yield* eventuallyEffect(store.get(record.runId, record.toolCallId), 10_000)
          expect(Option.getOrThrow(again)).toEqual(record)
          yield* store.transition(readyRecord(record))
          expect(Option.getOrThrow(yield* store.get(record.runId, record.toolCallId)).status).toBe("READY")
        })
      )
    } finally {
      await proxy.close()
    }
    await raw.del(canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId))
  }, 45_000)

  it("Redis going away mid-test (connections closed, port refusing): StoreError UNAVAILABLE within bounds", async () => {
    const target = new URL(url)
    const proxy = await faultyProxy({ host: target.hostname, port: Number(target.port || 6379) })
    const config = baseConfig(`redis://127.0.0.1:${proxy.port}`)
    const record = projectingRecord()
    try {
      const started = Date.now()
      await runWith(
        config,
        Effect.gen(function* () {
          const store = yield* CanonicalInvocationStore
          yield* store.create(record)
          proxy.kill()
          yield* Effect.sleep(50)
          const ops: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
            store.get(record.runId, record.toolCallId),
            store.transition(readyRecord(record)),
            store.create(projectingRecord())
          ]
          for (const op of ops) {
            const { exit, elapsed } = yield* timed(op)
            expect(elapsed).toBeLessThan(commandBound(config))
            expect(storeErrorOf(exit).reason).toBe("UNAVAILABLE")
          }
        })
      )
      // Releasing the scope (QUIT on a dead connection) is bounded too: at worst the three
      // commands and the QUIT each take their full bound.
      expect(Date.now() - started).toBeLessThan(4 * commandBound(config))
    } finally {
      await proxy.close()
    }
  }, 45_000)

  it("Redis hanging mid-test (no replies): StoreError TIMEOUT within the command timeout", async () => {
    const target = new URL(url)
    const proxy = await faultyProxy({ host: target.hostname, port: Number(target.port || 6379) })
    const config = baseConfig(`redis://127.0.0.1:${proxy.port}`, { commandTimeoutMs: 500 })
    const record = projectingRecord()
    try {
      await runWith(
        config,
        Effect.gen(function* () {
          const store = yield* CanonicalInvocationStore
          yield* store.create(record)
          proxy.blackhole()
          const { exit, elapsed } = yield* timed(store.get(record.runId, record.toolCallId))
          expect(elapsed).toBeGreaterThanOrEqual(400)
          expect(elapsed).toBeLessThan(commandBound(config))
          const error = storeErrorOf(exit)
          expect(error.operation).toBe("get")
          expect(error.reason).toBe("TIMEOUT")
        })
      )
    } finally {
      await proxy.close()
    }
  }, 15_000)
})

describe("Redis canonical store without a usable server (no Redis needed)", () => {
  const build = (config: RedisCanonicalStoreConfig) =>
    timed(
      Effect.provide(
        Effect.asVoid(Effect.service(CanonicalInvocationStore)),
        RedisCanonicalStore.layer(config)
      )
    )

  it("an unreachable port fails the layer with StoreError connect UNAVAILABLE within the connect timeout", async () => {
    const port = await unusedPort()
    const config = baseConfig(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 1_000 })
    const { exit, elapsed } = await Effect.runPromise(build(config))
    expect(elapsed).toBeLessThan(hangBound(config.connectTimeoutMs + TIMEOUT_GRACE_MS))
    const error = storeErrorOf(exit)
    expect(error.operation).toBe("connect")
    expect(error.reason).toBe("UNAVAILABLE")
  })

  it("a server that accepts and never answers fails the layer with StoreError connect TIMEOUT, never a hang", async () => {
    const server = await silentServer()
    try {
      const config = baseConfig(`redis://127.0.0.1:${server.port}`, { connectTimeoutMs: 700 })
      const { exit, elapsed } = await Effect.runPromise(build(config))
      expect(elapsed).toBeLessThan(hangBound(config.connectTimeoutMs + TIMEOUT_GRACE_MS))
      const error = storeErrorOf(exit)
      expect(error.operation).toBe("connect")
      expect(error.reason).toBe("TIMEOUT")
    } finally {
      await server.close()
    }
  }, 15_000)
})
