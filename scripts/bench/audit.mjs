// Durable audit: timeline events written per second to MySQL, one insert per event (unbatched)
// next to buffered multi-row inserts (batched), same server, same run. Printed, never asserted.
//   pnpm --filter @aiops-harness/audit... build && MYSQL_URL=mysql://root@127.0.0.1:3306/test node scripts/bench/audit.mjs
import { connect } from "node:net"
import { makeMysqlAudit, migrate } from "../../packages/audit/dist/index.js"
import mysql from "../../packages/audit/node_modules/mysql2/promise.js"
import { Effect } from "../../packages/audit/node_modules/effect/dist/index.js"

const baseUrl = process.env.MYSQL_URL || "mysql://root@127.0.0.1:3306/test"
const seconds = 3
const writers = 4
const batch = { maxEvents: 200, maxDelayMs: 50 }

const reachable = (url) =>
  new Promise((resolve) => {
    const u = new URL(url)
    const socket = connect({ host: u.hostname || "127.0.0.1", port: Number(u.port || 3306) })
    const done = (ok) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

if (!(await reachable(baseUrl))) {
  console.log(
    `audit skipped: no MySQL answers at ${new URL(baseUrl).host} (start MySQL/MariaDB or set MYSQL_URL)`
  )
  process.exit(0)
}

// A dedicated database, dropped at the end.
const database = "aiops_audit_bench"
const admin = await mysql.createConnection({ uri: baseUrl })
await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`)
const benchUrl = new URL(baseUrl)
benchUrl.pathname = `/${database}`
const url = benchUrl.toString()
await Effect.runPromise(migrate(url))

const payload = {
  tool_call_id: "call-1",
  tool: "query_logs",
  status: "READY",
  latency_ms: 12,
  truncated: false
}

/** `writers` runs, each appending its events in order (like a RunRecorder), until the deadline. */
const measure = async (label, timelineBatch) => {
  const prefix = `${label}-${process.pid}`
  const started = Date.now()
  const deadline = started + seconds * 1000
  await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const audit = yield* makeMysqlAudit({ url, connectionLimit: writers, timelineBatch })
        const writer = (w) =>
          Effect.gen(function* () {
            const runId = `${prefix}-${w}`
            const sessionId = `bench-session-${w}`
            let seq = 0
            while (Date.now() < deadline) {
              seq++
              yield* audit.sink.appendTimelineEvent({
                runId,
                sessionId,
                seq,
                type: "TOOL_INVOCATION",
                at: Date.now(),
                payload
              })
            }
          })
        yield* Effect.all(
          Array.from({ length: writers }, (_, w) => writer(w)),
          { concurrency: "unbounded" }
        )
      })
    )
  )
  // The scope is closed: every buffered event is flushed. Count what really landed.
  const elapsed = (Date.now() - started) / 1000
  const [rows] = await admin.query(
    `SELECT COUNT(*) AS n FROM \`${database}\`.run_timeline_event WHERE run_id LIKE ?`,
    [`${prefix}-%`]
  )
  return Math.round(Number(rows[0].n) / elapsed)
}

try {
  const unbatched = await measure("unbatched", null)
  const batched = await measure("batched", batch)
  console.log(`audit timeline_events_per_s unbatched=${unbatched} batched=${batched}`)
  console.log(
    `  (${writers} concurrent runs, ${seconds}s each, batch = ${batch.maxEvents} events / ${batch.maxDelayMs} ms, rows counted after the final flush)`
  )
} finally {
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
  await admin.end()
}
