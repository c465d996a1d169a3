// Logs projector throughput against JSON.parse of the same payload (printed, never asserted).
// Usage: pnpm --filter @aiops-harness/projectors build && node scripts/bench/projectors.mjs [targetMB]
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { projectLogs } from "../../packages/projectors/dist/index.js"

// `effect` is a dependency of the package, not of the workspace root: resolve it from there.
const requireFromPackage = createRequire(new URL("../../packages/projectors/package.json", import.meta.url))
const { Effect } = await import(pathToFileURL(requireFromPackage.resolve("effect")).href)

const targetBytes = Math.round(Number(process.argv[2] ?? 10) * 1024 * 1024)

// Deterministic pseudo-random numbers (mulberry32), so every run builds the same payload.
let seed = 0x5eed
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)]
const int = (n) => Math.floor(rand() * n)
const hex = (n) => Array.from({ length: n }, () => "0123456789abcdef"[int(16)]).join("")
const ip = () => `10.${int(256)}.${int(256)}.${int(256)}`
const services = ["checkout", "payment", "inventory", "gateway", "orders-db", "auth"]
const templates = [
  () =>
    `Request ${hex(8)} to ${ip()}:8080 completed in ${int(5000)}ms status=${pick([200, 201, 404, 500, 503])}`,
  () =>
    `java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after ${int(30000)}ms.\n\tat com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:696)\n\tat com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:197)`,
  () => `login user=u${int(1000)} password=${hex(12)} from ${ip()} session=${hex(24)}`,
  () =>
    `Pod checkout-7d9f8b6c5d-${pick(["x2k4p", "b7n9q", "zz4m2"])} on node ip-10-0-1-${int(250)}.ec2.internal OOMKilled (pid=${int(60000)})`,
  () =>
    `upstream timed out (110: Connection timed out) while reading response header from upstream, client: ${ip()}, server: api.shop.example.com, request: "GET /api/v1/orders?id=${int(1e6)}&token=${hex(32)} HTTP/1.1"`,
  () =>
    `# Query_time: ${(rand() * 10).toFixed(3)} Lock_time: 0.000 Rows_examined: ${int(1e6)} SELECT * FROM orders WHERE customer_id = ${int(1e5)} AND status = 'PENDING' LIMIT 50`,
  () =>
    `Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIke${hex(10)}In0.${hex(20)} rejected for tenant ${int(100)}`,
  () =>
    `TimeoutError: call to payment-gateway took ${int(9000)}ms\n    at async Promise.all (index 0)\n    at processPayment (/app/src/pay.js:88:13)`,
  () => `GET /healthz 200 ${int(10)}ms`,
  () => `Using AWS key AKIA${hex(16).toUpperCase()} for bucket backups-${int(9)} region us-east-1`
]
const levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"]

const entries = []
let size = 0
const start = Date.parse("2026-01-01T00:00:00Z")
while (size < targetBytes) {
  const entry = {
    timestamp: new Date(start + entries.length * 37).toISOString(),
    level: pick(levels),
    service: pick(services),
    message: pick(templates)()
  }
  if (rand() < 0.2) entry.fields = { trace_id: hex(16), latency_ms: int(5000) }
  entries.push(entry)
  size += JSON.stringify(entry).length + 1
}
const raw = {
  source_kind: "bench",
  scope: {
    topic: "application",
    query: "*",
    service: null,
    start_time: entries[0].timestamp,
    end_time: entries[entries.length - 1].timestamp
  },
  entries,
  total_matched: entries.length
}
const text = JSON.stringify(raw)
const mb = Buffer.byteLength(text) / (1024 * 1024)
// What a tool hands the boundary: the backend's JSON text, parsed (flat strings, as in production).
const parsed = JSON.parse(text)

const projector = projectLogs()
const request = { topic: "application", query: "*", lookback_minutes: 60 }
const run = () =>
  Effect.runSync(projector({ request, toolCallId: "bench-call-0001", raw: parsed, maxBytes: 16 * 1024 }))

