/**
 * Raw backend responses (0002). The schemas are the projectors' own (`@aiops-harness/projectors`
 * parses raw strictly with exactly these), re-exported under the tools' names so a backend
 * and its projector can never disagree.
 */
import {
  BackendErrorReportRawSchema,
  KnowledgeEvidenceRawSchema,
  KnowledgeRawSchema,
  LogEntryRawSchema,
  LogsRawSchema,
  LogsResultRawSchema,
  LogsScopeRawSchema,
  MysqlCellRawSchema,
  MysqlRawSchema,
  RELEVANCE_LEVELS,
  RelevanceLevelSchema
} from "@aiops-harness/projectors"
import type { z } from "zod"

export { KnowledgeRawSchema, LogsRawSchema, MysqlRawSchema, RELEVANCE_LEVELS, RelevanceLevelSchema }

/** Relevance of one evidence block relative to the best hit of the same search. */
export type RelevanceLevel = (typeof RELEVANCE_LEVELS)[number]

/** One evidence block of a knowledge backend. */
export const KnowledgeEvidenceSchema = KnowledgeEvidenceRawSchema
/** One evidence block of a knowledge backend. */
export type KnowledgeEvidence = z.output<typeof KnowledgeEvidenceSchema>
/** Raw knowledge response. Traces and context packs are internal: projectors drop them. */
export type KnowledgeRaw = z.output<typeof KnowledgeRawSchema>

/** The scope a log backend actually used. */
export const LogsScopeSchema = LogsScopeRawSchema
/** The scope a log backend actually used. */
export type LogsScope = z.output<typeof LogsScopeSchema>
/** Zod schema of one log entry a log backend returns. */
export const LogEntrySchema = LogEntryRawSchema
/** One log entry a log backend returns. */
export type LogEntry = z.output<typeof LogEntrySchema>
/** Zod schema of a log backend result: scope used, entries and total matched. */
export const LogsResultSchema = LogsResultRawSchema
/** A log backend result. */
export type LogsResult = z.output<typeof LogsResultSchema>
/** A backend's error report (projector -> `BackendError`). */
export const BackendErrorReportSchema = BackendErrorReportRawSchema
/** A backend's error report. */
export type BackendErrorReport = z.output<typeof BackendErrorReportSchema>
/** Raw logs response: a result, or a backend error report. */
export type LogsRaw = z.output<typeof LogsRawSchema>

/** Zod schema of one raw MySQL cell value. */
export const MysqlRawCellSchema = MysqlCellRawSchema
/** One raw MySQL cell value. */
export type MysqlRawCell = z.output<typeof MysqlRawCellSchema>
/** Raw MySQL response (row keys equal the column names). */
export type MysqlRaw = z.output<typeof MysqlRawSchema>
