/**
 * Tokenizer-level pre-checks that the AST cannot see because node-sql-parser drops comments:
 * versioned comments (`/*!50000 ... *\/`, MariaDB `/*M! ... *\/`) are executed by the server but
 * ignored by the parser, and optimizer hints (`/*+ ... *\/`) are dropped too. The scanner follows
 * MySQL's default lexical rules (backslash escapes in quoted strings, `--` comments need whitespace).
 * It also reports the first keyword and whether a second statement follows a top-level `;`.
 */
export interface LexSummary {
  readonly versionedComment: boolean
  readonly optimizerHint: boolean
  readonly firstWord: string | undefined
  /** A non-empty statement follows a top-level `;`. */
  readonly multipleStatements: boolean
  readonly empty: boolean
  /** A backslash inside a quoted string (escape sequences the parser and server decode differently). */
  readonly backslashInString: boolean
  /** Any comment (`#`, `-- `, `/* *\/`), including an unterminated one. */
  readonly comment: boolean
  /** A double-quoted string. */
  readonly doubleQuoted: boolean
  /** A quoted string or identifier that never closes. */
  readonly unterminated: boolean
  /** `--` outside quotes not followed by whitespace: an operator to the server, a comment to the parser. */
  readonly dashDashWithoutSpace: boolean
}

const isSpace = (c: string | undefined): boolean =>
  c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v"

const isWordChar = (c: string): boolean => {
  const code = c.charCodeAt(0)
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    c === "_" ||
    c === "$" ||
    code >= 0x80
  )
}

export const scanSql = (sql: string): LexSummary => {
  let versionedComment = false
  let optimizerHint = false
  let firstWord: string | undefined
  let sawToken = false
  let afterSemicolon = false
  let multipleStatements = false
  let backslashInString = false
  let comment = false
  let doubleQuoted = false
  let unterminated = false
  let dashDashWithoutSpace = false
  let i = 0
  const n = sql.length
  const token = () => {
    if (afterSemicolon) multipleStatements = true
    sawToken = true
  }
  while (i < n) {
    const c = sql.charAt(i)
    const next = sql[i + 1]
    if (isSpace(c)) {
      i++
      continue
    }
    if (
      c === "#" ||
      (c === "-" && next === "-" && (i + 2 >= n || isSpace(sql[i + 2]) || sql.charCodeAt(i + 2) < 32))
    ) {
      comment = true
      while (i < n && sql[i] !== "\n") i++
      continue
    }
    if (c === "-" && next === "-") dashDashWithoutSpace = true
    if (c === "/" && next === "*") {
      comment = true
      const third = sql[i + 2]
      if (third === "!" || ((third === "M" || third === "m") && sql[i + 3] === "!")) versionedComment = true
      if (third === "+") optimizerHint = true
      const end = sql.indexOf("*/", i + 2)
      i = end === -1 ? n : end + 2
      continue
    }
    if (c === "'" || c === '"' || c === "`") {
      token()
      if (c === '"') doubleQuoted = true
      i++
      let closed = false
      while (i < n) {
        const d = sql.charAt(i)
        if (d === "\\" && c !== "`") {
          backslashInString = true
          i += 2
          continue
        }
        if (d === c) {
          if (sql[i + 1] === c) {
            i += 2
            continue
          }
          i++
          closed = true
          break
        }
        i++
      }
      if (!closed) unterminated = true
      continue
    }
    if (c === ";") {
      afterSemicolon = true
      i++
      continue
    }
    if (isWordChar(c)) {
      const start = i
      while (i < n && isWordChar(sql.charAt(i))) i++
      if (!sawToken) firstWord = sql.slice(start, i).toUpperCase()
      token()
      continue
    }
    token()
    i++
  }
  return {
    versionedComment,
    optimizerHint,
    firstWord,
    multipleStatements,
    empty: !sawToken,
    backslashInString,
    comment,
    doubleQuoted,
    unterminated,
    dashDashWithoutSpace
  }
}
