import type { Projection, ToolDefinition } from "@aiops-harness/core"
import { projectKnowledge } from "@aiops-harness/projectors"
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

export interface FakePattern {
  readonly pattern_id: string
  readonly level: string
  readonly service: string
  readonly template: string
  readonly count: number
}

/** A fake `query_logs` tool returning fixed patterns (empty -> NO_EVIDENCE). */
export const logsTool = (
  patterns: ReadonlyArray<FakePattern>
): ToolDefinition<z.infer<typeof LogsRequest>, any> => ({
  name: "query_logs",
  description: "Query logs by topic, Lucene-like query, service and lookback.",
  readOnly: true,
  requestSchema: LogsRequest,
  execute: () => Effect.succeed({ patterns }),
  project: ({ request, raw }) => {
    const end = "2026-03-14T10:00:00.000Z"
    const start = new Date(Date.parse(end) - (request.lookback_minutes ?? 60) * 60_000).toISOString()
    const scope = {
      topic: request.topic,
      query: request.query,
      service: request.service ?? null,
      start_time: start,
      end_time: end
    }
    return Effect.succeed<Projection>({
      evidenceStatus: raw.patterns.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
      observation: {
        scope,
        source_kind: "fake",
        patterns: raw.patterns.map((p: FakePattern) => ({
          ...p,
          example: p.template,
          first_seen: start,
          last_seen: end
        })),
        timeline: []
      },
      truncated: false,
      returnedCount: raw.patterns.length,
      scope
    })
  }
})

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
