// Sends three tool calls through the ToolBoundary on embedded defaults (in-memory store,
// no durable audit) and prints what the harness sees (Control View) and what the model
// sees (Agent Observation) for each: a success, an empty result and a failing backend.
//
//   pnpm --filter @aiops-harness/core build && node examples/tool-boundary.mjs
import {
  AuditSink,
  BackendError,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary
} from "@aiops-harness/core"
import { Effect, Layer } from "effect"
import { z } from "zod"

const runbooks = [
  {
    id: "runbooks/db-pool.md",
    text: "Checkout 500s with HikariPool timeouts: the connection pool is exhausted."
  },
  { id: "runbooks/redis.md", text: "Redis timeouts on the cart service: check maxclients and slowlog." }
]

/** A tiny read-only knowledge tool: backend = substring search, projector = bounded excerpts. */
const lookupKnowledge = {
  name: "lookup_knowledge",
  description: "Search the runbooks",
  readOnly: true,
  requestSchema: z.object({ query: z.string().min(1).max(200) }).strict(),
  execute: (request) =>
    Effect.succeed({
      evidence: runbooks.filter((r) => r.text.toLowerCase().includes(request.query.toLowerCase())),
      retrieval_trace: { scores: [0.93, 0.12] }
    }),
  project: ({ raw, maxBytes }) =>
    Effect.succeed({
      evidenceStatus: raw.evidence.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
      observation: {
        evidence: raw.evidence.map((r) => ({
          document_id: r.id,
          excerpt: r.text.slice(0, Math.min(120, maxBytes))
        }))
      },
      truncated: false,
      returnedCount: raw.evidence.length
    })
}

/** A backend that fails with a secret in its message: the model must never see it. */
const queryLogs = {
  name: "query_logs",
  description: "Query logs",
  readOnly: true,
  requestSchema: z.object({ topic: z.string(), query: z.string() }).strict(),
  execute: () =>
    Effect.fail(
      new BackendError({
        toolName: "query_logs",
        cause: new Error("auth failed for elastic:s3cr3t@10.1.2.3:9200")
      })
    ),
  project: () => Effect.die("not reached")
}

const program = Effect.gen(function* () {
  const run = yield* makeRun({
    sessionId: "example-session",
    query: "why is checkout returning 500s?",
    authorizedTools: ["lookup_knowledge", "query_logs"]
  })
  const boundary = yield* makeToolBoundary({ run, tools: [lookupKnowledge, queryLogs] })
  const calls = [
    {
      label: "successful call",
      toolCallId: "call-1",
      toolName: "lookup_knowledge",
      arguments: '{"query":"pool"}'
    },
    {
      label: "empty result (NO_EVIDENCE)",
      toolCallId: "call-2",
      toolName: "lookup_knowledge",
      arguments: '{"query":"kafka lag"}'
    },
    {
      label: "failing backend",
      toolCallId: "call-3",
      toolName: "query_logs",
      arguments: '{"topic":"application","query":"level:ERROR"}'
    }
  ]
  for (const { label, ...envelope } of calls) {
    const outcome = yield* boundary.call({ runId: run.runId, ...envelope })
    console.log(`\n=== ${label} ===`)
    console.log("Agent Observation (model sees):", JSON.stringify(outcome.observation, null, 2))
    console.log("Control View (harness sees):", JSON.stringify(outcome.control, null, 2))
  }
  yield* run.finish({ status: "FINISHED" })
})

await Effect.runPromise(
  program.pipe(Effect.provide(Layer.merge(InMemoryCanonicalStore.layer(), AuditSink.noop)))
)
