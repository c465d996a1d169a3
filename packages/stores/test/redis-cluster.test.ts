import { spawnSync } from "node:child_process"
import {
  CanonicalInvocationStore,
  canonicalInvocationKey,
  type RunId,
  type StoreError,
  type ToolCallId
} from "@aiops-harness/core"
import { projectingRecord, readyRecord, testId } from "@aiops-harness/core/testing"
import { canonicalStoreConformance } from "@aiops-harness/core/testing/conformance"
import { Effect, Exit, Option } from "effect"
import { Cluster } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisCanonicalStore, type RedisCanonicalStoreConfig } from "../src/index.js"
import { TIMEOUT_GRACE_MS } from "../src/redis/client.js"
import {
  baseConfig,
  eventuallyEffect,
  hangBound,
  hasBinary,
  type LocalCluster,
  startLocalCluster,
  unusedPort
} from "./helpers.js"

const binaries = hasBinary("redis-server") && hasBinary("redis-cli")
if (!binaries) {
  const hint = "Install redis-server and redis-cli (e.g. apt-get install redis-server)."
  if (process.env.CI === "true") throw new Error(`redis-server/redis-cli are required with CI=true. ${hint}`)
  const line = "!".repeat(78)
  console.warn(
    `\n${line}\n!! SKIPPING Redis Cluster tests: redis-server/redis-cli not found.\n!! ${hint}\n${line}\n`
  )
}

let cluster: LocalCluster | undefined
beforeAll(async () => {
  if (binaries) cluster = await startLocalCluster()
}, 60_000)
afterAll(() => {
  cluster?.stop()
})

const clusterConfig = (overrides: Partial<RedisCanonicalStoreConfig> = {}): RedisCanonicalStoreConfig => {
  if (!cluster) throw new Error("cluster not started")
  const nodes = cluster.ports.map((port) => ({ host: "127.0.0.1", port }))
  return baseConfig(`redis://127.0.0.1:${nodes[0]!.port}`, { cluster: { nodes }, ...overrides })
}

/** `redis-cli -p <port> <args...>`, trimmed stdout. */
const cli = (port: number, ...args: string[]): string => {
  const r = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 10_000 })
  if (r.status !== 0) throw new Error(`redis-cli ${args.join(" ")} failed: ${r.stderr}`)
  return r.stdout.trim()
}

// Records of the non-TTL tests outlive any test; the TTL tests get stores with a short TTL
// (`expiry`), judged by bounds and retried with a longer TTL when the machine was too slow.
const CONFORMANCE_TTL_MS = 4_000
const EXPIRY_TTL_MS = 250

canonicalStoreConformance({
  name: "redis cluster (3 masters)",
  layer: () => RedisCanonicalStore.layer(clusterConfig({ ttlMillis: CONFORMANCE_TTL_MS })),
  ttlMillis: CONFORMANCE_TTL_MS,
  maxRecordBytes: 4_096,
  advance: (millis) => Effect.sleep(millis),
  expiry: {
    layer: (ttlMillis) => RedisCanonicalStore.layer(clusterConfig({ ttlMillis })),
    ttlMillis: EXPIRY_TTL_MS
  },
  skip: !binaries
})

canonicalStoreConformance({
  name: "redis cluster (3 masters), compressed records",
  layer: () =>
    RedisCanonicalStore.layer(clusterConfig({ ttlMillis: CONFORMANCE_TTL_MS, compressAboveBytes: 1 })),
  ttlMillis: CONFORMANCE_TTL_MS,
  maxRecordBytes: 4_096,
  advance: (millis) => Effect.sleep(millis),
  expiry: {
    layer: (ttlMillis) => RedisCanonicalStore.layer(clusterConfig({ ttlMillis, compressAboveBytes: 1 })),
    ttlMillis: EXPIRY_TTL_MS
  },
  skip: !binaries
})

