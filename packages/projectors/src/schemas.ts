import { z } from "zod"

/**
 * Raw backend responses (0002), parsed strictly: unknown top-level fields are rejected, known
 * internal extras (retrieval/rerank traces, context packs, raw scores) are accepted and dropped.
 */

export const RELEVANCE_LEVELS = ["HIGH", "MEDIUM", "LOW", "REFERENCE"] as const
/** Relevance of a knowledge evidence item (one of `RELEVANCE_LEVELS`). */
export type RelevanceLevel = (typeof RELEVANCE_LEVELS)[number]
/** Zod schema of a `RelevanceLevel`. */
export const RelevanceLevelSchema = z.enum(RELEVANCE_LEVELS)

const IsoTimestamp = z.iso.datetime({ offset: true })

/** Zod schema of one raw knowledge search hit. */
export const KnowledgeEvidenceRawSchema = z.strictObject({
  source: z.string().optional(),
  title: z.string().optional(),
  breadcrumb: z.union([z.string(), z.array(z.string())]).optional(),
  content: z.string(),
  relevanceLevel: RelevanceLevelSchema.optional(),
  relevance_level: RelevanceLevelSchema.optional(),
  score: z.number().optional()
})
/** One raw knowledge search hit. */
export type KnowledgeEvidenceRaw = z.output<typeof KnowledgeEvidenceRawSchema>

/** Zod schema of the raw knowledge search response. */
export const KnowledgeRawSchema = z.strictObject({
  evidence: z.array(KnowledgeEvidenceRawSchema),
  retrieval_trace: z.unknown().optional(),
  rerank_trace: z.unknown().optional(),
  context_pack: z.unknown().optional()
})
/** The raw knowledge search response. */
export type KnowledgeRaw = z.output<typeof KnowledgeRawSchema>

/** The log topics a log query can search. */
export const LOG_TOPICS = ["application", "database_slow_query", "system_events", "system_metrics"] as const

/** Zod schema of the scope a log backend actually searched (topic, query, service, window). */
export const LogsScopeRawSchema = z.strictObject({
  topic: z.enum(LOG_TOPICS),
  query: z.string(),
  service: z.string().nullable(),
  start_time: IsoTimestamp,
  end_time: IsoTimestamp,
  /**
   * Set by a backend when the window starts before the oldest log it holds (retention): the part
   * of the window before this time could not be searched.
   */
  available_from: IsoTimestamp.optional()
})

/** Zod schema of one raw log entry. */
export const LogEntryRawSchema = z.strictObject({
  timestamp: IsoTimestamp,
  level: z.string(),
  service: z.string(),
  message: z.string(),
  fields: z.record(z.string(), z.json()).optional()
})
/** One raw log entry. */
export type LogEntryRaw = z.output<typeof LogEntryRawSchema>

/** Zod schema of a raw log query result: searched scope, entries and total matched. */
export const LogsResultRawSchema = z.strictObject({
  source_kind: z.string(),
  scope: LogsScopeRawSchema,
  entries: z.array(LogEntryRawSchema),
  total_matched: z.number().int().min(0)
})
/** A raw log query result. */
export type LogsResultRaw = z.output<typeof LogsResultRawSchema>

/** A backend's error report: the logs projector turns it into `BackendError`. */
export const BackendErrorReportRawSchema = z.strictObject({
  error: z.object({ code: z.string(), message: z.string() })
})
/** A backend's error report. */
export type BackendErrorReportRaw = z.output<typeof BackendErrorReportRawSchema>

/** Zod schema of a raw log backend response: a result or an error report. */
export const LogsRawSchema = z.union([LogsResultRawSchema, BackendErrorReportRawSchema])
/** A raw log backend response: a result or an error report. */
export type LogsRaw = z.output<typeof LogsRawSchema>

/** Zod schema of one raw MySQL cell value. */
export const MysqlCellRawSchema = z.union([z.number(), z.string(), z.boolean(), z.null()])
/** One raw MySQL cell value. */
export type MysqlCellRaw = z.output<typeof MysqlCellRawSchema>

/** Zod schema of a raw read-only MySQL query result. */
export const MysqlRawSchema = z
  .strictObject({
    columns: z.array(
      z.strictObject({
        name: z.string(),
        type: z.string(),
        /** Provenance from the validated plan; absent means unknown (cells are not evidence). */
        origin: z.enum(["table", "mixed", "literal"]).optional()
      })
    ),
    rows: z.array(z.record(z.string(), MysqlCellRawSchema)),
    rowCount: z.number().int().min(0),
    truncated: z.boolean()
  })
  .superRefine((raw, ctx) => {
    const names = new Set<string>()
    for (const column of raw.columns) {
      if (names.has(column.name))
        ctx.addIssue({ code: "custom", message: "duplicate column", path: ["columns"] })
      names.add(column.name)
    }
    raw.rows.forEach((row, index) => {
      const keys = Object.keys(row)
      if (keys.length !== names.size || !keys.every((key) => names.has(key))) {
        ctx.addIssue({ code: "custom", message: "row keys differ from columns", path: ["rows", index] })
      }
    })
  })
/** A raw read-only MySQL query result. */
export type MysqlRaw = z.output<typeof MysqlRawSchema>

// ---- requests (structural: the typed request the tool boundary already validated) ---------------

/** The typed knowledge search request the knowledge projector receives. */
export interface KnowledgeRequest {
  readonly query: string
  readonly top_k?: number
}

/** The typed log query request the logs projector receives. */
export interface LogsRequest {
  readonly topic: string
  readonly query: string
  readonly service?: string | undefined
  readonly lookback_minutes?: number
  /** An absolute window (ISO 8601): the Control View then records the window actually searched. */
  readonly start_time?: string | undefined
  readonly end_time?: string | undefined
}

/** The typed MySQL query request the MySQL projector receives. */
export interface MysqlRequest {
  readonly datasource: string
  readonly sql: string
}
