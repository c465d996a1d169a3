// Trace viewer: how long the runs list query takes on a large audit (MySQL, N runs), first page
// and a later page, unfiltered and filtered. Printed, never asserted.
//   pnpm --filter @aiops-harness/audit... build && MYSQL_URL=mysql://root@127.0.0.1:3306/test node scripts/bench/viewer.mjs [runs, default 50000]
import { connect } from "node:net"
import { performance } from "node:perf_hooks"
import { makeInMemoryAudit, makeMysqlAudit, migrate } from "../../packages/audit/dist/index.js"
import mysql from "../../packages/audit/node_modules/mysql2/promise.js"
import { Effect } from "../../packages/audit/node_modules/effect/dist/index.js"

const baseUrl = process.env.MYSQL_URL || "mysql://root@127.0.0.1:3306/test"
const runs = Number(process.argv[2] || 50_000)
const repeats = 20

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

/** Median wall time of `repeats` runs of `effect`, in ms. */
const median = async (effect) => {
  const times = []
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    await Effect.runPromise(effect)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)].toFixed(2)
}

// In-memory: the embedded default, 10k runs.
{
  const handle = await Effect.runPromise(makeInMemoryAudit())
  const n = 10_000
  for (let i = 0; i < n; i++) {
    await Effect.runPromise(
      handle.sink.startRun({
        runId: `r-${i}`,
        sessionId: `s-${i % 100}`,
        query: "q",
        startedAt: 1_000_000 + i
      })
    )
  }
  const first = await median(handle.trace.listRuns({ limit: 20 }))
  const session = await median(handle.trace.listRuns({ limit: 20, sessionId: "s-7" }))
  console.log(`viewer list_runs_ms in-memory runs=${n} first_page=${first} session_filter=${session}`)
}

if (!(await reachable(baseUrl))) {
  console.log(
    `viewer mysql skipped: no MySQL answers at ${new URL(baseUrl).host} (start MySQL/MariaDB or set MYSQL_URL)`
  )
  process.exit(0)
}

// A dedicated database, dropped at the end.
const database = "aiops_viewer_bench"
const admin = await mysql.createConnection({ uri: baseUrl })
await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`)
const benchUrl = new URL(baseUrl)
benchUrl.pathname = `/${database}`
const url = benchUrl.toString()
await Effect.runPromise(migrate(url))

// N finished runs, 100 sessions, a third of them CANNOT_CONCLUDE; each with 3 tool invocations.
const conn = await mysql.createConnection({ uri: url })
for (let offset = 0; offset < runs; offset += 1000) {
  const rows = []
  const tools = []
  for (let i = offset; i < Math.min(runs, offset + 1000); i++) {
    rows.push([
      `r-${i}`,
      `s-${i % 100}`,
      "why is checkout returning 500s?",
      "FINISHED",
      "diagnosis",
      i % 3 === 0 ? "CANNOT_CONCLUDE" : "DIAGNOSIS_REPORT",
      120,
      23774,
      1,
      1_700_000_000_000 + i * 1000,
      1_700_000_000_120 + i * 1000,
      24,
      5,
      3,
      7,
      0
    ])
    for (let t = 0; t < 3; t++) {
      tools.push([`r-${i}`, `s-${i % 100}`, `call-${t}`, "query_logs", 1_700_000_000_000 + i * 1000])
    }
  }
  await conn.query(
    `INSERT INTO diagnosis_run (run_id, session_id, \`query\`, status, intent, release_result, latency_ms,
       total_token_count, usage_complete, started_at, finished_at, expected_timeline_events,
       expected_agent_steps, expected_tool_invocations, expected_token_usages, failed_writes) VALUES ?`,
    [rows]
  )
  await conn.query(
    `INSERT INTO tool_invocation (run_id, session_id, tool_call_id, tool_name, started_at, latency_ms,
       request_bytes, raw_bytes, projection_bytes, truncated, metadata) SELECT v.*, 5, 10, 10, 10, 0, '{}' FROM (
       ${tools.map(() => "SELECT ? AS a, ? AS b, ? AS c, ? AS d, ? AS e").join(" UNION ALL ")}) AS v`,
    tools.flat()
  )
}
await conn.end()

await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const audit = yield* makeMysqlAudit({ url })
      const q = audit.trace
      const first = yield* Effect.promise(() => median(q.listRuns({ limit: 20 })))
      const page = yield* q.listRuns({ limit: 20 })
      const second = yield* Effect.promise(() => median(q.listRuns({ limit: 20, before: page.next_cursor })))
      const session = yield* Effect.promise(() => median(q.listRuns({ limit: 20, sessionId: "s-7" })))
      const released = yield* Effect.promise(() =>
        median(q.listRuns({ limit: 20, releaseResult: "CANNOT_CONCLUDE" }))
      )
      console.log(
        `viewer list_runs_ms mysql runs=${runs} first_page=${first} second_page=${second} session_filter=${session} outcome_filter=${released}`
      )
    })
  )
)
await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
await admin.end()
