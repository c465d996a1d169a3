/**
 * Masking of clearly variable tokens (numbers, hex, ids, IPs, UUIDs, paths, durations, sizes, ...).
 *
 * One rule set for every log source: no per-system regexes. A token is split into alphanumeric runs
 * and the punctuation between them; runs that look numeric (digits, hex with digits, numbers with
 * a short unit suffix, versions) become `<*>`, adjacent `<*>` joined only by punctuation collapse into
 * one, and a whole token made only of variables (an IP, a date, a UUID) becomes a bare `<*>`.
 */

import { numericRun } from "./signature.js"

export const WILDCARD = "<*>"

export const SPACE_RE = /\s+/
const DIGITS_G_RE = /\d+/g
/** A UUID (even one with no decimal digit), possibly wrapped in punctuation. */
const UUID_RE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g

/** Unit words that follow a number as a separate token ("5.2 KB", "<1 sec", "160 ms"). */
export const UNITS: ReadonlySet<string> = new Set([
  "b",
  "kb",
  "mb",
  "gb",
  "tb",
  "pb",
  "kib",
  "mib",
  "gib",
  "tib",
  "ms",
  "us",
  "µs",
  "ns",
  "s",
  "sec",
  "secs",
  "min",
  "mins",
  "h",
  "hr",
  "hrs",
  "%",
  "kbps",
  "mbps",
  "gbps"
])

function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c >= 48 && c <= 57) return true
  }
  return false
}