run() // warm-up
let peakRss = process.memoryUsage().rss
JSON.parse(text)
// Alternate projector and JSON.parse rounds so both see the same machine; medians of CPU time
// (user + system: steadier than wall time on a shared machine).
const cpu = (fn) => {
  const c0 = process.cpuUsage()
  const result = fn()
  const c = process.cpuUsage(c0)
  return [(c.user + c.system) / 1e6, result]
}
const rounds = 9
const projectorTimes = []
const parseTimes = []
let projection
for (let i = 0; i < rounds; i++) {
  const [projectorSeconds, result] = cpu(run)
  projection = result
  projectorTimes.push(projectorSeconds)
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
  parseTimes.push(cpu(() => JSON.parse(text))[0])
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const projectorSeconds = median(projectorTimes)
const parseSeconds = median(parseTimes)
peakRss = Math.max(peakRss, process.memoryUsage().rss)

const mbPerS = mb / projectorSeconds
const parseMbPerS = mb / parseSeconds
const memory = process.memoryUsage()
console.log(
  `logs_projector mb_per_s=${mbPerS.toFixed(1)} json_parse_mb_per_s=${parseMbPerS.toFixed(1)} ` +
    `vs_json_parse=${(mbPerS / parseMbPerS).toFixed(2)} peak_rss_mb=${(peakRss / 1048576).toFixed(0)} ` +
    `heap_used_mb=${(memory.heapUsed / 1048576).toFixed(0)}`
)
console.log(
  `payload_mb=${mb.toFixed(2)} entries=${entries.length} patterns=${projection.observation.patterns.length} ` +
    `timeline=${projection.observation.timeline.length} truncated=${projection.truncated} ` +
    `observation_bytes=${Buffer.byteLength(JSON.stringify(projection.observation))}`
)

// ---- redaction throughput ------------------------------------------------------------------
// `redactText` line by line over a ~10 MB mixed log (ordinary lines, keyed secrets, vendor
// tokens, structured forms, hosts and PIDs). Its own PRNG seed, so the logs section above
// does not change this payload.
{
  const { redactText } = await import("../../packages/projectors/dist/index.js")
  let rs = 0x12ed
  const r = () => {
    rs = (rs + 0x6d2b79f5) | 0
    let t = Math.imul(rs ^ (rs >>> 15), 1 | rs)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const ri = (n) => Math.floor(r() * n)
  const rp = (xs) => xs[ri(xs.length)]
  const AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
  const rs62 = (n) => Array.from({ length: n }, () => AN[ri(62)]).join("")
  const rhex = (n) => Array.from({ length: n }, () => "0123456789abcdef"[ri(16)]).join("")
  const rip = () => `10.${ri(256)}.${ri(256)}.${ri(256)}`
  const lines = [
    () => `GET /api/v1/orders/${ri(1e6)} 200 ${ri(900)}ms ua="Mozilla/5.0" rid=${rhex(16)}`,
    () => `INFO checkout order ${ri(1e5)} placed total=${ri(500)}.${ri(99)} currency=EUR`,
    () => `WARN payment retrying in ${ri(9)}s (attempt ${ri(5)} of 5) upstream=${rip()}:8443`,
    () => `usage prompt_tokens=${ri(4000)} completion_tokens=${ri(900)} model=gpt-4o latency_ms=${ri(3000)}`,
    () => `trace_id=${rhex(32)} span_id=${rhex(16)} sampled=true`,
    () => `login user=u${ri(1000)} password=${rs62(12)} from ${rip()} session=${rhex(24)}`,
    () => `export API_TOKEN="${rs62(32)}"`,
    () => `{"name":"DB_PASSWORD","value":"${rs62(20)}"}`,
    () => `<ApiToken>${rs62(28)}</ApiToken>`,
    () => `deploy using ghp_${rs62(36)} for repo acme/app`,
    () => `runner registered glrt-${rs62(20)}`,
    () =>
      `May 12 10:22:13 bastion-0${ri(9)} sshd[${ri(60000)}]: Accepted publickey for deploy from ${rip()} port ${ri(60000)} ssh2`,
    () =>
      `2026/03/02 10:11:12 [error] ${ri(9000)}#${ri(9000)}: *${ri(99)} connect() failed (111: Connection refused) while connecting to upstream`,
    () => `GET /cb?redirect_uri=https%3A%2F%2Fapp%2Fcb%3Faccess_token%3D${rs62(24)} HTTP/1.1`,
    () => `dsn=app:${rs62(14)}@tcp(db-main:3306)/orders?parseTime=true`,
    () => `Authorization: Bearer ${rs62(40)}`,
    () => `algolia=${rhex(32)} search index ready`,
    () =>
      `java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after ${ri(30000)}ms.`,
    () =>
      `# Query_time: ${(r() * 10).toFixed(3)} Rows_examined: ${ri(1e6)} SELECT * FROM orders WHERE customer_id = ${ri(1e5)} LIMIT 50`,
    () => `GC pause young generation ${ri(90)}ms heap ${ri(4000)}MB`,
    () =>
      `pod checkout-7d9f8b6c5d-x2k4p on node ip-10-0-1-${ri(250)}.ec2.internal OOMKilled (pid=${ri(60000)})`
  ]
  const logLines = []
  let bytes = 0
  while (bytes < targetBytes) {
    const line = rp(lines)()
    logLines.push(line)
    bytes += Buffer.byteLength(line) + 1
  }
  const logMb = bytes / (1024 * 1024)
  const redactAll = () => {
    let n = 0
    for (const line of logLines) n += redactText(line).length
    return n
  }
  redactAll() // warm-up
  const times = []
  for (let i = 0; i < 3; i++) {
    const t = performance.now()
    redactAll()
    times.push((performance.now() - t) / 1000)
  }
  times.sort((a, b) => a - b)
  console.log(
    `redaction mb_per_s=${(logMb / times[1]).toFixed(1)} (median of 3) log_mb=${logMb.toFixed(2)} lines=${logLines.length}`
  )
}
