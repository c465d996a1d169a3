// Canonical store throughput against a real Redis, next to raw SET/GET round trips on the same
// server in the same run. Printed, never asserted.
//   pnpm --filter @aiops-harness/stores... build && node scripts/bench/stores.mjs   (REDIS_URL, default redis://127.0.0.1:6379)
import { CanonicalInvocationStore } from "../../packages/core/dist/index.js"
import { projectingRecord, readyRecord } from "../../packages/core/dist/testing/fixtures.js"
import { RedisCanonicalStore } from "../../packages/stores/dist/index.js"
import { Effect } from "../../packages/stores/node_modules/effect/dist/index.js"
import { Redis } from "../../packages/stores/node_modules/ioredis/built/index.js"

import { isReachable } from "../../packages/core/dist/testing/integration.js"

const url = process.env.REDIS_URL || "redis://127.0.0.1:6379"
const seconds = 3
if (!(await isReachable(url, 6379))) {
  console.log(
    `canonical_store skipped: no Redis answers at ${new URL(url).host} (start redis-server or set REDIS_URL)`
  )
  process.exit(0)
}

const keyPrefix = `bench:${process.pid}:${Date.now().toString(36)}`
const config = {
  url,
  keyPrefix,
  ttlMillis: 60_000,
  maxRecordBytes: 1024 * 1024,
  commandTimeoutMs: 2_000,
  connectTimeoutMs: 3_000
}

// One cycle: create (SET PX NX) + transition (EVALSHA) + read (GET), sequential, one connection.
const storeBench = Effect.gen(function* () {
  const store = yield* CanonicalInvocationStore
  const deadline = Date.now() + seconds * 1000
  let cycles = 0
  while (Date.now() < deadline) {
    const record = projectingRecord({ createdAt: Date.now() })
    yield* store.create(record)
    yield* store.transition(readyRecord(record))
    yield* store.get(record.runId, record.toolCallId)
    cycles++
  }
  return cycles / seconds
})

const cyclesPerS = await Effect.runPromise(Effect.provide(storeBench, RedisCanonicalStore.layer(config)))

// Raw baseline: SET + GET of a record-sized value, sequential, one connection.
const raw = new Redis(url, { maxRetriesPerRequest: 1 })
const value = JSON.stringify(readyRecord(projectingRecord()))
const rawKey = `${keyPrefix}:raw`
const deadline = Date.now() + seconds * 1000
let pairs = 0
while (Date.now() < deadline) {
  await raw.set(rawKey, value, "PX", 60_000)
  await raw.get(rawKey)
  pairs++
}
const rawPerS = pairs / seconds

// Clean up the bench keys (they also expire after a minute).
let cursor = "0"
do {
  const [next, keys] = await raw.scan(cursor, "MATCH", `${keyPrefix}:*`, "COUNT", 1000)
  cursor = next
  if (keys.length > 0) await raw.del(...keys)
} while (cursor !== "0")
await raw.quit()

console.log(
  `canonical_store cycles_per_s=${Math.round(cyclesPerS)} raw_set_get_per_s=${Math.round(rawPerS)} ratio=${(cyclesPerS / rawPerS).toFixed(2)}`
)
// A cycle is 3 round trips (SET NX PX, EVALSHA, GET), a raw pair 2: per round trip the
// canonical store costs this fraction of a raw command's throughput.
console.log(
  `canonical_store round_trips_per_s=${Math.round(cyclesPerS * 3)} raw_round_trips_per_s=${Math.round(rawPerS * 2)} per_round_trip_ratio=${((cyclesPerS * 3) / (rawPerS * 2)).toFixed(2)}`
)
