import { PLACEHOLDERS } from "./placeholders.js"

/**
 * SQL literals that logs print outside the statement: the values an ORM or a JDBC layer binds to
 * `?` placeholders (Hibernate's `binding parameter [1] as [VARCHAR] - [X]` and `(1:VARCHAR) <-
 * [X]`, MyBatis' `==> Parameters: X(String), 42(Integer)`, Spring's `parameter value [X]`), and
 * PostgreSQL's dollar-quoted strings (`$$X$$`, `$tag$X$tag$`) inside a statement. A bound
 * `null` says no value was bound and stays.
 */

const LITERAL = PLACEHOLDERS.sqlLiteral

const HIBERNATE_RE =
  /(binding parameter (?:\[\d{1,6}\]|\(\d{1,6}:\w{1,32}\))(?: as \[\w{1,32}\])? <?- \[)([^\r\n[\]]{1,4096})\]/g
const SPRING_RE = /(parameter value \[)([^\r\n[\]]{1,4096})\]/g
/** MyBatis' parameter line: each value ends with its Java type in parentheses. */
const MYBATIS_RE = /(==>[ \t]+Parameters:[ \t]*)([^\r\n]{1,8192})/g
/** A value's Java type, closing it: `(String)` followed by `,` or the end of the list. */
const MYBATIS_TYPE_RE = /\([A-Za-z][\w.$]{0,63}(?:\[\])?\)(?=[ \t]*,|[ \t]*$)/g
/** The separator before a value, and `null` entries (MyBatis prints no type for them). */
const MYBATIS_LEAD_RE = /^[ \t]*,?[ \t]*(?:null[ \t]*,[ \t]*)*/

const bound = (head: string, value: string, tail: string): string =>
  value === "null" || value.startsWith("<") ? `${head}${value}${tail}` : `${head}${LITERAL}${tail}`

/**
 * `X(String), null, 42(Integer)` with each typed value replaced: the text between one type (or the
 * start) and the next is a value. One scan for the types, so a list of any shape is linear.
 */
const myBatisValues = (list: string): string => {
  let out = ""
  let from = 0
  MYBATIS_TYPE_RE.lastIndex = 0
  for (let m = MYBATIS_TYPE_RE.exec(list); m !== null; m = MYBATIS_TYPE_RE.exec(list)) {
    const segment = list.slice(from, m.index)
    const lead = MYBATIS_LEAD_RE.exec(segment)?.[0] ?? ""
    out += bound(lead, segment.slice(lead.length), m[0])
    from = m.index + m[0].length
  }
  return out + list.slice(from)
}

export const redactBoundParameters = (text: string): string => {
  let out = text
  if (out.includes("binding parameter"))
    out = out.replace(HIBERNATE_RE, (_w, h: string, v: string) => bound(h, v, "]"))
  if (out.includes("parameter value ["))
    out = out.replace(SPRING_RE, (_w, h: string, v: string) => bound(h, v, "]"))
  if (out.includes("Parameters:"))
    out = out.replace(MYBATIS_RE, (_w, head: string, list: string) => head + myBatisValues(list))
  return out
}

/** At most this many distinct dollar-quote tags are looked for per text (each is one search). */
const MAX_DOLLAR_TAGS = 32
const DOLLAR_OPEN_RE = /\$([A-Za-z_][\w]{0,31})?\$/g

/**
 * Dollar-quoted strings replaced whole (a `DO $body$ ... $body$` block included: what it quotes
 * is the statement's text, literals and all). Linear: a tag with no closing quote is never
 * searched again, and only {@link MAX_DOLLAR_TAGS} tags are tried.
 */
export const redactDollarQuoted = (sql: string): string => {
  if (!sql.includes("$")) return sql
  let out = ""
  let last = 0
  const unclosed = new Set<string>()
  let tags = 0
  DOLLAR_OPEN_RE.lastIndex = 0
  let m = DOLLAR_OPEN_RE.exec(sql)
  while (m !== null) {
    const quote = m[0]
    const bodyStart = m.index + quote.length
    // `$1$`-like parameters and `a$b$` identifiers are not quotes.
    const before = m.index === 0 ? 32 : sql.charCodeAt(m.index - 1)
    const identBefore =
      (before >= 48 && before <= 57) ||
      (before >= 65 && before <= 90) ||
      (before >= 97 && before <= 122) ||
      before === 95
    let close = -1
    if (!identBefore && !unclosed.has(quote) && tags < MAX_DOLLAR_TAGS) {
      close = sql.indexOf(quote, bodyStart)
      if (close === -1) {
        unclosed.add(quote)
        tags++
      }
    }
    if (close >= 0) {
      out += `${sql.slice(last, m.index)}${LITERAL}`
      last = close + quote.length
      DOLLAR_OPEN_RE.lastIndex = last
    } else {
      DOLLAR_OPEN_RE.lastIndex = m.index + 1
    }
    m = DOLLAR_OPEN_RE.exec(sql)
  }
  return last === 0 ? sql : out + sql.slice(last)
}
