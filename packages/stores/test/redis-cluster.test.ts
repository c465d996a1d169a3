import { CanonicalInvocationStore, canonicalInvocationKey } from "@aiops-harness/core"
import { projectingRecord, readyRecord } from "@aiops-harness/core/testing"
import { canonicalStoreConformance } from "@aiops-harness/core/testing/conformance"
import { Effect, Exit, Option } from "effect"
import { Cluster } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RedisCanonicalStore, type RedisCanonicalStoreConfig } from "../src/index.js"
import { baseConfig, hasBinary, type LocalCluster, startLocalCluster, unusedPort } from "./helpers.js"

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

canonicalStoreConformance({
  name: "redis cluster (3 masters)",
  layer: () => RedisCanonicalStore.layer(clusterConfig()),
  ttlMillis: 1_500,
  maxRecordBytes: 4_096,
  advance: (millis) => Effect.sleep(millis),
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
    expect(Date.now() - started).toBeLessThan(config.connectTimeoutMs + 1_500)
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const reason = exit.cause.reasons[0]
      expect(reason?._tag).toBe("Fail")
      if (reason?._tag === "Fail")
        expect(reason.error).toMatchObject({ _tag: "StoreError", operation: "connect" })
    }
  }, 15_000)
})
