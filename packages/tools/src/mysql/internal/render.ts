/**
 * The render step: applies a validated statement's rewrites to its tree, checks every string the
 * tree now holds can be printed verbatim, and prints the plan's SQL.
 */
import { hasUnsafeCharacter, isSafeText } from "../literals.js"
import { MAX_DEPTH, reject } from "./ast.js"
import { scanSql } from "./lexer.js"
import { renderStatement } from "./parse.js"
import { applyRewrites } from "./rewrites.js"
import type { ValidatedStatement } from "./validate.js"

/** Every string anywhere in the rendered AST must be printable verbatim (no quotes, backslashes, controls). */
export const checkAstText = (node: unknown, depth = 0): void => {
  if (depth > MAX_DEPTH * 8) reject("UNSUPPORTED_SYNTAX", "statement is too deeply nested")
  if (typeof node === "string") {
    if (!isSafeText(node))
      reject("UNSAFE_LITERAL", "quotes, backslashes or control characters in a value or name")
    return
  }
  if (node === null || typeof node !== "object") return
  if (Array.isArray(node)) {
    for (const v of node) checkAstText(v, depth + 1)
    return
  }
  for (const [k, v] of Object.entries(node)) if (k !== "loc") checkAstText(v, depth + 1)
}

/** Renders a validated statement's SQL (its tree is rewritten in place: render once). */
export const renderValidated = (validated: ValidatedStatement): string => {
  applyRewrites(validated.rewrites)
  checkAstText(validated.statement)
  return renderStatement(validated.statement)
}

/** The rendered plan must lex as plain SQL: no comment, no escape, no double quote, one statement. */
export const checkRendered = (sql: string) => {
  const lex = scanSql(sql)
  if (
    lex.comment ||
    lex.backslashInString ||
    lex.doubleQuoted ||
    lex.unterminated ||
    lex.multipleStatements ||
    lex.versionedComment ||
    lex.optimizerHint ||
    sql.includes("\\") ||
    hasUnsafeCharacter(sql)
  ) {
    reject("ROUND_TRIP_MISMATCH", "the rendered plan is not plain SQL")
  }
}
