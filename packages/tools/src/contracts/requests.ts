import { LOG_TOPICS } from "@aiops-harness/projectors"
import { z } from "zod"

/** Tool names as the model sees them. */
export const TOOL_NAMES = {
  lookupKnowledge: "lookup_knowledge",
  queryLogs: "query_logs",
  queryMysql: "query_mysql"
} as const
/** Name of one of the built-in tools (a value of `TOOL_NAMES`). */
export type ToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES]

/** The log topics `query_logs` can search (one definition, in projectors). */
export { LOG_TOPICS }
/** One log topic (one of `LOG_TOPICS`). */
export type LogTopic = (typeof LOG_TOPICS)[number]
/** Zod schema of a `LogTopic`. */
export const LogTopicSchema = z.enum(LOG_TOPICS)

/** Evidence blocks `lookup_knowledge` returns when `top_k` is not given. */
export const DEFAULT_TOP_K = 5
/** How far back `query_logs` searches when no window is given, in minutes. */
export const DEFAULT_LOOKBACK_MINUTES = 60
/** How far back `query_logs` reaches, in minutes: `lookback_minutes` and `start_time` alike. */
export const MAX_LOOKBACK_MINUTES = 1440

/** `lookup_knowledge` request (0002): `{ query: 1..500, top_k?: 1..10 = 5 }`. */
export const LookupKnowledgeRequestSchema = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe("What to look up in the runbooks and operations knowledge base, in plain words."),
  top_k: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(DEFAULT_TOP_K)
    .describe("How many evidence blocks to return (1-10).")
})
/** A validated `lookup_knowledge` request. */
export type LookupKnowledgeRequest = z.output<typeof LookupKnowledgeRequestSchema>

/** `query_logs` request (0002). */
export const QueryLogsRequestSchema = z.strictObject({
  topic: LogTopicSchema.describe("Which log stream to search."),
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe(
      'Lucene-like query: field:value, field:"phrase", AND/OR/NOT, -term, parentheses, ' +
        "numeric comparisons (response_time:>3000), value* wildcards, free text matches the message. " +
        "Use * for everything."
    ),
  service: z.string().trim().min(1).max(128).optional().describe("Only entries of this service."),
  lookback_minutes: z
    .number()
    .int()
    .min(1)
    .max(MAX_LOOKBACK_MINUTES)
    .default(DEFAULT_LOOKBACK_MINUTES)
    .describe("Time window ending now, in minutes (1-1440). Ignored when start_time is given."),
  start_time: z.iso
    .datetime({ offset: true })
    .optional()
    .describe(
      "Start of an absolute window (ISO 8601 with zone, e.g. 2026-03-15T12:40:00Z); at most 1440 minutes back."
    ),
  end_time: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("End of an absolute window (ISO 8601 with zone); default now, never later than now.")
})
/** A validated `query_logs` request. */
export type QueryLogsRequest = z.output<typeof QueryLogsRequestSchema>

/** `query_mysql` request (0002): `{ datasource, sql: 1..4000 }`. */
export const QueryMysqlRequestSchema = z.strictObject({
  datasource: z
    .string()
    .trim()
    .max(64)
    .describe("Allowlisted datasource name; an empty string selects the configured default."),
  sql: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .describe("One read-only SELECT over allowlisted tables and columns.")
})
/** A validated `query_mysql` request. */
export type QueryMysqlRequest = z.output<typeof QueryMysqlRequestSchema>
