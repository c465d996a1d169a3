export type {
  BackendErrorReportRaw,
  KnowledgeEvidenceRaw,
  KnowledgeRaw,
  KnowledgeRequest,
  LogEntryRaw,
  LogsRaw,
  LogsRequest,
  LogsResultRaw,
  MysqlCellRaw,
  MysqlRaw,
  MysqlRequest,
  RelevanceLevel
} from "./schemas.js"
export {
  BackendErrorReportRawSchema,
  KnowledgeEvidenceRawSchema,
  KnowledgeRawSchema,
  LOG_TOPICS,
  LogEntryRawSchema,
  LogsRawSchema,
  LogsResultRawSchema,
  LogsScopeRawSchema,
  MysqlCellRawSchema,
  MysqlRawSchema,
  RELEVANCE_LEVELS,
  RelevanceLevelSchema
} from "./schemas.js"
export type { Bounded, DroppableList, ToolProjectionLimits } from "./limits.js"
export {
  boundToBytes,
  cutText,
  DEFAULT_TOOL_PROJECTION_LIMITS,
  resolveLimits,
  serializedBytes,
  utf8Length
} from "./limits.js"
export type { KnowledgeEvidenceObservation } from "./knowledge.js"
export { projectKnowledge } from "./knowledge.js"
export type { LogEventObservation, LogPatternObservation } from "./logs.js"
export {
  LOG_LEVELS,
  logPatternId,
  MAX_SERVICE_CHARS,
  normalizeLogLevel,
  projectLogs,
  QUERY_LOGS_TOOL_NAME,
  sampleTimeline,
  sanitizeLogService
} from "./logs.js"
export { isSensitiveColumn, MASKED, projectMysqlRows } from "./mysql.js"
export type { Placeholder, VendorTokenFormat } from "./redaction/index.js"
export {
  isSensitiveName,
  PLACEHOLDERS,
  redactSecrets,
  redactText,
  redactValue,
  VENDOR_TOKEN_FORMATS
} from "./redaction/index.js"
export type { LogPattern, PatternGrouping, PatternGroupingOptions } from "./patterns/index.js"
export { groupLogPatterns, normalizeLogMessage } from "./patterns/index.js"
