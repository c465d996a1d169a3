// ToolBoundary per-call cost with a ~130 KiB raw response over the Redis canonical store, next to
// the two raw Redis round trips one call needs (SET NX PX of the PROJECTING record, then a SET of
// the READY record with its raw response), alternated in the same run. The projector is trivial:
// projectors have their own bench. Printed, never asserted.
//   pnpm build && node scripts/bench/boundary.mjs   (REDIS_URL, default redis://127.0.0.1:6379)
import {
  AuditSink,
  makeRun,
  makeToolBoundary,
  newProjectingInvocation,
  toReady
} from "../../packages/core/dist/index.js"
import { isReachable } from "../../packages/core/dist/testing/integration.js"
import { RedisCanonicalStore } from "../../packages/stores/dist/index.js"
import { Effect, Layer } from "../../packages/stores/node_modules/effect/dist/index.js"
import { Redis } from "../../packages/stores/node_modules/ioredis/built/index.js"
import { z } from "../../packages/core/node_modules/zod/index.js"
import { logsRecord } from "../lib/records.mjs"

const url = process.env.REDIS_URL || "redis://127.0.0.1:6379"
if (!(await isReachable(url, 6379))) {
  console.log(`boundary skipped: no Redis answers at ${new URL(url).host}`)
  process.exit(0)
}
const keyPrefix = `bench-boundary:${process.pid}:${Date.now().toString(36)}`
const rawResponse = logsRecord(130).rawResponse
const tool = {
  name: "query_logs",
  description: "bench",
  readOnly: true,
  requestSchema: z.object({ query: z.string() }).strict(),
  execute: () => Effect.succeed(rawResponse),
  project: ({ raw }) =>
    Effect.succeed({
      evidenceStatus: "EVIDENCE_FOUND",
      observation: { patterns: [{ count: raw.entries.length }] },
      truncated: false,
      returnedCount: raw.entries.length
    })
}
const calls = 60
/** Client CPU per boundary call of each pass (what the boundary itself costs, waits excluded). */
let cpuMs = []
let seq = 0
const boundaryPass = Effect.gen(function* () {
  const run = yield* makeRun({
    sessionId: "bench-session",
    query: "bench",
    authorizedTools: ["query_logs"],
    budget: {
      maxToolCalls: 1e9,
      maxRawBytesPerRun: 1e15,
      maxProjectionBytesPerRun: 1e15,
      maxRequestBytesPerRun: 1e15
    }
  })
  const boundary = yield* makeToolBoundary({ run, tools: [tool] })
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) {
    const outcome = yield* boundary.call({
      runId: run.runId,
      toolCallId: `call-${seq++}`,
      toolName: "query_logs",
      arguments: '{"query":"timeout"}'
    })
    if (outcome.error !== null) throw new Error(`bench call failed: ${outcome.error._tag}`)
  }
  const c = process.cpuUsage(c0)
  cpuMs.push((c.user + c.system) / 1000 / calls)
  return (performance.now() - t0) / calls
})

const raw = new Redis(url, { maxRetriesPerRequest: 1 })
const projecting = newProjectingInvocation({
  runId: "bench-run",
  sessionId: "bench-session",
  toolCallId: "call-x",
  toolName: "query_logs",
  stepId: null,
  request: { query: "timeout" },
  requestBytes: 19,
  createdAt: Date.now()
})
const projectingJson = JSON.stringify(projecting)
const readyJson = JSON.stringify(
  toReady(projecting, {
    evidenceStatus: "EVIDENCE_FOUND",
    rawResponse,
    rawBytes: 1,
    agentResult: { patterns: [] },
    projectionBytes: 1,
    truncated: false,
    at: Date.now()
  })
)
const rawPass = async () => {
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) {
    const key = `${keyPrefix}:raw:${seq++}`
    await raw.set(key, projectingJson, "PX", 60_000, "NX")
    await raw.set(key, readyJson, "PX", 60_000)
  }
  return (performance.now() - t0) / calls
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** Alternating boundary and raw passes over one store configuration; medians. */
async function measure(label, compressAboveBytes) {
  const config = {
    url,
    keyPrefix,
    ttlMillis: 60_000,
    maxRecordBytes: 16 * 1024 * 1024,
    commandTimeoutMs: 2_000,
    connectTimeoutMs: 3_000,
    compressAboveBytes
  }
  const boundaryMs = []
  const rawMs = []
  cpuMs = []
  await Effect.runPromise(
    Effect.gen(function* () {
      yield* boundaryPass
      yield* Effect.promise(rawPass)
      for (let r = 0; r < 7; r++) {
        boundaryMs.push(yield* boundaryPass)
        rawMs.push(yield* Effect.promise(rawPass))
      }
    }).pipe(Effect.provide(Layer.merge(RedisCanonicalStore.layer(config), AuditSink.noop)))
  )
  const b = median(boundaryMs)
  const r = median(rawMs)
  console.log(
    `boundary store=${label} raw_kb=${(JSON.stringify(rawResponse).length / 1024).toFixed(0)} call_us=${(b * 1000).toFixed(0)} ` +
      `two_raw_round_trips_us=${(r * 1000).toFixed(0)} overhead_us=${((b - r) * 1000).toFixed(0)} ratio=${(b / r).toFixed(2)} ` +
      `client_cpu_us=${(median(cpuMs) * 1000).toFixed(0)}`
  )
}

await measure("compressed(default)", undefined)
await measure("uncompressed", 64 * 1024 * 1024)
let cursor = "0"
do {
  const [next, keys] = await raw.scan(cursor, "MATCH", `${keyPrefix}:*`, "COUNT", 1000)
  cursor = next
  if (keys.length > 0) await raw.del(...keys)
} while (cursor !== "0")
await raw.quit()
