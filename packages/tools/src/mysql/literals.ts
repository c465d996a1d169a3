/**
 * Text rules that make the rendered plan mean to the server exactly what it meant to the parser.
 *
 * node-sql-parser decodes some backslash sequences inside literals (`\u0027`, `\n`) and keeps others
 * raw, then `sqlify` writes values back without escaping. So the validator never lets a quote, a
 * backslash, a backtick or an invisible/control character reach any value of the AST: what is
 * rendered is then plain text between plain quotes, read identically by parser and server.
 */

/**
 * Code point ranges refused anywhere in a statement: C0/C1 controls (except tab, LF, CR), DEL,
 * no-break and other unusual spaces, soft hyphen, combining grapheme joiner, zero-width and bidi
 * controls, line/paragraph separators, Hangul fillers, variation selectors, BOM, specials. The
 * server and the parser disagree on which of them are whitespace, and some hide text from a reader.
 */
export const UNSAFE_CODE_POINTS: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x08],
  [0x0b, 0x0c],
  [0x0e, 0x1f],
  [0x7f, 0xa0],
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200f],
  [0x2028, 0x202f],
  [0x205f, 0x206f],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xffff],
  [0xd800, 0xdfff]
]

/** True when `sql` contains a refused character (see {@link UNSAFE_CODE_POINTS}; lone surrogates too). */
export const hasUnsafeCharacter = (sql: string): boolean => {
  // for..of walks code points: a valid surrogate pair is one code point above 0xFFFF.
  for (const ch of sql) {
    const cp = ch.codePointAt(0) ?? 0
    for (const [low, high] of UNSAFE_CODE_POINTS) if (cp >= low && cp <= high) return true
  }
  return false
}

