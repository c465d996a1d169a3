/**
 * Masking of clearly variable tokens (numbers, hex, ids, IPs, UUIDs, paths, durations, sizes, ...).
 *
 * One rule set for every log source: no per-system regexes. A token is split into alphanumeric runs
 * and the punctuation between them; runs that look numeric (digits, hex with digits, numbers with
 * a short unit suffix, versions) become `<*>`, adjacent `<*>` joined only by punctuation collapse into
 * one, and a whole token made only of variables (an IP, a date, a UUID) becomes a bare `<*>`.
 */

export const WILDCARD = "<*>"

const SPACE_RE = /\s+/
const DIGITS_G_RE = /\d+/g
/** Two digit runs separated by letters. */
const DIGIT_GROUPS_RE = /\d[A-Za-z]+\d/
/** A UUID (even one with no decimal digit), possibly wrapped in punctuation. */
const UUID_RE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g
const HEX_RE = /^[0-9a-fA-F]+$/
const HEX_PREFIXED_RE = /^0[xX][0-9a-fA-F]+$/
/** Number with a short unit or ordinal suffix: 10ms, 64172MB, 41C, 8k, 2nd, 5G. */
const NUMBER_UNIT_RE = /^\d+[A-Za-z]{1,3}$/
/** Version-like run: v2, V10. */
const VERSION_RE = /^[vV]\d+$/

/** Unit words that follow a number as a separate token ("5.2 KB", "<1 sec", "160 ms"). */
const UNITS: ReadonlySet<string> = new Set([
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

function isNumericRun(run: string, digits: number): boolean {
  if (digits === run.length) return true
  if (digits === 0) return false
  if (HEX_PREFIXED_RE.test(run)) return true
  if (NUMBER_UNIT_RE.test(run)) return true
  if (VERSION_RE.test(run)) return true
  // Hash / id fragments: hex digits only, long enough not to be a word like "ee0".
  if (run.length >= 4 && HEX_RE.test(run)) return true
  // Mostly digits: J12, R02, 1001rts.
  if (digits * 2 >= run.length) return true
  // Digits in two or more places (a1b2c3, base64 and hash fragments): a generated identifier.
  // Words carry at most one number (utf8, SHA256, x86): they keep their letters.
  return DIGIT_GROUPS_RE.test(run)
}

function hasDigit(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c >= 48 && c <= 57) return true
  }
  return false
}

function looksLikePath(token: string): boolean {
  if (token.includes("://")) return true
  let slashes = 0
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c === 47 /* / */ || c === 92 /* \ */) slashes++
  }
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

/**
 * Mask one whitespace-free token in a single pass: alphanumeric runs that look numeric become `<*>`
 * (a minus sign in front of them after a non-word character goes too, as in `blk_-42`), a `<*>`
 * that follows another `<*>` across at most three punctuation characters merges into it, and a
 * token left with no letters at all (an IP, a date, a UUID) becomes a bare `<*>` keeping its
 * enclosing brackets and trailing punctuation.
 */
export function maskToken(token: string): string {
  if (token.length >= 36 && token.includes("-") && UUID_RE.test(token))
    return token.replace(UUID_RE, WILDCARD)
  if (!hasDigit(token)) return token
  if (looksLikePath(token)) return WILDCARD
  const n = token.length
  let out = ""
  let hasWord = false
  /** Length of `out` right after the last emitted wildcard, or -1. */
  let lastWildEnd = -1
  let i = 0
  while (i < n) {
    const c = token.charCodeAt(i)
    if (!isAlnum(c)) {
      out += token[i]
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
    const run = token.slice(i, j)
    if (isNumericRun(run, digits)) {
      // Drop a sign: "-" right before the number, itself after a non-word character or the start.
      if (out.length > 0 && out.charCodeAt(out.length - 1) === 45 /* - */) {
        const before = out.length >= 2 ? out.charCodeAt(out.length - 2) : -1
        if (before < 0 || !isAlnum(before)) out = out.slice(0, -1)
      }
      if (lastWildEnd >= 0 && out.length - lastWildEnd <= 3) {
        out = out.slice(0, lastWildEnd)
      } else {
        out += WILDCARD
      }
      lastWildEnd = out.length
    } else if (digits > 0) {
      // Word with a numeric part: keep the letters (alt0 -> alt<*>, storage234 -> storage<*>).
      out += run.replace(DIGITS_G_RE, WILDCARD)
      hasWord = true
      lastWildEnd = -1
    } else {
      out += run
      hasWord = true
      lastWildEnd = -1
    }
    i = j
  }
  if (hasWord) return out
  let lead = ""
  for (let k = 0; k < n && LEAD_CHARS.includes(token[k]!); k++) lead += token[k]
  let t = n
  while (t > lead.length && TRAIL_CHARS.includes(token[t - 1]!)) t--
  return lead + WILDCARD + token.slice(t)
}

const UNIT_TRAIL_RE = /^([^)\]},;:]*)([)\]},;:]*)$/

/**
 * Tokenize and mask a message. Numbers followed by a unit word merge into one variable, a
 * parenthesised lone variable ("(1.16 KB)", "(0x01)") is dropped as an optional annotation, and
 * runs of the same variable-bearing token (lists of ids, stack addresses) collapse into one.
 */
export function maskedTokens(message: string): string[] {
  const raw = message.trim()
  if (raw === "") return []
  const parts = raw.split(SPACE_RE)
  const out: string[] = []
  for (let i = 0; i < parts.length; i++) {
    let tok = maskToken(parts[i]!)
    if (tok === WILDCARD || tok === "(" + WILDCARD || tok === "[" + WILDCARD) {
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
    if (tok === "(" + WILDCARD + ")" || tok === "(" + WILDCARD + ")," || tok === "[" + WILDCARD + "]") {
      continue
    }
    if (out.length > 0 && tok.includes(WILDCARD) && out[out.length - 1] === tok) continue
    out.push(tok)
  }
  return out
}

/** The masking step alone: variable tokens become `<*>`, whitespace collapses to single spaces. */
export function normalizeLogMessage(message: string): string {
  return maskedTokens(message).join(" ")
}
