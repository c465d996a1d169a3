export {
  defaultMysqlClientConfig,
  type FromPoolOptions,
  fromPool,
  layer,
  layerConfig,
  make,
  type MysqlBreakerView,
  MysqlClient,
  type MysqlClientConfig,
  type MysqlClientOptions,
  type MysqlClientShape,
  type MysqlConnection,
  type MysqlDriverOptions,
  type MysqlQueryOptions,
  mysqlUrlProblem,
  type WithConnectionOptions
} from "./client.js"
export {
  classifyDriverError,
  connectionReusableAfter,
  isMysqlError,
  MysqlError,
  type MysqlErrorPhase,
  type MysqlErrorReason
} from "./errors.js"