/** Two or more `/` or `\\` (counted by `indexOf`, native and faster than a character loop), or `://`. */
function looksLikePath(token: string): boolean {
  if (token.includes("://")) return true
  let slashes = 0
  for (let at = token.indexOf("/"); at >= 0 && slashes < 2; at = token.indexOf("/", at + 1)) slashes++
  for (let at = token.indexOf("\\"); at >= 0 && slashes < 2; at = token.indexOf("\\", at + 1)) slashes++
  return slashes >= 2
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

const LEAD_CHARS = "([{\"'"
const TRAIL_CHARS = ")]}\"',;:."

/** `[A-Za-z][A-Za-z0-9_.-]*`: a key before `=`. */
function isKey(text: string, end: number): boolean {
  if (end < 1) return false
  const first = text.charCodeAt(0) | 0x20
  if (first < 97 || first > 122) return false
  for (let i = 1; i < end; i++) {
    const c = text.charCodeAt(i)
    if (!isAlnum(c) && c !== 95 /* _ */ && c !== 46 /* . */ && c !== 45 /* - */) return false
  }
  return true
}

/**
 * A `key=value` token whose value is partly variable is `key=<*>` (keeping a trailing `,` or `;`):
 * the constant bits left in a masked value (`client=worker-<*>.eu-west-<*>.compute.internal[<*>]`)
 * are pieces of one variable (a host, an address, a message id), not template words. A token with
 * a second `=` (`type=Started,id=<*>`) keeps its words. Linear scans, no regex: tokens come from
 * the logs being read.
 */
function keyedWildcard(masked: string): string {
  const eq = masked.indexOf("=")
  if (!isKey(masked, eq) || masked.indexOf("=", eq + 1) >= 0) return masked
  if (masked.indexOf(WILDCARD, eq + 1) < 0) return masked
  let end = masked.length
  while (end > eq + 1 && (masked.charCodeAt(end - 1) === 44 /* , */ || masked.charCodeAt(end - 1) === 59))
    end--
  return `${masked.slice(0, eq + 1)}${WILDCARD}${masked.slice(end)}`
}

/** Month and weekday names as C (`ctime`), Java, RFC 1123 and syslog print them, and AM/PM. */
const DATE_WORDS: ReadonlySet<string> = new Set(
  [
    ..."Jan Feb Mar Apr May Jun Jul Aug Sep Sept Oct Nov Dec".split(" "),
    ..."January February March April June July August September October November December".split(" "),
    ..."Mon Tue Wed Thu Fri Sat Sun Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(" ")
  ].flatMap((w) => [w, w.toUpperCase()])
)
  .add("AM")
  .add("PM")

/**
 * A month or weekday name inside a token, right after a masked number or right before one, across
 * at most three punctuation characters (`09-Jul-2024`, `2024-Jul-09`): part of a date.
 * `afterNumber`: the run before it was masked.
 */
function dateRun(token: string, i: number, j: number, afterNumber: boolean): boolean {
  if (j - i < 3 || j - i > 9 || !DATE_WORDS.has(token.slice(i, j))) return false
  if (afterNumber) return true
  let k = j
  while (k < token.length && k - j < 3 && !isAlnum(token.charCodeAt(k))) k++
  if (k === j || k === token.length || !isAlnum(token.charCodeAt(k))) return false
  // The next run must be one masking masks (what the line signature tells apart), not any digit.
  let end = k
  let digits = 0
  for (; end < token.length && isAlnum(token.charCodeAt(end)); end++)
    if (isDigit(token.charCodeAt(end))) digits++
  return digits > 0 && numericRun(token, k, end, digits)
}

/**
 * Mask one whitespace-free token in a single pass: alphanumeric runs that look numeric become `<*>`
 * (a minus sign in front of them after a non-word character goes too, as in `blk_-42`), a `<*>`
 * that follows another `<*>` across at most three punctuation characters merges into it, and a
 * token left with no letters at all (an IP, a date, a UUID) becomes a bare `<*>` keeping its
 * enclosing brackets and trailing punctuation.
 */
export function maskToken(token: string): string {
  if (token.length >= 36 && token.includes("-")) {
    // One regex pass: `replace` returns the token itself when it holds no UUID.
    const replaced = token.replace(UUID_RE, WILDCARD)
    if (replaced !== token) return replaced
  }
  if (!hasDigit(token)) return token
  return maskDigitToken(token)
}

/**
 * {@link maskToken} of a token known to hold a digit and no UUID (shorter than 36 characters or
 * without `-`): the grouper knows both from the token's shape.
 */
export function maskDigitToken(token: string): string {
  if (looksLikePath(token)) return WILDCARD
  const n = token.length
  // `out` is only appended to (never read back: a read would flatten the concatenation each time).
  // Punctuation is held back as `token[p, i)` until the next run shows whether its sign or all of
  // it is dropped.
  let out = ""
  let hasWord = false
  /** The last alphanumeric run became `<*>` (a next one within three punctuation merges into it). */
  let lastWild = false
  /** The last alphanumeric run was kept as a word ending in a letter. */
  let lastLetter = false
  let p = 0
  let i = 0
  while (i < n) {
    if (!isAlnum(token.charCodeAt(i))) {
      i++
      continue
    }
    let j = i
    let digits = 0
    while (j < n) {
      const d = token.charCodeAt(j)
      if (!isAlnum(d)) break
      if (isDigit(d)) digits++
      j++
    }
    if (numericRun(token, i, j, digits) || (digits === 0 && dateRun(token, i, j, lastWild))) {
      // Drop a sign: "-" right before the number, itself after a non-word character or the start
      // (the only word character it can follow is the last letter of a kept word).
      let keep = i
      if (i > p && token.charCodeAt(i - 1) === 45 /* - */ && !(i - p === 1 && lastLetter)) keep--
      if (!lastWild || keep - p > 3) out += `${token.slice(p, keep)}${WILDCARD}`
      lastWild = true
      lastLetter = false
    } else if (digits > 0) {
      // Word with a numeric part: keep the letters (alt0 -> alt<*>, storage234 -> storage<*>).
      out += token.slice(p, i) + token.slice(i, j).replace(DIGITS_G_RE, WILDCARD)
      hasWord = true
      lastWild = false
      lastLetter = !isDigit(token.charCodeAt(j - 1))
    } else {
      out += token.slice(p, j)
      hasWord = true
      lastWild = false
      lastLetter = true
    }
    p = j
    i = j
  }
  if (p < n) out += token.slice(p)
  if (hasWord) return keyedWildcard(out)
  let lead = ""
  for (let k = 0; k < n && LEAD_CHARS.includes(token[k]!); k++) lead += token[k]
  let t = n
  while (t > lead.length && TRAIL_CHARS.includes(token[t - 1]!)) t--
  return lead + WILDCARD + token.slice(t)
}

export const UNIT_TRAIL_RE = /^([^)\]},;:]*)([)\]},;:]*)$/
export const OPEN_WILDCARD = `(${WILDCARD}`
export const BRACKET_WILDCARD = `[${WILDCARD}`
export const PAREN_WILDCARD = `(${WILDCARD})`
export const PAREN_WILDCARD_COMMA = `(${WILDCARD}),`
export const BRACKETED_WILDCARD = `[${WILDCARD}]`

/**
 * The masked form of a date word (`Jul`, `Mon,`, `PM:`, `(Tue`: a month or weekday name or AM/PM
 * with the leading brackets and trailing punctuation a bare variable keeps, see
 * {@link maskDigitToken}): `<*>` with that punctuation; `undefined` for any other token.
 */
export function dateWordMask(token: string): string | undefined {
  const n = token.length
  if (n < 2 || n > 14) return undefined
  let s = 0
  while (s < n && LEAD_CHARS.includes(token[s]!)) s++
  const first = token.charCodeAt(s)
  if (first < 65 || first > 90) return undefined
  let e = n
  while (e > s && TRAIL_CHARS.includes(token[e - 1]!)) e--
  if (!DATE_WORDS.has(s === 0 && e === n ? token : token.slice(s, e))) return undefined
  return token.slice(0, s) + WILDCARD + token.slice(e)
}

