/** Literals the plan may render, and the pattern operands the server matches in bounded time. */
import {
  checkRegexPattern,
  DATE_LITERAL,
  isSafeText,
  likeWildcards,
  MAX_LIKE_WILDCARDS,
  MAX_LITERAL_CHARS,
  NUMBER_TEXT
} from "../literals.js"
import { type ExprInfo, literalInfo, NEUTRAL } from "../provenance.js"
import { type AstNode, field, reject } from "./ast.js"
import { setField } from "./rewrites.js"
import type { Ctx } from "./scope.js"

export const LITERAL_TYPES: ReadonlySet<string> = new Set([
  "number",
  "single_quote_string",
  "double_quote_string",
  "natural_string",
  "hex_string",
  "full_hex_string",
  "bit_string",
  "bool",
  "boolean",
  "null",
  "date",
  "datetime",
  "time",
  "timestamp",
  "datatype"
])

export const isLiteralType = (t: unknown): boolean => typeof t === "string" && LITERAL_TYPES.has(t)

export const LITERAL_KEYS: ReadonlySet<string> = new Set(["type", "value", "prefix", "loc", "parentheses"])

/** node-sql-parser's `bigint` node (long integers, decimals with an exponent): plain numeric spelling. */
export const BIG_NUMBER = /^[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?$/i

/**
 * A literal the plan may render: plain single-quoted text of safe characters (see literals.ts),
 * numbers, booleans, NULL, date literals. Charset introducers, `N'…'`, `X'…'`, `0x…`, `b'…'`,
 * `ESCAPE` clauses and any quote, backslash or control character are `UNSAFE_LITERAL`.
 */
export const checkLiteral = (n: AstNode, ctx: Ctx): ExprInfo => {
  if (n.type === "datatype") {
    // CONVERT(x, CHAR): a type name, not a value.
    if (typeof n.dataType !== "string" || !/^[A-Za-z0-9_ ]{1,32}$/.test(n.dataType))
      reject("UNSUPPORTED_SYNTAX", "unsupported data type")
    return NEUTRAL
  }
  for (const k of Object.keys(n)) {
    if (!LITERAL_KEYS.has(k) && n[k] !== null && n[k] !== undefined)
      reject("UNSAFE_LITERAL", "literal with unsupported decoration (ESCAPE, COLLATE, ...)")
  }
  if (n.prefix !== null && n.prefix !== undefined)
    reject("UNSAFE_LITERAL", "charset introducers are not allowed")
  const value = n.value
  switch (n.type) {
    case "single_quote_string":
    case "double_quote_string": {
      if (typeof value !== "string" || !isSafeText(value))
        return reject(
          "UNSAFE_LITERAL",
          "string literals may not contain quotes, backslashes or control characters"
        )
      if (value.length > MAX_LITERAL_CHARS) reject("UNSAFE_LITERAL", "string literal is too long")
      // Always rendered with single quotes, which every sql_mode reads as a string.
      setField(ctx.rewrites, n, "type", "single_quote_string")
      ctx.literals.push(`s:${value}`)
      return literalInfo(value.length)
    }
    case "number": {
      const ok =
        (typeof value === "number" && Number.isFinite(value)) ||
        (typeof value === "string" && NUMBER_TEXT.test(value))
      if (!ok) reject("PARSE_ERROR", "number literal could not be parsed")
      ctx.literals.push(`n:${String(value)}`)
      return literalInfo(String(value).length)
    }
    case "bool":
    case "boolean":
      if (typeof value !== "boolean") reject("UNSAFE_LITERAL", "unsupported literal")
      ctx.literals.push(`b:${String(value)}`)
      return literalInfo(1)
    case "null":
      ctx.literals.push("null")
      return literalInfo(4)
    case "date":
    case "datetime":
    case "time":
    case "timestamp":
      if (typeof value !== "string" || !DATE_LITERAL.test(value) || value.length > 32)
        return reject("UNSAFE_LITERAL", "unsupported date literal")
      ctx.literals.push(`${String(n.type)}:${value}`)
      return literalInfo(value.length)
    default:
      return reject("UNSAFE_LITERAL", "hex, bit, national and other special literals are not allowed")
  }
}

/**
 * A validated string literal's text, else undefined. Validated strings render single-quoted
 * (a recorded rewrite), so a double-quoted one that passed {@link checkLiteral} counts too.
 */
export const stringLiteral = (n: unknown): string | undefined => {
  const type = field(n, "type")
  const value = field(n, "value")
  return (type === "single_quote_string" || type === "double_quote_string") && typeof value === "string"
    ? value
    : undefined
}

/** Every spelling of a regular-expression match (`REGEXP BINARY`, `NOT RLIKE`, ...). */
export const REGEX_OPERATOR = /\b(?:REGEXP|RLIKE)\b/
export const LIKE_OPERATOR = /\bLIKE\b/

/** A LIKE-style pattern: a plain string literal with few `%` wildcards. */
export const checkLikePattern = (pattern: string | undefined, what: string) => {
  if (pattern === undefined) return reject("RESOURCE_LIMIT", `${what} pattern must be a plain string literal`)
  if (likeWildcards(pattern) > MAX_LIKE_WILDCARDS)
    reject("RESOURCE_LIMIT", `${what} pattern has too many % wildcards`)
}

/** Pattern operators: the pattern must be a literal the server matches in bounded time. */
export const checkPattern = (operator: string, right: unknown) => {
  if (REGEX_OPERATOR.test(operator)) {
    const pattern = stringLiteral(right)
    if (pattern === undefined)
      return reject("RESOURCE_LIMIT", "REGEXP pattern must be a plain string literal")
    const problem = checkRegexPattern(pattern)
    if (problem !== undefined) reject("RESOURCE_LIMIT", problem)
  } else if (LIKE_OPERATOR.test(operator)) {
    checkLikePattern(stringLiteral(right), "LIKE")
  }
}
