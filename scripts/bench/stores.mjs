// Canonical store against a real Redis, next to raw commands on the same server in the same run,
// and the cost and ratio of record compression. Printed, never asserted.
//   pnpm --filter @aiops-harness/stores... build && node scripts/bench/stores.mjs   (REDIS_URL, default redis://127.0.0.1:6379)
import { deflateRawSync, inflateRawSync } from "node:zlib"
import { CanonicalInvocationStore } from "../../packages/core/dist/index.js"
import { projectingRecord, readyRecord } from "../../packages/core/dist/testing/fixtures.js"
import { logsRecord } from "../lib/records.mjs"
import { isReachable } from "../../packages/core/dist/testing/integration.js"
import { RedisCanonicalStore } from "../../packages/stores/dist/index.js"
import { Effect } from "../../packages/stores/node_modules/effect/dist/index.js"
import { Redis } from "../../packages/stores/node_modules/ioredis/built/index.js"

const url = process.env.REDIS_URL || "redis://127.0.0.1:6379"

function compression() {
  const json = JSON.stringify(logsRecord(130))
  const rounds = 20
  for (const level of [1, 6]) {
    let t0 = performance.now()
    let packed
    for (let i = 0; i < rounds; i++) packed = deflateRawSync(json, { level })
    const deflateMs = (performance.now() - t0) / rounds
    t0 = performance.now()
    for (let i = 0; i < rounds; i++) inflateRawSync(packed).toString("utf8")
    const inflateMs = (performance.now() - t0) / rounds
    console.log(
      `record_compression level=${level}${level === 1 ? "(store)" : ""} record_kb=${(json.length / 1024).toFixed(0)} ` +
        `stored_kb=${(packed.length / 1024).toFixed(1)} ratio=${(json.length / packed.length).toFixed(1)} ` +
        `deflate_ms=${deflateMs.toFixed(2)} inflate_ms=${inflateMs.toFixed(2)}`
    )
  }
}

/** Median of the per-round-trip times of `rounds` alternating store and raw passes. */
async function roundTrips(keyPrefix) {
  const config = {
    url,
    keyPrefix,
    ttlMillis: 60_000,
    maxRecordBytes: 1024 * 1024,
    commandTimeoutMs: 2_000,
    connectTimeoutMs: 3_000
  }
  const raw = new Redis(url, { maxRetriesPerRequest: 1 })
  const value = JSON.stringify(readyRecord(projectingRecord()))
  const rawKey = `${keyPrefix}:raw`
  const cycles = 300
  // One store cycle: create (SET NX PX) + transition (EVALSHA) + read (GET), i.e. 3 round trips.
  const storePass = Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    const t0 = performance.now()
    for (let i = 0; i < cycles; i++) {
      const record = projectingRecord({ createdAt: Date.now() })
      yield* store.create(record)
      yield* store.transition(readyRecord(record))
      yield* store.get(record.runId, record.toolCallId)
    }
    return (performance.now() - t0) / (cycles * 3)
  })
  // Raw: SET + GET of a record-sized value, i.e. 2 round trips.
  const rawPass = async () => {
    const t0 = performance.now()
    for (let i = 0; i < cycles; i++) {
      await raw.set(rawKey, value, "PX", 60_000)
      await raw.get(rawKey)
    }
    return (performance.now() - t0) / (cycles * 2)
  }
  const storeMs = []
  const rawMs = []
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        yield* storePass
        yield* Effect.promise(rawPass)
        for (let r = 0; r < 9; r++) {
          storeMs.push(yield* storePass)
          rawMs.push(yield* Effect.promise(rawPass))
        }
      }),
      RedisCanonicalStore.layer(config)
    )
  )
  let cursor = "0"
  do {
    const [next, keys] = await raw.scan(cursor, "MATCH", `${keyPrefix}:*`, "COUNT", 1000)
    cursor = next
    if (keys.length > 0) await raw.del(...keys)
  } while (cursor !== "0")
  await raw.quit()
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const s = median(storeMs)
  const r = median(rawMs)
  console.log(
    `canonical_store round_trip_us=${(s * 1000).toFixed(0)} raw_round_trip_us=${(r * 1000).toFixed(0)} ` +
      `store_vs_raw_time=${(s / r).toFixed(2)} (goal <= 1.20)`
  )
}

compression()
if (!(await isReachable(url, 6379))) {
  console.log(
    `canonical_store skipped: no Redis answers at ${new URL(url).host} (start redis-server or set REDIS_URL)`
  )
} else {
  await roundTrips(`bench:${process.pid}:${Date.now().toString(36)}`)
}
