// One offline demo diagnosis (in-memory backends) through the app: without span export, with
// OTLP/HTTP export (json, protobuf) to a loopback receiver, and as each HTTP stream
// (/api/chat, /api/ag-ui, /api/ai-sdk/chat; bytes per stream). Printed, not asserted.
import { createServer } from "node:http"
import { loadConfig } from "../../apps/diagnosis-harness/dist/config.js"
import { diagnose } from "../../apps/diagnosis-harness/dist/diagnose.js"
import { makeHttpApp } from "../../apps/diagnosis-harness/dist/http.js"
import { makeAppRuntime } from "../../apps/diagnosis-harness/dist/runtime.js"

const RUNS = 30
const QUESTION = "why is checkout returning 500s?"
const now = Date.parse("2026-03-15T10:30:00.000Z")

let received = 0
const receiver = createServer((req, res) => {
  req.on("data", (c) => {
    received += c.length
  })
  req.on("end", () => res.end("{}"))
})
await new Promise((r) => receiver.listen(0, "127.0.0.1", r))
const endpoint = `http://127.0.0.1:${receiver.address().port}`

const timeRuns = async (label, env) => {
  received = 0
  const runtime = makeAppRuntime(loadConfig({ SCENARIO: "db-pool-exhaustion", ...env }), { now })
  for (let i = 0; i < 3; i++) await runtime.runPromise(diagnose({ question: QUESTION }))
  const t = performance.now()
  for (let i = 0; i < RUNS; i++) await runtime.runPromise(diagnose({ question: QUESTION }))
  const ms = (performance.now() - t) / RUNS
  await runtime.dispose()
  console.log(
    `diagnose_run ${label} runs=${RUNS} ms_per_run=${ms.toFixed(2)} exported_kb=${(received / 1024).toFixed(0)}`
  )
}

await timeRuns("no_export", {})
await timeRuns("otlp_http_json", {
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
})
await timeRuns("otlp_http_protobuf", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })

const config = loadConfig({ SCENARIO: "db-pool-exhaustion" })
const runtime = makeAppRuntime(config, { now })
const app = makeHttpApp(runtime, config)
const bodies = {
  "/api/chat": (i) => ({ question: QUESTION, sessionId: `bench-${i}` }),
  "/api/ag-ui": (i) => ({
    threadId: `bench-${i}`,
    runId: `run-${i}`,
    messages: [{ id: "1", role: "user", content: QUESTION }]
  }),
  "/api/ai-sdk/chat": (i) => ({
    id: `bench-${i}`,
    messages: [{ id: "1", role: "user", parts: [{ type: "text", text: QUESTION }] }]
  })
}
for (const [path, body] of Object.entries(bodies)) {
  const tag = path.replace(/\W+/g, "-").replace(/^-/, "")
  const request = (i) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body(i))
    })
  for (let i = 0; i < 3; i++) await (await request(`warm-${tag}-${i}`)).text()
  let bytes = 0
  const t = performance.now()
  for (let i = 0; i < RUNS; i++) {
    const response = await request(`${tag}-${i}`)
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`)
    bytes += (await response.text()).length
  }
  const ms = (performance.now() - t) / RUNS
  console.log(
    `stream ${path} runs=${RUNS} ms_per_run=${ms.toFixed(2)} bytes_per_stream=${Math.round(bytes / RUNS)}`
  )
}
await runtime.dispose()
receiver.close()
