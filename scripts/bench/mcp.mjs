// MCP through the ToolBoundary: what the protocol layer adds to a call. `lookup_knowledge` on the
// demo runbooks, in-memory canonical store and audit: the boundary called directly vs the same
// call as an MCP `tools/call` (in-memory transport, one session = one run); then a governed
// external tool (a stdio child process, the test suite's fixture server) through the boundary.
// Printed, not asserted.
import { fileURLToPath } from "node:url"
import { InMemoryAudit } from "../../packages/audit/dist/index.js"
import {
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  newSessionId
} from "../../packages/core/dist/index.js"
import { connectExternalTools, makeMcpSession, parseMcpConfig } from "../../packages/mcp/dist/index.js"
import { EmbeddedKnowledgeSearch, lookupKnowledgeTool } from "../../packages/tools/dist/index.js"

const sdk = "../../packages/mcp/node_modules/@modelcontextprotocol/sdk/dist/esm"
const { Client } = await import(`${sdk}/client/index.js`)
const { InMemoryTransport } = await import(`${sdk}/inMemory.js`)
const { Effect, Layer, ManagedRuntime } = await import("../../packages/mcp/node_modules/effect/dist/index.js")

const runbooks = fileURLToPath(new URL("../../apps/diagnosis-harness/demo/runbooks/", import.meta.url))
const fixture = fileURLToPath(
  new URL("../../packages/mcp/test/fixtures/external-server.mjs", import.meta.url)
)
const N = Number(process.argv[2] ?? 300)
const budget = {
  maxToolCalls: N + 50,
  maxRequestBytesPerRun: 10_000_000,
  maxProjectionBytesPerRun: 100_000_000
}

const runtime = ManagedRuntime.make(
  Layer.mergeAll(InMemoryCanonicalStore.layer({ maxRecordBytes: 50_000_000 }), InMemoryAudit.layer)
)
const search = await Effect.runPromise(EmbeddedKnowledgeSearch.fromDirectory(runbooks))
const tool = lookupKnowledgeTool({ search })
const queries = ["connection pool exhausted", "OOMKilled restart", "slow query orders", "redis timeout"]

const perCall = (ms, n) => (ms / n).toFixed(3)

// Direct boundary calls and the same calls over MCP, in alternating blocks (shared machine:
// interleaving spreads the noise over both).
const boundary = await runtime.runPromise(
  Effect.gen(function* () {
    const run = yield* makeRun({
      sessionId: newSessionId(),
      query: "bench",
      authorizedTools: [tool.name],
      budget
    })
    return yield* makeToolBoundary({ run, tools: [tool] })
  })
)
const session = await makeMcpSession({ tools: [tool], runner: runtime, budget })
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
await session.server.connect(serverSide)
const client = new Client({ name: "bench", version: "1" })
await client.connect(clientSide)
let seq = 0
const direct = (i) =>
  runtime.runPromise(
    boundary.call({
      runId: boundary.run.runId,
      toolCallId: `c${seq++}`,
      toolName: tool.name,
      arguments: { query: queries[i % 4] }
    })
  )
const overMcp = (i) => client.callTool({ name: tool.name, arguments: { query: queries[i % 4] } })
for (let i = 0; i < 20; i++) {
  await direct(i)
  await overMcp(i)
}
let directMs = 0
let mcpMs = 0
const ROUNDS = 6
for (let r = 0; r < ROUNDS; r++) {
  let t = performance.now()
  for (let i = 0; i < N / ROUNDS; i++) await direct(i)
  directMs += performance.now() - t
  t = performance.now()
  for (let i = 0; i < N / ROUNDS; i++) await overMcp(i)
  mcpMs += performance.now() - t
}
await client.close()
console.log(
  `mcp_served_call calls=${N} boundary_direct_ms_per_call=${perCall(directMs, N)} mcp_in_memory_ms_per_call=${perCall(mcpMs, N)} mcp_overhead_ms_per_call=${perCall(mcpMs - directMs, N)}`
)

// A governed external tool: stdio child, projector with allowlist + redaction of 40 items.
const config = await Effect.runPromise(
  parseMcpConfig({
    servers: {
      ticketing: {
        command: process.execPath,
        args: [fixture],
        projector: { maxItems: 20, fields: ["items.id", "items.title", "items.body"] },
        tools: { search_tickets: { allowed: true, readOnly: true } }
      }
    }
  })
)
let t = performance.now()
const external = await Effect.runPromise(connectExternalTools(config))
const connectMs = performance.now() - t
const ext = external.tools[0]
const extBoundary = await runtime.runPromise(
  Effect.gen(function* () {
    const run = yield* makeRun({
      sessionId: newSessionId(),
      query: "bench",
      authorizedTools: [ext.name],
      budget
    })
    return yield* makeToolBoundary({ run, tools: [ext] })
  })
)
const M = Math.max(20, Math.floor(N / 3))
for (let i = 0; i < 10; i++)
  await runtime.runPromise(
    extBoundary.call({
      runId: extBoundary.run.runId,
      toolCallId: `w${i}`,
      toolName: ext.name,
      arguments: { query: "x" }
    })
  )
t = performance.now()
let ready = 0
for (let i = 0; i < M; i++) {
  const outcome = await runtime.runPromise(
    extBoundary.call({
      runId: extBoundary.run.runId,
      toolCallId: `e${i}`,
      toolName: ext.name,
      arguments: { query: `q${i}` }
    })
  )
  if (outcome.control.status === "READY") ready++
}
const extMs = performance.now() - t
console.log(
  `mcp_external_call calls=${M} ready=${ready} connect_and_list_ms=${connectMs.toFixed(1)} ms_per_call=${perCall(extMs, M)} raw_bytes=${
    (
      await runtime.runPromise(
        extBoundary.call({
          runId: extBoundary.run.runId,
          toolCallId: "last",
          toolName: ext.name,
          arguments: { query: "q" }
        })
      )
    ).control.rawBytes
  }`
)
await external.close()
await runtime.dispose()