describe.skipIf(!binaries)("Redis canonical store on a Cluster", () => {
  const run = <A, E>(
    config: RedisCanonicalStoreConfig,
    program: Effect.Effect<A, E, CanonicalInvocationStore>
  ) =>
    Effect.runPromise(Effect.provide(program, RedisCanonicalStore.layer(config)) as Effect.Effect<A, unknown>)

  it("records of many runs spread over the masters; reads and transitions never extend PTTL", async () => {
    const config = clusterConfig({ ttlMillis: 60_000 })
    const raw = new Cluster(
      config.cluster!.nodes.map((n) => ({ ...n })),
      { lazyConnect: true }
    )
    await raw.connect()
    try {
      const records = Array.from({ length: 12 }, () => projectingRecord())
      await run(
        config,
        Effect.gen(function* () {
          const store = yield* CanonicalInvocationStore
          yield* Effect.forEach(records, (r) => store.create(r), { concurrency: "unbounded" })
          for (const r of records) {
            const key = canonicalInvocationKey(config.keyPrefix, r.runId, r.toolCallId)
            // Let the TTL run down a little: a read that renewed it would then be visible.
            yield* Effect.sleep(5)
            const before = yield* Effect.promise(() => raw.pttl(key))
            expect(Option.isSome(yield* store.get(r.runId, r.toolCallId))).toBe(true)
            const afterRead = yield* Effect.promise(() => raw.pttl(key))
            yield* store.transition(readyRecord(r))
            const afterTransition = yield* Effect.promise(() => raw.pttl(key))
            expect(before).toBeGreaterThan(0)
            expect(afterRead).toBeLessThanOrEqual(before)
            expect(afterTransition).toBeGreaterThan(0)
            expect(afterTransition).toBeLessThanOrEqual(afterRead)
          }
        })
      )
      // The {runId} hash tags put these keys on more than one master.
      const holders = new Set<string>()
      for (const node of raw.nodes("master")) {
        const count = await node.dbsize()
        if (count > 0) holders.add(`${node.options.host}:${node.options.port}`)
      }
      expect(holders.size).toBeGreaterThan(1)
      for (const r of records) await raw.del(canonicalInvocationKey(config.keyPrefix, r.runId, r.toolCallId))
    } finally {
      await raw.quit()
    }
  }, 30_000)

  it("unreachable cluster nodes fail the layer with StoreError connect within the bounded time", async () => {
    const ports = [await unusedPort(), await unusedPort()]
    const config = baseConfig(`redis://127.0.0.1:${ports[0]}`, {
      connectTimeoutMs: 1_000,
      cluster: { nodes: ports.map((port) => ({ host: "127.0.0.1", port })) }
    })
    const started = Date.now()
    const exit = await Effect.runPromiseExit(
      Effect.provide(
        Effect.asVoid(Effect.service(CanonicalInvocationStore)),
        RedisCanonicalStore.layer(config)
      )
    )
    expect(Date.now() - started).toBeLessThan(hangBound(config.connectTimeoutMs + TIMEOUT_GRACE_MS))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0]
      expect(reason?._tag).toBe("Fail")
      if (reason?._tag === "Fail")
        expect(reason.error).toMatchObject({ _tag: "StoreError", operation: "connect" })
    }
  }, 15_000)

  it("one run's keys share a slot (the {runId} hash tag); another run's key is hashed on its own runId", () => {
    const config = clusterConfig()
    const port = cluster!.ports[0]!
    const runId = testId("run") as RunId
    const keys = ["call-a", "call-b", "call-c-with-a-longer-id"].map((id) =>
      canonicalInvocationKey(config.keyPrefix, runId, id as ToolCallId)
    )
    const slots = keys.map((key) => cli(port, "CLUSTER", "KEYSLOT", key))
    expect(slots[0]).toMatch(/^\d+$/)
    expect(new Set(slots).size).toBe(1)
    // The slot is the runId's alone: the prefix and the call id play no part.
    expect(cli(port, "CLUSTER", "KEYSLOT", runId)).toBe(slots[0])
  })

  it("a master that stops answering mid-test: StoreError TIMEOUT within bounds, never a hang; then it recovers", async () => {
    const config = clusterConfig({ commandTimeoutMs: 500, ttlMillis: 60_000 })
    const record = projectingRecord()
    const key = canonicalInvocationKey(config.keyPrefix, record.runId, record.toolCallId)
    const pauseMs = 4_000
    await run(
      config,
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        yield* store.create(record)
        // The master that holds the record (the others answer MOVED, not 1).
        const owner = cluster!.ports.find((p) => cli(p, "EXISTS", key) === "1")
        expect(owner).toBeDefined()
        // Every normal client of that master is suspended: it accepts commands, answers none.
        expect(cli(owner!, "CLIENT", "PAUSE", String(pauseMs), "ALL")).toBe("OK")
        const started = Date.now()
        const exit = yield* Effect.exit(store.get(record.runId, record.toolCallId))
        const elapsed = Date.now() - started
        // Well before the pause ends: the command timed out, it did not wait for the node.
        expect(elapsed).toBeLessThan(Math.min(pauseMs, hangBound(config.commandTimeoutMs + TIMEOUT_GRACE_MS)))
        expect(Exit.isFailure(exit)).toBe(true)
        if (Exit.isFailure(exit)) {
          const reason = exit.cause.reasons[0]
          expect(reason?._tag).toBe("Fail")
          if (reason?._tag === "Fail") {
            const error = reason.error as StoreError
            expect(error).toMatchObject({ _tag: "StoreError", operation: "get", reason: "TIMEOUT" })
          }
        }
        // Once the master answers again, so does the store.
        const again = yield* eventuallyEffect(
          store.get(record.runId, record.toolCallId),
          pauseMs + 10_000,
          100
        )
        expect(Option.getOrThrow(again)).toEqual(record)
        yield* Effect.promise(() => Promise.resolve(cli(owner!, "DEL", key)))
      })
    )
  }, 40_000)
})
