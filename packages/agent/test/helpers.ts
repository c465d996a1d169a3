import { type ToolDefinition, ToolCallIdSchema } from "@aiops-harness/core"
import {
  type LogEntryRaw,
  type LogPatternObservation,
  projectKnowledge,
  projectLogs,
  QUERY_LOGS_TOOL_NAME
} from "@aiops-harness/projectors"
import { Effect, Layer } from "effect"
import { z } from "zod"
import { ChatModel, type ChatRequest } from "../src/index.js"
import { ScriptedTurn } from "../src/testing/index.js"

export interface KnowledgeDoc {
  readonly source: string
  readonly title: string
  readonly content: string
}

const KnowledgeRequest = z.object({
  query: z.string().min(1).max(500),
  top_k: z.number().int().min(1).max(10).optional()
})

/** A fake `lookup_knowledge` backend (raw carries scores and traces) behind the real knowledge projector. */
export const knowledgeTool = (
  docs: ReadonlyArray<KnowledgeDoc>
): ToolDefinition<z.infer<typeof KnowledgeRequest>, unknown> => ({
  name: "lookup_knowledge",
  description: "Search runbooks and knowledge articles.",
  readOnly: true,
  requestSchema: KnowledgeRequest,
  execute: () =>
    Effect.succeed({
      evidence: docs.map((d) => ({ ...d, relevanceLevel: "HIGH", score: 0.93 })),
      retrieval_trace: { secret_internal: "raw-only-marker" }
    }),
  project: projectKnowledge()
})

const LogsRequest = z.object({
  topic: z.enum(["application", "database_slow_query", "system_events", "system_metrics"]),
  query: z.string().min(1).max(500),
  service: z.string().optional(),
  lookback_minutes: z.number().int().min(1).max(1440).optional()
})

/** The end of every fixture log window (the fixture entries lie just before it). */
const LOGS_END = "2026-03-14T10:00:00.000Z"

const logsRaw = (request: z.infer<typeof LogsRequest>, entries: ReadonlyArray<LogEntryRaw>) => ({
  source_kind: "fixture",
  scope: {
    topic: request.topic,
    query: request.query,
    service: request.service ?? null,
    start_time: new Date(Date.parse(LOGS_END) - (request.lookback_minutes ?? 60) * 60_000).toISOString(),
    end_time: LOGS_END
  },
  entries: [...entries],
  total_matched: entries.length
})

/** A `query_logs` backend returning fixed raw entries (none -> NO_EVIDENCE) behind the real logs projector. */
export const logsTool = (
  entries: ReadonlyArray<LogEntryRaw>
): ToolDefinition<z.infer<typeof LogsRequest>, unknown> => ({
  name: QUERY_LOGS_TOOL_NAME,
  description: "Query logs by topic, Lucene-like query, service and lookback.",
  readOnly: true,
  requestSchema: LogsRequest,
  execute: (request) => Effect.succeed(logsRaw(request, entries)),
  project: projectLogs()
})

/** `count` raw entries of one level and service, one a second before the window end; `message(i)` varies. */
export const logLines = (options: {
  readonly level: string
  readonly service: string
  readonly count: number
  readonly message: (i: number) => string
}): LogEntryRaw[] =>
  Array.from({ length: options.count }, (_, i) => ({
    timestamp: new Date(Date.parse(LOGS_END) - (options.count - i) * 1000).toISOString(),
    level: options.level,
    service: options.service,
    message: options.message(i)
  }))

/** The pattern ids the real logs projector gives `entries`, most frequent first. */
export const patternIdsOf = (entries: ReadonlyArray<LogEntryRaw>): string[] => {
  const request = { topic: "application" as const, query: "*" }
  const projection = Effect.runSync(
    projectLogs()({
      request,
      toolCallId: ToolCallIdSchema.parse("fixture-call"),
      raw: logsRaw(request, entries),
      maxBytes: 1 << 20
    })
  )
  const observation = projection.observation as unknown as { patterns: ReadonlyArray<LogPatternObservation> }
  return observation.patterns.map((p) => p.pattern_id)
}

/** The one pattern id the real logs projector gives `entries` (fails the test when there are more). */
export const patternIdOf = (entries: ReadonlyArray<LogEntryRaw>): string => {
  const ids = patternIdsOf(entries)
  if (ids.length !== 1) throw new Error(`expected one log pattern, got ${ids.length}`)
  return ids[0]!
}

export const usage = (n: number) => ({ promptTokens: n, completionTokens: n, totalTokens: 2 * n })

/** A final text answer (a `ScriptedTurn`) reporting `tokens` prompt and completion tokens (`null`: no usage). */
export const text = (content: string, tokens: number | null = 10) => ScriptedTurn.text(content, { tokens })

/** A turn with one tool call. */
export const toolCall = (id: string, name: string, args: object, tokens = 10) =>
  ScriptedTurn.toolCall(id, name, args, { tokens })

/** Wraps a ChatModel layer so every request is remembered. */
export const spying = (inner: Layer.Layer<ChatModel>) => {
  const requests: ChatRequest[] = []
  const layer = Layer.effect(
    ChatModel,
    Effect.gen(function* () {
      const model = yield* ChatModel
      return {
        chat: (req: ChatRequest) => {
          requests.push(req)
          return model.chat(req)
        }
      }
    })
  ).pipe(Layer.provide(inner))
  return { layer, requests }
}

export const DOCS: ReadonlyArray<KnowledgeDoc> = [
  {
    source: "runbooks/db-connection-pool-exhaustion.md",
    title: "DB connection pool exhaustion",
    content:
      "When checkout-service returns HTTP 500 with HikariPool connection timeouts, the database connection pool is exhausted. Check active connections."
  }
]
