export {
  isSystemSchema,
  type MysqlAllowlist,
  MysqlAllowlistSchema,
  type MysqlAllowlistTable,
  parseMysqlAllowlist
} from "./allowlist.js"
export {
  InvalidAllowlist,
  MYSQL_REJECTION_REASONS,
  MysqlExecutionError,
  type MysqlExecutionErrorCode,
  MysqlQueryRejected,
  type MysqlRejectionReason
} from "./errors.js"
export { SAFE_AGGREGATE_FUNCTIONS, SAFE_SCALAR_FUNCTIONS } from "./functions.js"
export {
  DEFAULT_MAX_ROWS,
  isIssuedMysqlQueryPlan,
  MAX_GENERATED_LENGTH,
  type MysqlQueryPlan,
  type MysqlQueryRequest,
  type ValidateMysqlQueryOptions,
  validateMysqlQuery
} from "./validator.js"
export {
  makeMysqlReadOnlyExecutor,
  type MysqlCell,
  type MysqlQueryResult,
  MysqlReadOnlyExecutor,
  type MysqlReadOnlyExecutorConfig,
  type MysqlReadOnlyExecutorShape,
  type MysqlResultColumn,
  PINNED_SQL_MODE
} from "./executor.js"
