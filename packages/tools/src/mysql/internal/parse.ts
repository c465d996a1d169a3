/**
 * Parsing: the lexical checks the parser cannot be trusted with, then node-sql-parser. The parsed
 * tree is handed on as `unknown`; only the validator's accessors look inside it.
 */
import NodeSqlParser from "node-sql-parser/build/mysql.js"
import { isNode, reject } from "./ast.js"
import { scanSql } from "./lexer.js"

const parser = new NodeSqlParser.Parser()
const PARSER_OPTIONS = { database: "MySQL" }

export const NOT_SELECT_KEYWORDS: ReadonlySet<string> = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "REPLACE",
  "MERGE",
  "UPSERT",
  "CREATE",
  "ALTER",
  "DROP",
  "TRUNCATE",
  "RENAME",
  "GRANT",
  "REVOKE",
  "SET",
  "SHOW",
  "CALL",
  "DO",
  "HANDLER",
  "PREPARE",
  "EXECUTE",
  "DEALLOCATE",
  "LOAD",
  "LOCK",
  "UNLOCK",
  "KILL",
  "FLUSH",
  "RESET",
  "PURGE",
  "ANALYZE",
  "OPTIMIZE",
  "REPAIR",
  "CHECK",
  "CHECKSUM",
  "EXPLAIN",
  "DESCRIBE",
  "DESC",
  "USE",
  "BEGIN",
  "START",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
  "XA",
  "INSTALL",
  "UNINSTALL",
  "SHUTDOWN",
  "BINLOG",
  "CACHE",
  "CHANGE",
  "HELP",
  "TABLE",
  "VALUES",
  "SIGNAL",
  "RESIGNAL",
  "GET",
  "DECLARE",
  "BACKUP"
])

/** The one statement `sql` holds, as parsed; rejects what is not exactly one SELECT. */
export const parseStatement = (sql: string): unknown => {
  const lex = scanSql(sql)
  if (lex.empty) reject("EMPTY_QUERY", "empty statement")
  if (lex.versionedComment) reject("VERSIONED_COMMENT", "versioned comments are not allowed")
  if (lex.optimizerHint) reject("OPTIMIZER_HINT", "optimizer hints are not allowed")
  if (lex.multipleStatements) reject("MULTIPLE_STATEMENTS", "exactly one statement is allowed")
  const notSelect = lex.firstWord !== undefined && NOT_SELECT_KEYWORDS.has(lex.firstWord)
  if (lex.dashDashWithoutSpace && !notSelect) {
    // The server reads `1--1` as 1 - -1; the parser reads a comment and drops the rest of the line.
    reject("UNSUPPORTED_SYNTAX", "write '- -' with a space: '--' without a following space is ambiguous")
  }
  if (lex.backslashInString && !notSelect) {
    // The parser decodes some escapes (\u0027) and keeps others; the server decodes its own set.
    reject("UNSAFE_LITERAL", "backslash escapes in string literals are not supported")
  }
  let ast: unknown
  try {
    ast = parser.astify(sql, PARSER_OPTIONS)
  } catch {
    if (notSelect) reject("NOT_SELECT", "only SELECT statements are allowed")
    return reject("PARSE_ERROR", "statement could not be parsed as MySQL")
  }
  const statements = (Array.isArray(ast) ? ast : [ast]).filter((s) => s !== null && s !== undefined)
  if (statements.length !== 1) reject("MULTIPLE_STATEMENTS", "exactly one statement is allowed")
  const [stmt] = statements
  if (notSelect || !isNode(stmt) || stmt.type !== "select")
    reject("NOT_SELECT", "only SELECT statements are allowed")
  return stmt
}

/** Prints a (validated, rewritten) statement. */
export const renderStatement = (stmt: unknown): string =>
  parser.sqlify(stmt as Parameters<typeof parser.sqlify>[0], PARSER_OPTIONS)
