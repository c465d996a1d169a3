// Canonical store against a real Redis, next to raw commands on the same server in the same run,
// and the cost and ratio of record compression. Printed, never asserted.
//   pnpm --filter @aiops-harness/stores... build && node scripts/bench/stores.mjs   (REDIS_URL, default redis://127.0.0.1:6379)
import { loadavg } from "node:os"
import { deflateRawSync, inflateRawSync } from "node:zlib"
import {
  CanonicalInvocationStore,
  canonicalInvocationKey,
  encodeInvocation,
  invocationJsonParts,
  parseCanonicalInvocation
} from "../../packages/core/dist/index.js"
import { projectingRecord, readyRecord } from "../../packages/core/dist/testing/fixtures.js"
import { logsRecord } from "../lib/records.mjs"
import { isReachable } from "../../packages/core/dist/testing/integration.js"
import { RedisCanonicalStore } from "../../packages/stores/dist/index.js"
import { createConnection } from "../../packages/stores/dist/redis/client.js"
import { decodeStored } from "../../packages/stores/dist/redis/encoding.js"
import { TRANSITION_LUA, TRANSITION_SHA1 } from "../../packages/stores/dist/redis/transition-script.js"
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * One store cycle is create (SET NX PX) + transition (the check-and-set script) + get (GET): three
 * round trips. Next to it, in the same run: `raw`, the same three commands with no check
 * (SET NX PX, SET XX KEEPTTL, GET) sending prebuilt text (the goal's reference), `raw_json`, the
 * same with each record serialized and parsed as plain ioredis code would, and `script`, raw
 * commands with the store's script in the middle (what the script alone costs). Two more show
 * where the store's time goes: `work`, the store's own steps (key, record JSON, the script,
 * getBuffer, parse and check) in plain async code on the store's connection type, no Effect; and
 * `work_effect`, the same steps with each command one bare `Effect.callback` in an `Effect.gen`
 * (the least any Effect API over these commands can cost). Fresh keys every cycle, records and
 * their JSON built before the timed part, the variants interleaved in a rotating order; medians
 * of the passes.
 */
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
  const conn = createConnection({ ...config, keyPrefix: `${keyPrefix}:work` })
  await conn.connect()
  await raw.script("LOAD", TRANSITION_LUA)
  const workKey = (r) => canonicalInvocationKey(`${keyPrefix}:work`, r.runId, r.toolCallId)
  const fail = (what) => {
    throw new Error(`bench: ${what}`)
  }
  // Enough passes that one run's median is steady on a noisy 2-core machine (about 10 s).
  const cycles = 300
  const rounds = 31
  let pass = 0
  /** `cycles` fresh records (PROJECTING, READY, both JSON texts and the raw key) per pass. */
  const prebuilt = () => {
    const p = pass++
    return Array.from({ length: cycles }, (_, i) => {
      const projecting = projectingRecord({
        runId: `bench-${p}`,
        toolCallId: `call-${i}`,
        createdAt: Date.now()
      })
      const ready = readyRecord(projecting)
      return {
        projecting,
        ready,
        projectingJson: encodeInvocation(projecting),
        readyJson: encodeInvocation(ready),
        key: canonicalInvocationKey(`${keyPrefix}:raw`, projecting.runId, projecting.toolCallId)
      }
    })
  }
  const perTrip = (t0) => (performance.now() - t0) / (cycles * 3)
  const variants = {
    store: (store) => (records) =>
      Effect.gen(function* () {
        const t0 = performance.now()
        for (const r of records) {
          yield* store.create(r.projecting)
          yield* store.transition(r.ready)
          yield* store.get(r.projecting.runId, r.projecting.toolCallId)
        }
        return perTrip(t0)
      }),
    raw: () => (records) =>
      Effect.promise(async () => {
        const t0 = performance.now()
        for (const r of records) {
          await raw.set(r.key, r.projectingJson, "PX", 60_000, "NX")
          await raw.set(r.key, r.readyJson, "XX", "KEEPTTL")
          await raw.get(r.key)
        }
        return perTrip(t0)
      }),
    // What storing the same records with plain ioredis costs: the same commands, each record
    // serialized when written and parsed when read (no checks, no script, no Effect).
    raw_json: () => (records) =>
      Effect.promise(async () => {
        const t0 = performance.now()
        for (const r of records) {
          await raw.set(r.key, JSON.stringify(r.projecting), "PX", 60_000, "NX")
          await raw.set(r.key, JSON.stringify(r.ready), "XX", "KEEPTTL")
          JSON.parse(await raw.get(r.key))
        }
        return perTrip(t0)
      }),
    work: () => (records) =>
      Effect.promise(async () => {
        const t0 = performance.now()
        for (const r of records) {
          const created = await conn.setPxNx(
            workKey(r.projecting),
            invocationJsonParts(r.projecting).head,
            60_000
          )
          if (created === null) fail("exists")
          const code = await conn.evalsha(
            TRANSITION_SHA1,
            workKey(r.ready),
            invocationJsonParts(r.ready).head
          )
          if (code !== 0) fail(`transition ${code}`)
          const stored = await conn.get(workKey(r.projecting))
          if (parseCanonicalInvocation(JSON.parse(decodeStored(stored))) === undefined) fail("corrupt")
        }
        return perTrip(t0)
      }),
    work_effect: () => (records) =>
      Effect.gen(function* () {
        const t0 = performance.now()
        const command = (send, check) =>
          Effect.callback((resume) => {
            send().then(
              (v) => resume(check(v) ? Effect.void : Effect.die(new Error("bench: bad reply"))),
              (e) => resume(Effect.die(e))
            )
          })
        for (const r of records) {
          yield* command(
            () => conn.setPxNx(workKey(r.projecting), invocationJsonParts(r.projecting).head, 60_000),
            (v) => v !== null
          )
          yield* command(
            () => conn.evalsha(TRANSITION_SHA1, workKey(r.ready), invocationJsonParts(r.ready).head),
            (v) => v === 0
          )
          yield* command(
            () => conn.get(workKey(r.projecting)),
            (v) => parseCanonicalInvocation(JSON.parse(decodeStored(v))) !== undefined
          )
        }
        return perTrip(t0)
      }),
    script: () => (records) =>
      Effect.promise(async () => {
        await raw.script("LOAD", TRANSITION_LUA)
        const t0 = performance.now()
        for (const r of records) {
          await raw.set(r.key, r.projectingJson, "PX", 60_000, "NX")
          await raw.evalsha(TRANSITION_SHA1, 1, r.key, r.readyJson)
          await raw.get(r.key)
        }
        return perTrip(t0)
      })
  }
  const names = Object.keys(variants)
  const times = Object.fromEntries(names.map((n) => [n, []]))
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const store = yield* CanonicalInvocationStore
        const passes = Object.fromEntries(names.map((n) => [n, variants[n](store)]))
        for (const n of names) yield* passes[n](prebuilt()) // warm-up
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < names.length; k++) {
            const n = names[(round + k) % names.length]
            const records = prebuilt()
            times[n].push(yield* passes[n](records))
          }
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
  await conn.quit()
  const [s, r, l, j] = [median(times.store), median(times.raw), median(times.script), median(times.raw_json)]
  const [w, we] = [median(times.work), median(times.work_effect)]
  const us = (ms) => (ms * 1000).toFixed(1)
  console.log(
    `canonical_store round_trip_us=${us(s)} raw_round_trip_us=${us(r)} script_round_trip_us=${us(l)} ` +
      `raw_json_round_trip_us=${us(j)} work_round_trip_us=${us(w)} work_effect_round_trip_us=${us(we)} ` +
      `load=${loadavg()[0].toFixed(2)}`
  )
  console.log(`store_vs_raw_time=${(s / r).toFixed(2)} (goal <= 1.20)`)
  console.log(`script_vs_raw_time=${(l / r).toFixed(2)}`)
  console.log(`store_vs_raw_json_time=${(s / j).toFixed(2)} (raw side serializes and parses the records)`)
  console.log(
    `work_vs_raw_time=${(w / r).toFixed(2)} (the store's steps, no Effect) ` +
      `work_effect_vs_raw_time=${(we / r).toFixed(2)} (the same, one bare Effect.callback per command)`
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