/** Quote-like characters and backslash: never allowed inside any AST value. */
const QUOTING = /['"`\\]/

/** A value that may be rendered verbatim between quotes (or backticks). */
export const isSafeText = (s: string): boolean =>
  !QUOTING.test(s) && !hasUnsafeCharacter(s) && !s.includes("\n") && !s.includes("\r") && !s.includes("\t")

/** Longest string literal accepted (chars). */
export const MAX_LITERAL_CHARS = 256

/** Date/time literal bodies (`DATE '2024-01-01'`). */
export const DATE_LITERAL = /^[0-9][0-9 :.\-T]*$/

/** Numbers as node-sql-parser keeps them (plain decimal, optional exponent). */
export const NUMBER_TEXT = /^-?[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?$/i

/**
 * DATE_FORMAT/TIME_FORMAT/FROM_UNIXTIME formats made of specifiers and separators only: such a
 * format adds no model-written words to a cell, so the cell still counts as table data.
 */
export const SPECIFIER_ONLY_FORMAT = /^(?:%[a-zA-Z%]|[-:/ .,T_])*$/

/** A GROUP_CONCAT separator that adds no words to a cell. */
export const PUNCTUATION_SEPARATOR = /^[ ,;|/:-]{0,3}$/

/** Upper bounds of REGEXP patterns (see {@link checkRegexPattern}). */
export const MAX_REGEX_LENGTH = 128
const MAX_QUANTIFIERS = 6
const MAX_UNBOUNDED_QUANTIFIERS = 2
const MAX_REPEAT_BOUND = 32
/** At most this many `%` in a LIKE pattern (the server's wildcard matcher backtracks on each). */
export const MAX_LIKE_WILDCARDS = 4

/**
 * Refuses REGEXP patterns whose matching time can explode: a quantified group that itself contains
 * a quantifier or an alternation (`(a+)+`, `(a|aa)*`), more than two unbounded quantifiers
 * (`a*a*a*b`, polynomial backtracking), bounds over 32, back-references and long patterns.
 * Returns a short reason, or `undefined` when the pattern is acceptable.
 */
export const checkRegexPattern = (pattern: string): string | undefined => {
  if (pattern.length > MAX_REGEX_LENGTH) return "REGEXP pattern is too long"
  interface Group {
    quantified: boolean
    alternation: boolean
  }
  const stack: Array<Group> = [{ quantified: false, alternation: false }]
  let quantifiers = 0
  let unbounded = 0
  let i = 0
  const n = pattern.length
  /** Reads a quantifier at `i`; returns its kind or undefined. Advances `i` past it. */
  const readQuantifier = (): "bounded" | "unbounded" | "bad" | undefined => {
    const c = pattern[i]
    if (c === "*" || c === "+") {
      i++
      if (pattern[i] === "?" || pattern[i] === "+") i++
      return "unbounded"
    }
    if (c === "?") {
      i++
      if (pattern[i] === "?" || pattern[i] === "+") i++
      return "bounded"
    }
    if (c === "{") {
      const m = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(pattern.slice(i))
      if (!m) return "bad"
      i += m[0].length
      if (pattern[i] === "?" || pattern[i] === "+") i++
      const low = Number(m[1])
      if (m[2] !== undefined && m[3] === "") return low > MAX_REPEAT_BOUND ? "bad" : "unbounded"
      const high = m[3] !== undefined ? Number(m[3]) : low
      return low > MAX_REPEAT_BOUND || high > MAX_REPEAT_BOUND || high < low ? "bad" : "bounded"
    }
    return undefined
  }
  while (i < n) {
    const c = pattern.charAt(i)
    const top = stack[stack.length - 1]
    if (top === undefined) return "REGEXP pattern has unbalanced parentheses"
    if (c === "(") {
      if (pattern[i + 1] === "?") return "REGEXP group options are not allowed"
      stack.push({ quantified: false, alternation: false })
      i++
      continue
    }
    if (c === ")") {
      if (stack.length === 1) return "REGEXP pattern has unbalanced parentheses"
      const group = stack.pop()
      if (group === undefined) return "REGEXP pattern has unbalanced parentheses"
      i++
      const q = readQuantifier()
      if (q === "bad") return "REGEXP repetition bound is too large"
      const parent = stack[stack.length - 1]
      if (parent === undefined) return "REGEXP pattern has unbalanced parentheses"
      if (q !== undefined) {
        if (group.quantified || group.alternation) return "REGEXP nested quantifiers are not allowed"
        quantifiers++
        if (q === "unbounded") unbounded++
        parent.quantified = true
      }
      if (group.quantified) parent.quantified = true
      if (group.alternation) parent.alternation = true
      continue
    }
    if (c === "|") {
      top.alternation = true
      i++
      continue
    }
    if (c === "[") {
      // Character class: skip to its closing bracket (`[]a]`, `[^]a]`, `[[:alpha:]]`).
      let j = i + 1
      if (pattern[j] === "^") j++
      if (pattern[j] === "]") j++
      while (j < n && pattern[j] !== "]") {
        if (
          pattern[j] === "[" &&
          (pattern[j + 1] === ":" || pattern[j + 1] === "." || pattern[j + 1] === "=")
        ) {
          const close = pattern.indexOf(`${pattern[j + 1]}]`, j + 2)
          if (close === -1) return "REGEXP character class is not closed"
          j = close + 2
          continue
        }
        j++
      }
      if (j >= n) return "REGEXP character class is not closed"
      i = j + 1
    } else {
      i++
    }
    const q = readQuantifier()
    if (q === "bad") return "REGEXP repetition bound is too large"
    if (q !== undefined) {
      quantifiers++
      if (q === "unbounded") unbounded++
      top.quantified = true
    }
    // A quantifier directly after a quantifier (`a**`) is a syntax error or possessive noise.
    if (q !== undefined && readQuantifier() !== undefined) return "REGEXP nested quantifiers are not allowed"
  }
  if (stack.length !== 1) return "REGEXP pattern has unbalanced parentheses"
  if (quantifiers > MAX_QUANTIFIERS || unbounded > MAX_UNBOUNDED_QUANTIFIERS)
    return "REGEXP pattern has too many quantifiers"
  return undefined
}

/** Number of `%` wildcards in a LIKE pattern. */
export const likeWildcards = (pattern: string): number => {
  let count = 0
  for (const c of pattern) if (c === "%") count++
  return count
}
