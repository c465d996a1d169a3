// `pnpm load [--clients N] [--runs N] [--soak SECONDS] [--real] [--sample N] [--ttl-ms N]`
//
// A bounded load generator: starts the app (`dist/cli.js serve`) on 127.0.0.1 with a free port,
// drives N concurrent clients through `POST /api/chat` (each its own session) until `--runs`
// runs are done or `--soak` seconds have passed, then prints runs/s, latency p50/p95/p99,
// errors, the server's RSS at start / end / peak, and an integrity check of a sample of traces
// (ids, timeline order, steps, tool ids, token sums, row counts).
//
// Backends: embedded (in-memory store and audit) by default; `--real` hands REDIS_URL and
// MYSQL_URL through (defaults: redis://127.0.0.1:6379, mysql://root@127.0.0.1:3306/aiops_reliability_load,
// key prefix `aiops_reliability_load`). `--ttl-ms` sets CANONICAL_STORE_TTL_MS. Figures are printed, never asserted.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"

const { values: args } = parseArgs({
  options: {
    clients: { type: "string", default: "4" },
    runs: { type: "string", default: "200" },
    soak: { type: "string" },
    real: { type: "boolean", default: false },
    sample: { type: "string", default: "20" },
    "ttl-ms": { type: "string" },
    scenario: { type: "string", default: "db-pool-exhaustion" }
  }
})
const positive = (name, text) => {
  const n = Number(text)
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`--${name} must be a positive integer`)
    process.exit(2)
  }
  return n
}
const clients = positive("clients", args.clients)
const soakSeconds = args.soak === undefined ? null : positive("soak", args.soak)
const maxRuns = soakSeconds === null ? positive("runs", args.runs) : Number.POSITIVE_INFINITY
const sampleSize = positive("sample", args.sample)

const root = join(import.meta.dirname, "..")
const cli = join(root, "apps/diagnosis-harness/dist/cli.js")
const env = { ...process.env, HOST: "127.0.0.1", SCENARIO: args.scenario, LOG_LEVEL: "error" }
if (args.real) {
  env.REDIS_URL ??= "redis://127.0.0.1:6379"
  env.MYSQL_URL ??= "mysql://root@127.0.0.1:3306/aiops_reliability_load"
  env.CANONICAL_STORE_KEY_PREFIX ??= "aiops_reliability_load"
} else {
  delete env.REDIS_URL
  delete env.MYSQL_URL
  delete env.REDIS_CLUSTER_NODES
}
if (args["ttl-ms"] !== undefined) env.CANONICAL_STORE_TTL_MS = String(positive("ttl-ms", args["ttl-ms"]))

