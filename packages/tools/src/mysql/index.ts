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
export { checkRegexPattern, MAX_LIKE_WILDCARDS, MAX_LITERAL_CHARS, MAX_REGEX_LENGTH } from "./literals.js"
export {
  MAX_EXPRESSION_AMPLIFICATION,
  MAX_EXPRESSION_CHARS,
  type MysqlColumnOrigin
} from "./provenance.js"
export {
  DEFAULT_MAX_ROWS,
  isIssuedMysqlQueryPlan,
  MAX_GENERATED_LENGTH,
  type MysqlPlanOutputColumn,
  type MysqlQueryPlan,
  type MysqlQueryRequest,
  type ValidateMysqlQueryOptions,
  validateMysqlQuery
} from "./validator.js"
export { checkGrants } from "./grants.js"
export { type EnsureMysqlQueryUserOptions, ensureMysqlQueryUser } from "./query-user.js"
/** Re-exported from `@aiops-harness/mysql`: the type of {@link MysqlReadOnlyExecutorShape.breaker}. */
export type { MysqlBreakerView } from "@aiops-harness/mysql"
export {
  DEFAULT_MAX_RESULT_BYTES,
  makeMysqlReadOnlyExecutor,
  type MysqlCell,
  type MysqlQueryResult,
  MysqlReadOnlyExecutor,
  type MysqlReadOnlyExecutorConfig,
  type MysqlReadOnlyExecutorShape,
  type MysqlResultColumn,
  PINNED_GROUP_CONCAT_MAX_LEN,
  PINNED_SQL_MODE
} from "./executor.js"