/** A masked token that is variables and punctuation only (a number, a time, an IP: `<*>`, `<*>,`). */
export function isBareVariable(masked: string): boolean {
  if (!masked.includes(WILDCARD)) return false
  for (let i = 0; i < masked.length; i++) {
    if (masked.startsWith(WILDCARD, i)) {
      i += WILDCARD.length - 1
      continue
    }
    if (isAlnum(masked.charCodeAt(i))) return false
  }
  return true
}

/** How {@link maskDateWords} reads a token (a masked string, or the grouper's vocabulary id). */
export interface DateTokenView<T> {
  /** The token's masked form when it is a date word (see {@link dateWordMask}), else `undefined`. */
  readonly dateMask: (token: T) => T | undefined
  readonly isBareVariable: (token: T) => boolean
  /** Whether the token holds a `<*>` (equal neighbours of that kind collapse into one). */
  readonly isWild: (token: T) => boolean
}

/**
 * Dates written with words are variables like numeric ones: a month or weekday name (or AM/PM)
 * next to a bare variable, directly or through other such names, is masked (`Tue Jul 9 21:07:05
 * 2024`, `Jul 2, 2024 1:56:19 PM`, `Mon, 19 Oct 2024 ...` each become variables only), and equal
 * variable tokens that end up adjacent collapse as in {@link maskedTokens}. A name with no number
 * beside it (`every Sun at`, `report for March`) stays a word. Returns `tokens` itself when no
 * token changes.
 */
export function maskDateWords<T>(tokens: T[], view: DateTokenView<T>): T[] {
  const n = tokens.length
  let masks: (T | undefined)[] | undefined
  for (let i = 0; i < n; i++) {
    const m = view.dateMask(tokens[i]!)
    if (m === undefined) continue
    masks ??= new Array(n)
    masks[i] = m
  }
  if (masks === undefined) return tokens
  const dated = masks
  const out: T[] = []
  let changed = false
  for (let i = 0; i < n; i++) {
    let tok = tokens[i]!
    const m = dated[i]
    if (m !== undefined) {
      let a = i - 1
      while (a >= 0 && dated[a] !== undefined) a--
      let b = i + 1
      while (b < n && dated[b] !== undefined) b++
      if ((a >= 0 && view.isBareVariable(tokens[a]!)) || (b < n && view.isBareVariable(tokens[b]!))) {
        tok = m as NonNullable<T>
        changed = true
      }
    }
    if (out.length > 0 && out[out.length - 1] === tok && view.isWild(tok)) continue
    out.push(tok)
  }
  return changed ? out : tokens
}

const STRING_DATE_VIEW: DateTokenView<string> = {
  dateMask: dateWordMask,
  isBareVariable,
  isWild: (token) => token.includes(WILDCARD)
}

/**
 * Tokenize and mask a message. Numbers followed by a unit word merge into one variable, a
 * parenthesised lone variable ("(1.16 KB)", "(0x01)") is dropped as an optional annotation, and
 * runs of the same variable-bearing token (lists of ids, stack addresses) collapse into one, and
 * dates written with month or weekday names are variables ({@link maskDateWords}).
 * (`PatternGrouper` applies the same rules on token ids.)
 */
export function maskedTokens(message: string): string[] {
  const raw = message.trim()
  if (raw === "") return []
  const parts = raw.split(SPACE_RE)
  const out: string[] = []
  for (let i = 0; i < parts.length; i++) {
    let tok = maskToken(parts[i]!)
    if (tok === WILDCARD || tok === OPEN_WILDCARD || tok === BRACKET_WILDCARD) {
      // "<*> KB", "(<*> KB)," : absorb a following unit word and keep its closing punctuation.
      const next = parts[i + 1]
      if (next !== undefined) {
        const m = UNIT_TRAIL_RE.exec(next)
        if (m !== null && UNITS.has(m[1]!.toLowerCase())) {
          tok = tok + m[2]!
          i++
        }
      }
    }
    if (tok === PAREN_WILDCARD || tok === PAREN_WILDCARD_COMMA || tok === BRACKETED_WILDCARD) continue
    if (out.length > 0 && out[out.length - 1] === tok && tok.includes(WILDCARD)) continue
    out.push(tok)
  }
  return maskDateWords(out, STRING_DATE_VIEW)
}

/** The masking step alone: variable tokens become `<*>`, whitespace collapses to single spaces. */
export function normalizeLogMessage(message: string): string {
  return maskedTokens(message).join(" ")
}