if (args.real) {
  // The audit database must exist before the app migrates it.
  const mysql = await import(join(root, "packages/audit/node_modules/mysql2/promise.js")).then(
    (m) => m.default
  )
  const url = new URL(env.MYSQL_URL)
  const database = url.pathname.replace(/^\//, "")
  url.pathname = "/"
  const conn = await mysql.createConnection({ uri: url.toString() })
  await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4`)
  await conn.end()
}

const server = spawn(process.execPath, [cli, "serve", "--port", "0"], {
  env,
  stdio: ["ignore", "pipe", "pipe"]
})
const base = await new Promise((resolve, reject) => {
  let output = ""
  const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 60_000)
  const read = (d) => {
    output += d
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
    if (m) {
      clearTimeout(timer)
      resolve(m[1])
    }
  }
  server.stdout.on("data", read)
  server.stderr.on("data", read)
  server.once("exit", (code) => reject(new Error(`server exited ${code}: ${output}`)))
})
const stopServer = () =>
  new Promise((resolve) => {
    if (server.exitCode !== null) return resolve()
    server.once("exit", resolve)
    server.kill("SIGTERM")
  })

/** Resident set size of the server in MB (Linux /proc). */
const rssMb = () => {
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, "utf8")
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
    return Math.round(kb / 1024)
  } catch {
    return Number.NaN
  }
}

const QUESTIONS = [
  "why is checkout returning 500s?",
  "checkout errors since 10:00, what is the cause?",
  "why are orders failing to be created?"
]

const chat = async (sessionId, question) => {
  const started = performance.now()
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question, sessionId })
  })
  const text = await response.text()
  const ms = performance.now() - started
  if (response.status !== 200) return { ms, error: `HTTP ${response.status}` }
  const answer = /event: answer\ndata: (.*)\n/.exec(text)
  if (!answer) {
    const error = /event: error\ndata: (.*)\n/.exec(text)
    return { ms, error: error ? JSON.parse(error[1]).error : "NO_ANSWER" }
  }
  return { ms, answer: JSON.parse(answer[1]) }
}

// ---- drive the load -------------------------------------------------------------------------
const rssStart = rssMb()
let rssPeak = rssStart
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, rssMb())
}, 500)
const latencies = []
const errors = new Map()
const done = []
const releases = new Map()
let started = 0
/** RSS once the server is warm (100 runs, or a tenth of a shorter load): the base of "flat". */
let rssWarm = null
const warmAfter = Math.max(1, Math.min(100, Math.floor((Number.isFinite(maxRuns) ? maxRuns : 1000) / 10)))
const startedAt = performance.now()
const deadline = soakSeconds === null ? Number.POSITIVE_INFINITY : startedAt + soakSeconds * 1000
const client = async (index) => {
  const sessionId = `load-${process.pid}-${index}`
  for (let i = 0; ; i++) {
    if (started >= maxRuns || performance.now() >= deadline) return
    started++
    const r = await chat(sessionId, QUESTIONS[i % QUESTIONS.length])
    latencies.push(r.ms)
    if (r.error) errors.set(r.error, (errors.get(r.error) ?? 0) + 1)
    else {
      done.push({ sessionId, runId: r.answer.runId })
      if (done.length === warmAfter) rssWarm = rssMb()
      releases.set(r.answer.releaseResult, (releases.get(r.answer.releaseResult) ?? 0) + 1)
    }
  }
}
await Promise.all(Array.from({ length: clients }, (_, i) => client(i)))
const elapsedS = (performance.now() - startedAt) / 1000
const rssEnd = rssMb()
clearInterval(sampler)

// ---- integrity of a sample of traces ----------------------------------------------------------
const problems = []
const check = (ok, what, run) => {
  if (!ok) problems.push(`${run.runId}: ${what}`)
}
// From the newest 1000 runs: the embedded audit keeps only its newest runs (maxRuns 2000).
const recent = done.slice(-1000)
const step = Math.max(1, Math.floor(recent.length / sampleSize))
const sample = recent.filter((_, i) => i % step === 0).slice(0, sampleSize)
for (const run of sample) {
  const response = await fetch(`${base}/api/trace?sessionId=${run.sessionId}&runId=${run.runId}`)
  if (response.status !== 200) {
    problems.push(`${run.runId}: trace HTTP ${response.status}`)
    continue
  }
  const t = await response.json()
  check(t.run.run_id === run.runId && t.run.session_id === run.sessionId, "ids", run)
  check(t.run.status === "FINISHED", `status ${t.run.status}`, run)
  check(
    t.timeline.every((e, i) => e.seq === i + 1),
    "timeline seq not 1..n",
    run
  )
  check(
    t.timeline[0]?.type === "RUN_STARTED" && t.timeline.at(-1)?.type === "RUN_FINISHED",
    "timeline ends",
    run
  )
  const tools = [...t.agent_steps.flatMap((s) => s.tool_invocations), ...t.tool_invocations_without_step]
  const toolIds = tools.map((x) => x.tool_call_id)
  check(new Set(toolIds).size === toolIds.length, "duplicate tool ids", run)
  const stepCallIds = new Set(t.agent_steps.flatMap((s) => s.tool_call_ids))
  check(
    toolIds.every((id) => stepCallIds.has(id)),
    "a tool invocation no step issued",
    run
  )
  const ledger = t.token_ledger.reduce((sum, u) => sum + (u.total_tokens ?? 0), 0)
  const finished = t.timeline.at(-1)?.payload.run_total_tokens
  check(ledger === t.run.total_token_count && ledger === finished, "token sums", run)
  const e = t.run.expected
  check(
    e &&
      e.timeline_events === t.timeline.length &&
      e.agent_steps === t.agent_steps.length &&
      e.tool_invocations === tools.length &&
      e.token_usages === t.token_ledger.length,
    "row counts",
    run
  )
  const r = t.reconciliation
  check(
    r.audit_complete && r.counts_match && r.tokens_reconciled && r.missing_writes === 0,
    "reconciliation",
    run
  )
}
// ---- the server's own view (Prometheus text) --------------------------------------------------
const metricsText = await (await fetch(`${base}/metrics`)).text()
const metric = (name) => {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(metricsText)
  return m ? Number(m[1]) : null
}
/** A quantile from a histogram's cumulative buckets (upper bound of the bucket, in ms). */
const histogramQuantile = (name, labels, q) => {
  const rows = metricsText
    .split("\n")
    .filter((line) => line.startsWith(`${name}_bucket{`) && line.includes(labels))
    .map((line) => [line, /le="([^"]+)"/.exec(line)?.[1] ?? "", line.slice(line.lastIndexOf(" ") + 1)])
  const total = Number(rows.at(-1)?.[2] ?? 0)
  if (total === 0) return null
  const hit = rows.find((r) => Number(r[2]) >= q * total)
  return hit ? (hit[1] === "+Inf" ? "+Inf" : Number(hit[1]) * 1000) : null
}
await stopServer()

const sorted = [...latencies].sort((a, b) => a - b)
const pct = (p) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]) : 0
const backends = args.real ? "redis+mysql" : "embedded"
console.log(
  [
    `load backends=${backends} clients=${clients} runs=${latencies.length} seconds=${elapsedS.toFixed(1)} runs_per_s=${(latencies.length / elapsedS).toFixed(1)}`,
    `latency_ms p50=${pct(50)} p95=${pct(95)} p99=${pct(99)} max=${Math.round(sorted.at(-1) ?? 0)}`,
    `errors=${[...errors.values()].reduce((a, b) => a + b, 0)} ${JSON.stringify(Object.fromEntries(errors))} releases=${JSON.stringify(Object.fromEntries(releases))}`,
    `rss_mb start=${rssStart} warm=${rssWarm} (after ${warmAfter} runs) end=${rssEnd} peak=${rssPeak} end/start=${(rssEnd / rssStart).toFixed(2)} end/warm=${rssWarm ? (rssEnd / rssWarm).toFixed(2) : "n/a"}`,
    `audit dropped_writes=${metric("aiops_audit_dropped_writes")} breaker_opened=${metric("aiops_audit_breaker_opened")} write_ms p50<=${histogramQuantile("aiops_audit_seconds", 'kind="write",outcome="ok"', 0.5)} p99<=${histogramQuantile("aiops_audit_seconds", 'kind="write",outcome="ok"', 0.99)} store_create_ms p99<=${histogramQuantile("aiops_canonical_store_seconds", 'operation="create",outcome="ok"', 0.99)}`,
    `integrity sample=${sample.length} ok=${sample.length - new Set(problems.map((p) => p.split(":")[0])).size} problems=${problems.length}`,
    ...problems.slice(0, 10).map((p) => `  ${p}`)
  ].join("\n")
)
process.exitCode = problems.length > 0 || errors.size > 0 ? 1 : 0
