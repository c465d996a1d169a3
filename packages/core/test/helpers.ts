import { Effect, Layer } from "effect"
import { z } from "zod"
import {
  AuditSink,
  BackendError,
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  type MakeRunOptions,
  type Projection,
  type RunId,
  type SessionId,
  StoreError,
  type ToolDefinition
} from "../src/index.js"

export const SECRET = "hunter2-S3CR3T-do-not-leak"

/** A knowledge-like test tool whose backend and projector are controllable. */
export const knowledgeTool = (
  overrides: Partial<ToolDefinition<{ query: string }, { hits: Array<{ id: string; text: string }> }>> & {
    hits?: Array<{ id: string; text: string }>
  } = {}
): ToolDefinition<{ query: string }, { hits: Array<{ id: string; text: string }> }> => ({
  name: "lookup_knowledge",
  description: "test knowledge",
  readOnly: true,
  requestSchema: z.object({ query: z.string().min(1).max(200) }).strict(),
  execute: (request) =>
    Effect.succeed({
      hits: overrides.hits ?? [{ id: "runbook-db", text: `pool exhausted for ${request.query}` }]
    }),
  project: ({ raw }) =>
    Effect.succeed<Projection>({
      evidenceStatus: raw.hits.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
      observation: { evidence: raw.hits.map((h) => ({ document_id: h.id, excerpt: h.text.slice(0, 80) })) },
      truncated: false,
      returnedCount: raw.hits.length
    }),
  ...overrides
})

export const failingBackendTool = (): ToolDefinition<{ query: string }, unknown> => ({
  ...knowledgeTool(),
  name: "query_logs",
  execute: () =>
    Effect.fail(
      new BackendError({
        toolName: "query_logs",
        cause: new Error(`connection refused: mysql://root:${SECRET}@10.0.0.12:3306`)
      })
    ),
  project: () => Effect.die("never projected")
})

export const downStore = Layer.succeed(CanonicalInvocationStore, {
  create: () =>
    Effect.fail(new StoreError({ operation: "create", reason: "UNAVAILABLE", cause: new Error(SECRET) })),
  transition: () => Effect.fail(new StoreError({ operation: "transition", reason: "UNAVAILABLE" })),
  get: () => Effect.fail(new StoreError({ operation: "get", reason: "UNAVAILABLE" }))
})

export const RUN_ID = "run-test-1" as RunId
export const SESSION_ID = "session-test-1" as SessionId

export const runOptions = (overrides: Partial<MakeRunOptions> = {}): MakeRunOptions => ({
  sessionId: SESSION_ID,
  runId: RUN_ID,
  query: "why is checkout returning 500s?",
  authorizedTools: ["lookup_knowledge", "query_logs", "write_tool"],
  ...overrides
})

/** A run plus its boundary over the given tools, with an in-memory store unless told otherwise. */
export const setup = (
  tools: ReadonlyArray<ToolDefinition>,
  options: { run?: Partial<MakeRunOptions>; store?: Layer.Layer<CanonicalInvocationStore> } = {}
) =>
  Effect.gen(function* () {
    const run = yield* makeRun(runOptions(options.run))
    const boundary = yield* makeToolBoundary({ run, tools })
    const store = yield* CanonicalInvocationStore
    return { run, boundary, store }
  }).pipe(Effect.provide(Layer.merge(options.store ?? InMemoryCanonicalStore.layer(), AuditSink.noop)))

export const call = (
  toolCallId: string,
  args: unknown = { query: "checkout" },
  toolName = "lookup_knowledge"
) => ({
  runId: RUN_ID,
  toolCallId,
  toolName,
  arguments: typeof args === "string" ? args : JSON.stringify(args)
})
