import { redactDollarQuoted } from "./bindings.js"
import { isHexRun, isPrefixedBody, isRandomLowerDigits, isRandomMixed, isSecretShaped } from "./entropy.js"
import { ID_KEY_RE, VENDOR_KEY_RE } from "./keys.js"
import { PLACEHOLDERS } from "./placeholders.js"
import { VENDOR_HINT_RE, VENDOR_HINTED_RE, VENDOR_PREFIXED_STICKY_RE } from "./vendors.js"
/**
 * The redaction catalogue: each rule is one linear-time pass (bounded quantifiers, anchored
 * starts, no nested unbounded repetition) guarded by a cheap pre-check so that clean text costs
 * little. Every redaction leaves a typed placeholder.
 */

export type { Placeholder } from "./placeholders.js"
export { PLACEHOLDERS } from "./placeholders.js"

const P = PLACEHOLDERS

// ---- private key blocks -------------------------------------------------------------------

const PRIVATE_KEY_RE =
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g

/** A PuTTY key file's private part: the base64 lines after `Private-Lines: N`. */
const PUTTY_PRIVATE_RE =
  /(Private-Lines:[ \t]*\d{1,3}[ \t]*\r?\n)(?:[A-Za-z0-9+/=]{1,128}(?:\r?\n|$)){1,256}/g

export const redactPrivateKeys = (text: string): string => {
  let out = text.includes("-----BEGIN") ? text.replace(PRIVATE_KEY_RE, P.privateKey) : text
  if (out.includes("Private-Lines:")) out = out.replace(PUTTY_PRIVATE_RE, `$1${P.privateKey}\n`)
  return out
}

// ---- stack traces -------------------------------------------------------------------------

/**
 * Where a stack-trace suffix starts: an indented `at ` frame on a new line (a dotted name, a
 * call `name (`, or `name:line:col`; `  at least 3 retries`, `  at 13:00` are prose), a one-line
 * Java/Node frame (`at pkg.Class.method(File.java:42)`, `at fn (/app/x.js:1:2)`), `... N more`,
 * a Python `File "...", line N` frame, or a Go `goroutine N [running]:` dump.
 */
const STACK_START_RE =
  /\r?\n[ \t]+at (?:new |async )?[\w$<>[\]/:-]{1,300}(?:\.|[ \t]?\(|:\d+:\d+)|\r?\n[ \t]*at [\w$.<>/[\]-]{1,300}[ \t]?\(|(?<![ \t])[ \t]+at [\w$.<>/[\]-]{1,300}[ \t]?\((?:[\w$.\\/<>@ -]{0,300}\.(?:java|kt|scala|groovy|clj|js|mjs|cjs|ts|tsx|jsx)(?::\d+){1,2}|Native Method|Unknown Source|native|node:[\w/:.]{1,200}|index \d+)\)|(?<![ \t])[ \t]+at (?:async )?(?:file:\/\/|node:|\/)[^\s()]{1,500}:\d+:\d+|\r?\n[ \t]*\.\.\. \d+ (?:more|common frames omitted)|(?:\r?\n[ \t]*|(?<![ \t])[ \t]+)File "[^"\r\n]{1,500}", line \d+|\r?\n?goroutine \d+ \[[\w ]{1,40}\]:/
const TRACEBACK = "Traceback (most recent call last)"
/** A Python exception name followed by `:` or the end: `pkg.module.SomeError: message`. */
const PY_EXC_RE =
  /(?<![\w.])(?:[A-Za-z_]\w{0,100}\.){0,10}[A-Za-z_]\w{0,100}?(?:Error|Exception|Warning|Interrupt|Exit|Fault)(?=:|$|\s)/g

const pythonExceptionLine = (tail: string): string | null => {
  const lines = tail.split(/\r?\n/)
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!
    if (line.trim() === "") continue
    if (/^[ \t]/.test(line) || line.startsWith(TRACEBACK)) break
    if (/^[A-Za-z_][\w.]*(?::|$)/.test(line)) return line.trim()
    break
  }
  // One-line traceback: from the last `XxxError` in the tail to its end.
  const flat = tail.length > 4096 ? tail.slice(tail.length - 4096) : tail
  let lastIndex = -1
  for (const m of flat.matchAll(PY_EXC_RE)) lastIndex = m.index
  return lastIndex >= 0 ? flat.slice(lastIndex).trim() : null
}

/** Every frame shape holds one of these, and so does a traceback (one cheap scan of literals). */
const STACK_HINT_RE = /at[ \t]|File "|goroutine |\.\.\. |Traceback \(most recent call last\)/

export const redactStackTraces = (text: string): string => {
  if (!STACK_HINT_RE.test(text)) return text
  const tb = text.indexOf(TRACEBACK)
  if (tb >= 0) {
    const head = text.slice(0, tb).trimEnd()
    const exc = pythonExceptionLine(text.slice(tb))
    return [head, exc, P.stackTrace].filter((part) => part !== null && part !== "").join(" ")
  }
  const m = STACK_START_RE.exec(text)
  if (m === null) return text
  const head = text.slice(0, m.index).trimEnd()
  return head === "" ? P.stackTrace : `${head} ${P.stackTrace}`
}

// ---- credentials in URLs ------------------------------------------------------------------

/** `scheme://user:pass@`, `scheme://user@` and `scheme://:pass@` (empty user, as in Redis URLs). */
const URL_CREDENTIALS_RE =
  /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)(?:[^\s/@:]{1,256}(?::[^\s@]{0,256})?|:[^\s@]{1,256})@/g

export const redactUrlCredentials = (text: string): string =>
  text.includes("@") && text.includes("://")
    ? text.replace(URL_CREDENTIALS_RE, `$1${P.urlCredentials}@`)
    : text

// ---- JWTs and well-known token shapes -------------------------------------------------------

const JWT_RE = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g

/** Incoming-webhook URLs whose path is the credential (Slack, Discord). */
const WEBHOOK_RE =
  /(hooks\.slack\.com\/(?:services|workflows|triggers)\/|discord(?:app)?\.com\/api\/webhooks\/|hooks\.zapier\.com\/hooks\/catch\/|(?:outlook\.office(?:365)?\.com|[\w-]{1,63}\.webhook\.office\.com)\/webhookb?2?\/)[A-Za-z0-9_/@-]{6,300}/g

/** What any shape below needs (one scan instead of one per literal). */
const TOKEN_SHAPE_HINT_RE = /eyJ|hooks|webhook|:AA/

export const redactTokenShapes = (text: string): string => {
  if (!TOKEN_SHAPE_HINT_RE.test(text)) return text
  let out = text
  if (out.includes("eyJ")) out = out.replace(JWT_RE, P.jwt)
  if (out.includes("hooks") || out.includes("webhook")) out = out.replace(WEBHOOK_RE, `$1${P.secret}`)
  // Telegram bot tokens hold a `:` (no value run); the other hinted rows are seen by the run scan.
  if (out.includes(":AA")) out = out.replace(VENDOR_HINTED_RE, P.secret)
  return out
}

// ---- key = value secrets --------------------------------------------------------------------

/** Key words whose value is secret whatever it looks like; both lists below start with them. */
const PASSWORD_KEY_WORDS =
  "passw(?:or)?d|passphrase|mnemonic|seed[_-]?phrase|recovery[_-]?phrase|psk|pre[_-]?shared[_-]?key|cvv|cvc|^pw$|[_.-]pw$|passwort|kennwort|wachtwoord|motdepasse|mot_de_passe|contrasena|senha|haslo|passord|sifre|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|account[_-]?key|shared[_-]?access|app(?:lication)?[_-]?key"

/**
 * Key words that make the value of a `key=value` / `key: value` / JSON field secret ("password"
 * in other languages too, ASCII spellings: `Passwort`, `senha`, `wachtwoord`; the others are
 * phrases.ts').
 */
const SECRET_KEY_RE = new RegExp(
  `${PASSWORD_KEY_WORDS}|credential|authori[sz]ation|session|cookie|bearer|^auth$|[_.-]auth$|^auth[_.-]|x-auth|^pass$|[_.-]pass$|^sig$|signature|otp$|^pin$|key$|^(?:auth|cred|creds)|(?:auth|cred|creds)$`,
  "i"
)

/**
 * Keys whose value is secret whatever it looks like (any non-empty value goes). The other
 * secret keys (`signature`, `auth`, `credentials`, `session`, ...) also name things in prose
 * (`Log signature: ...`, `auth: failed`), so their value goes only when it looks like a token.
 */
const UNAMBIGUOUS_KEY_RE = new RegExp(
  `${PASSWORD_KEY_WORDS}|(?:auth|master|license|licence|sdk|subscription|functions?|client|consumer|service|admin|root|secret|signing|encryption|api|access|bot|deploy|upload|registry)[_-]?key$|cookie|^pass$|[_.-]pass$|^(?:x[_-])?(?:api|auth)[_-]?key`,
  "i"
)

/**
 * Keys that count words or name a metric (`prompt_tokens=1834`, `active_sessions=4`,
 * `token_count`, `max_tokens`, `session_ttl`): a number after them is not a secret.
 */
const METRIC_KEY_RE =
  /tokens|sessions|secrets|passwords|keys|count|total|num|max|min|limit|size|len|length|ttl|timeout|expir|age|rate|ratio|per[_-]?s|ms$|seconds?$|_at$|_id$|index|idx|rotation|version|ver$|retries|attempts/i
/** A plain number, optionally with a unit (`1834`, `0.93`, `30s`, `1.2k`, `450ms`, `12%`). */
const NUMBER_VALUE_RE = /^-?\d+(?:\.\d+)?(?:[a-zA-Z%]{1,3})?$/
/** Words that describe a secret's state instead of being one (`token: expired`, `password=<none>`). */
const STATUS_WORDS: ReadonlySet<string> = new Set(
  "rotation rotated expired missing required invalid valid none null nil undefined empty true false yes no set unset present absent redacted masked hidden provided ok failed rejected accepted revoked refreshed changed updated enabled disabled reset sent received renewed created deleted issued granted denied found loaded saved stored cached verified validated generated requested removed unknown pending ***".split(
    " "
  )
)

/** Header-like keys whose value runs to the end of the line (several `; `-separated parts). */
const WHOLE_LINE_KEY_RE = /^(?:set-)?cookie$/i
/** Connection-string keys whose value runs to the next `;` (it contains `&` and `=`). */
const SEGMENT_KEY_RE = /^sharedaccesssignature$/i

/**
 * `key` (optionally quoted, optionally JSON-escaped, optionally closing a bracket: `user[password]=`,
 * PHP's `["pass"]=>`) then `=` or `:` (and a YAML core tag such as `!!binary`, or PHP var_dump's
 * `string(11)`, which say how to read the value that follows); the value is scanned by hand in
 * {@link redactKeyValues}.
 */
const KEY_SEP_RE =
  /(?<![\w.-])(?=([A-Za-z_][\w.-]{0,63}))\1(\\?["']?\]?)([ \t]*(?:[=-]>|:{0,2}=|[?+]=|:)[ \t]*(?:!![a-z]{1,16}[ \t]+|string\(\d{1,6}\)[ \t]+)?)/g

const isValueStop = (c: number): boolean =>
  c === 32 ||
  c === 9 ||
  c === 10 ||
  c === 13 ||
  c === 44 /* , */ ||
  c === 59 /* ; */ ||
  c === 34 /* " */ ||
  c === 39 /* ' */ ||
  c === 125 /* } */ ||
  c === 93 /* ] */ ||
  c === 41 /* ) */ ||
  c === 92 /* \ */

const PLACEHOLDER_START_RE = /^<[A-Z_]{2,20}>/

const NEXT_PARAM_RE = /[A-Za-z_][\w.[\]-]{0,63}=|amp;/y
const isNextParam = (text: string, i: number): boolean => {
  NEXT_PARAM_RE.lastIndex = i
  return i >= text.length || NEXT_PARAM_RE.test(text)
}

const AUTH_SCHEME_RE = /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|ApiKey)[ \t]+/i

type ValueMode = "token" | "line" | "segment"

/** The secret value starting at `start` (`from === to` when there is none). */
const valueEnd = (
  text: string,
  start: number,
  mode: ValueMode
): { from: number; to: number; scheme: boolean } => {
  const n = text.length
  let i = start
  const first = text.charCodeAt(i)
  const quoted =
    first === 34 ||
    first === 39 ||
    (first === 92 && (text.charCodeAt(i + 1) === 34 || text.charCodeAt(i + 1) === 39))
  if (mode !== "token" && !quoted) {
    let j = i
    while (j < n) {
      const c = text.charCodeAt(j)
      if (c === 10 || c === 13 || c === 34 || c === 92) break
      if (mode === "segment" && (c === 59 || c === 32 || c === 9 || c === 39)) break
      j++
    }
    return { from: i, to: j, scheme: false }
  }
  // Quoted value, possibly JSON-escaped (\"...\").
  let quote = -1
  if (text.charCodeAt(i) === 92 && (text.charCodeAt(i + 1) === 34 || text.charCodeAt(i + 1) === 39)) {
    quote = text.charCodeAt(i + 1)
    i += 2
    let j = i
    while (j < n && !(text.charCodeAt(j) === 92 && text.charCodeAt(j + 1) === quote)) {
      if (text.charCodeAt(j) === 10) break
      j++
    }
    return { from: i, to: j, scheme: false }
  }
  const c0 = text.charCodeAt(i)
  if (c0 === 34 || c0 === 39) {
    quote = c0
    i++
    let j = i
    while (j < n) {
      const c = text.charCodeAt(j)
      if (c === quote || c === 10) break
      if (c === 92) j++
      j++
    }
    return { from: i, to: Math.min(j, n), scheme: false }
  }
  // Unquoted: an optional auth scheme word, then one token. A scheme word followed by a separator
  // (`iex :apiKey => 'X'`) is the next key, not a scheme: its `=>` is no value.
  let scheme = AUTH_SCHEME_RE.exec(text.slice(i, i + 24))
  if (scheme) {
    const c = text.charCodeAt(i + scheme[0].length)
    if (
      c === 61 /* = */ ||
      c === 58 /* : */ ||
      (c === 45 /* - */ && text.charCodeAt(i + scheme[0].length + 1) === 62)
    )
      scheme = null
    else i += scheme[0].length
  }
  let j = i
  while (j < n) {
    const c = text.charCodeAt(j)
    // A `\uXXXX` escape (Java properties, JSON) is part of the value, not its end.
    if (c === 92 && isUnicodeEscape(text, j)) {
      j += 6
      continue
    }
    // `&` ends a value only before the next query parameter (`&state=`); else it is part of it.
    if (c === 38 ? isNextParam(text, j + 1) : isValueStop(c)) break
    j++
  }
  return { from: i, to: j, scheme: scheme !== null }
}

const UNICODE_ESCAPE_RE = /\\u[0-9a-fA-F]{4}/y
const isUnicodeEscape = (text: string, at: number): boolean => {
  UNICODE_ESCAPE_RE.lastIndex = at
  return UNICODE_ESCAPE_RE.test(text)
}

/** `pkg.sub.ClassName` or `SomethingError` / `SomethingException`: a class, not a secret. */
const CLASS_NAME_RE =
  /^(?:[A-Za-z_$][\w$]{0,100}\.){1,20}[A-Z][\w$]{0,100}$|^[A-Z]\w{0,100}(?:Error|Exception|Failure|Fault)$/
/** A plain word: lower case, Capitalized or UPPER case letters only. */
const WORD_RE = /^(?:[A-Z]?[a-z]+|[A-Z]+)$/
/** Prose: letters-only words separated by spaces and light punctuation. */
const PHRASE_RE = /^[A-Za-z]+(?:[ \t,.;:!?'-]{1,4}[A-Za-z]+){1,50}[ \t.,!?]{0,3}$/

/**
 * Whether the value after an ambiguous secret key word looks like a token: not in backticks,
 * not an object/array, not a class name, not a plain word shorter than 12 letters (or any
 * dictionary-shaped word), not a phrase of words.
 */
const looksLikeToken = (value: string): boolean => {
  if (value.length === 0) return false
  const c = value.charCodeAt(0)
  // Code, an object, a list or a call's arguments (`auth=("user", "X")`, phrases.ts reads those).
  if (c === 96 /* ` */ || c === 123 /* { */ || c === 91 /* [ */ || c === 40 /* ( */) return false
  if (/^[A-Za-z]+$/.test(value)) return value.length >= 12 && !WORD_RE.test(value)
  if (value.length <= 300 && (CLASS_NAME_RE.test(value) || PHRASE_RE.test(value))) return false
  return true
}

/** End (exclusive) of the `{...}` / `[...]` block starting at `start`, or -1 (bounded scan). */
const blockEnd = (text: string, start: number, max: number): number => {
  let depth = 0
  let quote = -1
  const end = Math.min(text.length, start + max)
  for (let j = start; j < end; j++) {
    const c = text.charCodeAt(j)
    if (quote !== -1) {
      if (c === 92) j++
      else if (c === quote) quote = -1
      continue
    }
    if (c === 34 || c === 39) quote = c
    else if (c === 123 || c === 91) depth++
    else if (c === 125 || c === 93) {
      depth--
      if (depth === 0) return j + 1
    }
  }
  return -1
}

/** Every scalar value inside an object after a secret key (`credentials: {"user": "x"}`). */
const INNER_VALUE_RE =
  /(["']?[\w.-]{1,64}["']?[ \t]*[:=][ \t]*)(?:"(?:[^"\\\r\n]|\\.){0,4096}"|'(?:[^'\\\r\n]|\\.){0,4096}'|(?![<{[])[^\s,;}\]"']{1,4096})/g

/** `[v]`, `['a', 'b']`, `[Bearer v]`: a flat list of values (header maps). */
const FLAT_LIST_RE = /^\[(?:(Bearer|Basic|Token|Digest|ApiKey)[ \t]+)?[^[\]{}:=]{1,4096}\]$/i

const redactInnerValues = (block: string): string => {
  const flat = FLAT_LIST_RE.exec(block)
  if (flat !== null) return flat[1] === undefined ? `[${P.secret}]` : `[${flat[1]} ${P.secret}]`
  return redactInnerObject(block)
}

const redactInnerObject = (block: string): string =>
  block.replace(INNER_VALUE_RE, (whole, head: string) => {
    const value = whole.slice(head.length)
    if (PLACEHOLDER_START_RE.test(value) || PLACEHOLDER_START_RE.test(value.slice(1))) return whole
    const q = value.charCodeAt(0)
    return q === 34 || q === 39 ? `${head}${value[0]}${P.secret}${value[0]}` : `${head}${P.secret}`
  })

/**
 * Every key {@link SECRET_KEY_RE} accepts contains one of these (cheap pre-check), and so does
 * every ASCII spelling of "password" it accepts in other languages (`Kennwort`, `senha`, `haslo`).
 */
const KEY_HINT_RE =
  /pass|pwd|pw\b|secret|token|key|credential|auth|cred|session|cookie|bearer|sig|otp|pin|psk|cvv|cvc|mnemonic|phrase|wort|woord|senha|contrase|haslo|sifre/i
/** Whether 32 hex digits start at `i` (optionally after a quote): a key under any name. */
const hex32At = (text: string, i: number): boolean => {
  let k = i
  const q = text.charCodeAt(k)
  if (q === 34 || q === 39) k++
  const end = k + 32
  if (end > text.length) return false
  for (; k < end; k++) {
    const c = text.charCodeAt(k)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false
  }
  return true
}

/** Keys whose secret value is recognised by its shape only (`*_key`, `auth*`, `*cred`, vendors). */
const WEAK_KEY_RE = /key$|^(?:auth|cred|creds)|(?:auth|cred|creds)$/i

type KeyClass = "unambiguous" | "ambiguous" | "weak" | "any"

/** Keys repeat a lot in logs: their class is remembered (bounded). */
const keyClassCache = new Map<string, KeyClass | null>()

const keyClass = (key: string): KeyClass | null => {
  const cached = keyClassCache.get(key)
  if (cached !== undefined) return cached
  const cls = classifyKey(key)
  if (keyClassCache.size >= 4096) keyClassCache.clear()
  keyClassCache.set(key, cls)
  return cls
}

/**
 * Keys that name a thing about a secret, not the secret (`secretsmanager`, `secret_name`,
 * `password_file`, `token_type`, `key_path`, `password_policy`): their value is a name.
 */
const ABOUT_SECRET_KEY_RE =
  /(?:secrets?|tokens?|keys?|passwords?|credentials?)[_.-]?(?:manager|store|service|engine|provider|arn|ref|name|path|file|dir|location|type|kind|mount|policy)$/i

const classifyKey = (key: string): KeyClass | null => {
  if (ABOUT_SECRET_KEY_RE.test(key)) return null
  if (UNAMBIGUOUS_KEY_RE.test(key)) return "unambiguous"
  if (SECRET_KEY_RE.test(key))
    return WEAK_KEY_RE.test(key) && !AMBIGUOUS_KEY_RE.test(key) ? "weak" : "ambiguous"
  if (VENDOR_KEY_RE.test(key)) return "weak"
  return ID_KEY_RE.test(key) ? null : "any"
}
const AMBIGUOUS_KEY_RE =
  /credential|authori[sz]ation|session|bearer|^auth$|[_.-]auth$|^auth[_.-]|x-auth|^sig$|signature|otp$|^pin$/i

/** Whether `value` (after `key` and `sep`) is a secret, by the key's class and the value. */
const isSecretValue = (key: string, cls: KeyClass, sep: string, value: string, scheme: boolean): boolean => {
  if (value === "" || PLACEHOLDER_START_RE.test(value)) return false
  // (The longest state word has 9 letters: no lower-casing of long values.)
  if (value.length <= 9 && STATUS_WORDS.has(value.toLowerCase())) return false
  if (NUMBER_VALUE_RE.test(value) && (METRIC_KEY_RE.test(key) || (sep === ":" && key.includes("-"))))
    return false
  switch (cls) {
    case "unambiguous":
      return true
    case "ambiguous":
      return scheme || AUTH_SCHEME_RE.test(value) || looksLikeToken(value)
    case "weak":
      return scheme || isSecretShaped(value) || isRandomMixed(value)
    case "any":
      // Random mixed values are left to the generic token scan.
      return isHexRun(value, 32)
  }
}

/**
 * Whether the text holds any secret key word (computed once per text by the caller and passed
 * to the rules below, which would otherwise each scan for their own word list).
 */
export const hasKeyHint = (text: string): boolean => KEY_HINT_RE.test(text)

const KEY_SEP_AT_RE = new RegExp(KEY_SEP_RE.source, "y")

/** Whether `value`, at `from`, is exactly a secret key followed by its own separator. */
const isNextSecretKey = (text: string, from: number, value: string): boolean => {
  KEY_SEP_AT_RE.lastIndex = from
  const m = KEY_SEP_AT_RE.exec(text)
  // The match covers the whole value: `password` or `password:` with nothing after it.
  if (m === null || m[0].length < value.length || !value.startsWith(m[1]!)) return false
  const cls = keyClass(value)
  return cls !== null && cls !== "any"
}

/** A YAML block scalar's indicator (`|`, `>-`, `|+2`): the value is on the lines below. */
const BLOCK_INDICATOR_RE = /^[|>][-+]?[1-9]?$/

/**
 * The content of the YAML block scalar whose key starts at `keyAt` and whose indicator ends at
 * `after`: the following lines indented deeper than the key's line (blank lines inside it
 * included), as `[from, to)` from the first content character; null when none follows.
 */
const yamlBlock = (
  text: string,
  keyAt: number,
  after: number,
  maxScan: number
): { from: number; to: number; scanned: number } | null => {
  let i = after
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++
  if (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) return null
  const lineStart = text.lastIndexOf("\n", keyAt - 1) + 1
  let keyIndent = 0
  while (text.charCodeAt(lineStart + keyIndent) === 32) keyIndent++
  let from = -1
  let to = -1
  let line = text.indexOf("\n", i) + 1
  const first = line
  // Bounded by the caller's budget (keys nested in prose blocks would rescan the same lines).
  while (line > 0 && line < text.length && line - first < maxScan) {
    const next = text.indexOf("\n", line)
    const end = next < 0 ? text.length : next
    let indent = 0
    while (line + indent < end && text.charCodeAt(line + indent) === 32) indent++
    const blank = /^[ \t\r]*$/.test(text.slice(line + indent, end))
    if (!blank && indent <= keyIndent) break
    if (!blank) {
      if (from < 0) from = line + indent
      to = end > line && text.charCodeAt(end - 1) === 13 ? end - 1 : end
    }
    line = next < 0 ? -1 : next + 1
  }
  return from < 0 ? null : { from, to, scanned: Math.max(0, (line > 0 ? line : text.length) - first) }
}

/**
 * A block after an unambiguous key goes unless it is prose (three or more words, most of them
 * letters only: a policy text); after an ambiguous key it must look like a token.
 */
const isSecretBlock = (cls: KeyClass, content: string): boolean => {
  const words = content.trim().split(/\s+/)
  if (cls === "unambiguous")
    return !(
      words.length >= 3 && words.filter((w) => /^[A-Za-z]+[.,;:]?$/.test(w)).length * 3 >= words.length * 2
    )
  return cls === "ambiguous" && looksLikeToken(words.join(""))
}

export const redactKeyValues = (text: string, hint = hasKeyHint(text)): string => {
  // Vendor-named keys without a key word (`algolia=…`) are found by the long-value scan.
  if (!hint) return text
  if (!text.includes("=") && !text.includes(":") && !text.includes("->")) return text
  KEY_SEP_RE.lastIndex = 0
  let out = ""
  let last = 0
  // Characters the object scans below may read in total: keeps the pass linear.
  let blockBudget = 65536 + 2 * text.length
  let m: RegExpExecArray | null = KEY_SEP_RE.exec(text)
  while (m !== null) {
    const key = m[1]!
    const sepEnd = m.index + m[0].length
    const cls = keyClass(key)
    if (cls !== null && (cls !== "any" || hex32At(text, sepEnd))) {
      const open = text.charCodeAt(sepEnd)
      if (cls !== "any" && (open === 123 || open === 91)) {
        // An object / array of credentials: redact its values, keep its structure.
        const max = Math.min(8192, blockBudget)
        const end = blockEnd(text, sepEnd, max)
        blockBudget -= end > sepEnd ? end - sepEnd : max
        if (end > sepEnd) {
          const block = text.slice(sepEnd, end)
          const redacted = cls === "weak" ? block : redactInnerValues(block)
          if (redacted !== block) {
            out += text.slice(last, sepEnd) + redacted
            last = end
          }
          KEY_SEP_RE.lastIndex = end
        }
      } else {
        const mode: ValueMode = WHOLE_LINE_KEY_RE.test(key)
          ? "line"
          : SEGMENT_KEY_RE.test(key)
            ? "segment"
            : "token"
        const { from, to, scheme } = valueEnd(text, sepEnd, mode)
        const value = text.slice(from, to)
        const block =
          BLOCK_INDICATOR_RE.test(value) && cls !== "any" && blockBudget > 0
            ? yamlBlock(text, m.index, to, Math.min(16384, blockBudget))
            : null
        if (block !== null) {
          blockBudget -= block.scanned
          if (isSecretBlock(cls, text.slice(block.from, block.to))) {
            out += text.slice(last, block.from) + P.secret
            last = block.to
            KEY_SEP_RE.lastIndex = block.to
          } else KEY_SEP_RE.lastIndex = to
          m = KEY_SEP_RE.exec(text)
          continue
        }
        const secret =
          to > from &&
          // `pwd :password => 'X'`: a value that is itself a secret key with its own separator is
          // the next key, not this one's value (the next match redacts what follows it).
          !isNextSecretKey(text, from, value) &&
          isSecretValue(key, cls, m[3]!.trim(), value, scheme) &&
          // `Access denied ... (using password: YES)` says whether a password was sent.
          !((value === "YES" || value === "NO") && text.slice(Math.max(0, m.index - 6), m.index) === "using ")
        if (secret) {
          out += text.slice(last, from) + P.secret
          last = to
          KEY_SEP_RE.lastIndex = Math.max(to, sepEnd)
        }
      }
    }
    m = KEY_SEP_RE.exec(text)
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- secrets as command-line flags and in prose -------------------------------------------------

/**
 * `--password hunter2`, `--password=hunter2`, `-Dspring.datasource.password=x`, `--api-key K`:
 * a flag whose name ends with a secret key word, then `=` or spaces and a value that is not
 * another flag.
 */
const FLAG_RE =
  /(?<![\w-])(-{1,2}(?=([A-Za-z][\w.-]{0,63}))\2)(?<=(?:passw(?:or)?d|passphrase|pwd|pass|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|account[_-]?key|app[_-]?key|(?:secret|signing|encryption|master)[_-]?key|credentials?|auth)(?:[_-](?:hash|file|value|b64|base64))?)(=|[ \t]+)(?![-<\s])/gi

/** `password hunter2 rejected`, `the password was Winter2024!` (a value with a digit or symbol). */
const PROSE_PASSWORD_RE =
  /(?<![\w-])(passw(?:or)?d|passphrase|pwd)((?:[ \t]+(?:is|was|of|now|set to|changed to))?[ \t]+)(?![:=-])(?=([^\s<`'"]{4,256}))\3/gi

/** `secret to X`, `the api token is X`: a secret key word, a linking word, a token-like value. */
const PROSE_SECRET_RE =
  /(?<![\w-])(secret|token|api[ _-]?key|access[ _-]?key|private[ _-]?key)([ \t]+(?:is|was|to|of|now|set to|changed to|reset to)[ \t]+)(?=([^\s<`'"]{6,256}))\3/gi

const isProseSecret = (value: string): boolean =>
  /[A-Za-z]/.test(value) &&
  /[\d!#$%&*+/=?@^_~-]/.test(value) &&
  !CLASS_NAME_RE.test(value) &&
  !/^v?\d+(?:[.:/-]\d+)*[a-z]{0,3}$/i.test(value)

/** Either prose form may be present (one scan): group 1 is set for a password word. */
const PROSE_HINT_RE =
  /(passw|passphrase|pwd)|(?:secret|token|key)[ \t]+(?:is|was|to|of|now|set|changed|reset)[ \t]/i

export const redactFlagsAndProse = (text: string, hint = hasKeyHint(text)): string => {
  let out = text
  if (out.includes("-") && /(?:^|[^\w-])--?[A-Za-z]/.test(out)) out = redactFlags(out)
  const prose = hint ? PROSE_HINT_RE.exec(out) : null
  if (prose === null) return out
  if (prose[1] !== undefined || /passw|passphrase|pwd/i.test(out)) {
    out = out.replace(PROSE_PASSWORD_RE, (whole, key: string, sep: string, raw: string) => {
      const value = raw.replace(/[.,;:)\]}]+$/, "")
      // `Password Type="PasswordText"`: an attribute, not a value.
      if (
        value.length < 4 ||
        /^[A-Za-z]+$/.test(value) ||
        /^[A-Za-z]+=/.test(value) ||
        CLASS_NAME_RE.test(value)
      )
        return whole
      return `${key}${sep}${P.secret}${raw.slice(value.length)}`
    })
  }
  if (
    prose[1] === undefined ||
    /(?:secret|token|key)[ \t]+(?:is|was|to|of|now|set|changed|reset)[ \t]/i.test(out)
  ) {
    out = out.replace(PROSE_SECRET_RE, (whole, key: string, sep: string, raw: string) => {
      const value = raw.replace(/[.,;:)\]}]+$/, "")
      return isProseSecret(value) ? `${key}${sep}${P.secret}${raw.slice(value.length)}` : whole
    })
  }
  return out
}

const redactFlags = (text: string): string => {
  FLAG_RE.lastIndex = 0
  let out = ""
  let last = 0
  let m: RegExpExecArray | null = FLAG_RE.exec(text)
  while (m !== null) {
    const start = m.index + m[0].length
    const { from, to, scheme } = valueEnd(text, start, "token")
    const value = text.slice(from, to)
    const unambiguous = !/(?:credentials?|auth)$/i.test(m[1]!)
    if (to > from && !PLACEHOLDER_START_RE.test(value) && (unambiguous || scheme || looksLikeToken(value))) {
      out += text.slice(last, from) + P.secret
      last = to
      FLAG_RE.lastIndex = to
    }
    m = FLAG_RE.exec(text)
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- bearer / basic auth and secrets after a key word -------------------------------------

const AUTH_HEADER_RE = /\b(Bearer|Basic|Token|Digest)[ \t]+([A-Za-z0-9._~+/=-]{6,4096})/g

const looksOpaque = (value: string): boolean =>
  /\d|[+/=_.~-]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value.slice(1)))

const VALUE_KEY_WORD_RE = /passw|pwd|secret|token|key$|credential/i

const isHighEntropy = (value: string): boolean => {
  if (value.length < 16) return false
  if (/^(?:0x)?[0-9a-fA-F]+$/.test(value)) return true
  const digits = /\d/.test(value)
  const letters = /[A-Za-z]/.test(value)
  if (!digits || !letters) return false
  // Hex, or base64 with mixed case.
  return /^[0-9a-fA-F]+$/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)) || /[+/=_-]/.test(value)
}

/** Word-like pieces of a value: `Key`, `Vault`, `01` in `KeyVault01`; `o`, `YYW`, `Ic`, ... in a random one. */
const CHUNK_RE = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+/g

/**
 * An 8-15 character value of mixed case and digits that reads as random, not as words: at least
 * two upper- and two lower-case letters and a digit, in five or more pieces of two characters on
 * average at most (`oYYWIcS68s`, not `KeyVault01`, `RefreshV2`, `v2Beta3`).
 */
const isShortRandom = (value: string): boolean => {
  if (!/^[A-Za-z0-9]+$/.test(value) || !/\d/.test(value)) return false
  if ((value.match(/[a-z]/g)?.length ?? 0) < 2 || (value.match(/[A-Z]/g)?.length ?? 0) < 2) return false
  const chunks = value.match(CHUNK_RE)?.length ?? 0
  return chunks >= 5 && value.length / chunks <= 2
}

/** A standalone 40-character AWS-secret-key shape (mixed case, digits; `/` or `+` allowed). */
const AWS_SECRET_RE = /(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])/g

export const redactAuthAndEntropy = (text: string, hint = hasKeyHint(text)): string => {
  let out = text
  if (/Bearer|Basic|Token|Digest/.test(out)) {
    out = out.replace(AUTH_HEADER_RE, (whole, scheme: string, value: string) =>
      scheme === "Bearer" || looksOpaque(value) ? `${scheme} ${P.secret}` : whole
    )
  }
  // `hint` alone (no second key-word scan): a value after a key word needs that key word in
  // the text, so the key-word path finds nothing more when the hint was only a near miss.
  return redactLongValues(out, hint)
}

/**
 * Per UTF-16 code unit: 0 = not a value character, 1 = other, 3 = digit, 7 = upper case. The
 * full 64 Ki table (only ASCII entries set) spares the scan a range test per character.
 */
const VALUE_CLASS = (() => {
  const t = new Uint8Array(65536)
  for (let c = 0; c < 128; c++) {
    if (c >= 48 && c <= 57) t[c] = 3
    else if (c >= 65 && c <= 90) t[c] = 7
    else if (
      (c >= 97 && c <= 122) ||
      c === 43 ||
      c === 47 ||
      c === 61 ||
      c === 95 ||
      c === 45 ||
      c === 46 ||
      c === 126
    )
      t[c] = 1
  }
  return t
})()

/** `sha256`, `trace`, `commit`, ...: a prefix that names a digest or an id, not a credential. */
const ID_PREFIXES: ReadonlySet<string> = new Set(
  "sha sha1 sha256 sha512 md5 commit rev trace span req request id uuid run job build image layer blob tree git obj container pod node msg evt event cus ch pi txn tx ord order sub inv in".split(
    " "
  )
)
/** `prefix_`, `prefix-`, `prefix_v1_`: a vendor-style prefix before a random body. */
const PREFIX_RE = /^([A-Za-z][A-Za-z0-9]{0,11})[_-](?:[A-Za-z0-9]{1,8}[_-])?/

/**
 * A self-identifying token with no key word and no table row: a short vendor-style prefix then
 * a random body (random mixed case, hex of 32+, random lower case and digits of 32+), or a run
 * that is random mixed text on its own. Identifiers, hex ids, hosts, paths and words are not.
 */
const isGenericToken = (run: string): boolean => {
  if (run.length < 20) return false
  // Every generic shape has a digit or an upper-case letter (fast reject for words, paths).
  if (!/[\dA-Z]/.test(run)) return false
  const prefix = PREFIX_RE.exec(run)
  if (prefix !== null && !ID_PREFIXES.has(prefix[1]!.toLowerCase())) {
    const body = run.slice(prefix[0].length)
    if (body.length >= 16 && (isPrefixedBody(body) || isHexRun(body, 32) || isRandomLowerDigits(body, 32)))
      return true
  }
  return isRandomMixed(run)
}

/**
 * One hand-written scan over runs of `[A-Za-z0-9+/=_-]` of 16+ characters: a high-entropy run
 * right after a secret key word (`token 9f8e...`, `api key is ...`) and a standalone
 * 40-character AWS secret key shape become `<SECRET>`.
 */
const isQuoteOrBlank = (c: number): boolean => c === 34 || c === 39 || c === 32 || c === 9
const isKeyChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45

/**
 * The key right before a value at `i` (`name=`, `"name": "`, `name => '`, `NAME:=`), read
 * backwards by hand (a regex anchored at the end would be tried at every start), or null.
 */
const keyBefore = (text: string, i: number): string | null => {
  let k = i - 1
  while (k >= 0 && isQuoteOrBlank(text.charCodeAt(k))) k--
  const c = text.charCodeAt(k)
  if (c === 61 /* = */) {
    k--
    while (k >= 0 && (text.charCodeAt(k) === 58 || text.charCodeAt(k) === 63 || text.charCodeAt(k) === 43))
      k--
  } else if (c === 58 /* : */) k--
  else if (c === 62 /* > */ && (text.charCodeAt(k - 1) === 61 || text.charCodeAt(k - 1) === 45)) k -= 2
  else return null
  while (k >= 0 && isQuoteOrBlank(text.charCodeAt(k))) k--
  const end = k + 1
  while (k >= 0 && end - k <= 64 && isKeyChar(text.charCodeAt(k))) k--
  const key = text.slice(k + 1, end)
  return /^[A-Za-z]/.test(key) ? key : null
}

/** A vendor name already says "credential": a value mixing letters and digits at all will do. */
const VENDOR_SWITCH_RATIO = 0.01

/** Keys repeat a lot in logs: whether one names a vendor is remembered (bounded). */
const vendorKeyCache = new Map<string, boolean>()

const isVendorKey = (key: string): boolean => {
  let hit = vendorKeyCache.get(key)
  if (hit === undefined) {
    hit = VENDOR_KEY_RE.test(key) && !ID_KEY_RE.test(key)
    if (vendorKeyCache.size >= 4096) vendorKeyCache.clear()
    vendorKeyCache.set(key, hit)
  }
  return hit
}

const isBlank = (c: number): boolean => c === 32 || c === 9
const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45
/** `(`, `[`, `{`, `"`, `'`, `<`: may open a group right before a key word. */
const isOpener = (c: number): boolean => c === 40 || c === 91 || c === 123 || c === 34 || c === 39 || c === 60
const CONNECTORS: ReadonlySet<string> = new Set(["is", "was", "of", "for", "=", ":"])

/**
 * The key word before a value at `i` separated by blanks, optionally with a linking word
 * (`token 9f8e…`, `api key is …`, `secret = …`, `token "9f8e…"`), read backwards by hand; or null.
 */
const keyWordBefore = (text: string, i: number): string | null => {
  let k = i - 1
  // A quoted value (`token "9f8e…"`): the quote may stand between the blank and the value.
  if (k >= 1 && (text.charCodeAt(k) === 34 || text.charCodeAt(k) === 39)) k--
  if (k < 0 || !isBlank(text.charCodeAt(k))) return null
  while (k >= 0 && isBlank(text.charCodeAt(k))) k--
  let end = k + 1
  while (k >= 0 && end - k <= 64 && !isBlank(text.charCodeAt(k))) k--
  let word = text.slice(k + 1, end)
  if (CONNECTORS.has(word)) {
    if (k < 0 || !isBlank(text.charCodeAt(k))) return null
    while (k >= 0 && isBlank(text.charCodeAt(k))) k--
    end = k + 1
    while (k >= 0 && end - k <= 64 && isWordChar(text.charCodeAt(k))) k--
    word = text.slice(k + 1, end)
  } else {
    // The whole token must be a word (`[\w-]+`), not the end of something else; an opening
    // bracket or quote may come first (`(token 9f8e…)`, `"token 9f8e…"`).
    let start = word.length
    while (start > 0 && isWordChar(word.charCodeAt(start - 1))) start--
    for (let c = 0; c < start; c++) if (!isOpener(word.charCodeAt(c))) return null
    word = word.slice(start)
  }
  if (word === "" || (k >= 0 && isWordChar(text.charCodeAt(k)))) return null
  return word
}

/**
 * `vendor=value` with no secret key word (`algolia=9faefc…`, `"mapbox": "…"`): the run holds
 * `key=value`, or the key comes right before it; the value must be secret-shaped.
 */
const vendorKeyed = (text: string, i: number, run: string): string | null => {
  const eq = run.indexOf("=")
  if (eq > 0 && eq < run.length - 1 && run.charCodeAt(eq + 1) !== 61) {
    const key = run.slice(0, eq)
    const value = run.slice(eq + 1)
    return isVendorKey(key) && isSecretShaped(value, VENDOR_SWITCH_RATIO) ? `${key}=${P.secret}` : null
  }
  const key = keyBefore(text, i)
  if (key === null || !isVendorKey(key)) return null
  return isSecretShaped(run.replace(/=+$/, ""), VENDOR_SWITCH_RATIO) ? P.secret : null
}

/**
 * The run with its vendor tokens (table rows with a literal prefix) replaced, or null: a token
 * starts the run or follows an inner `=` or `/`.
 */
const vendorTokens = (run: string): string | null => {
  if (VENDOR_HINT_RE.test(run)) {
    VENDOR_HINTED_RE.lastIndex = 0
    const hinted = run.replace(VENDOR_HINTED_RE, P.secret)
    if (hinted !== run) return hinted
  }
  let out = ""
  let last = 0
  for (let p = 0; p < run.length; ) {
    VENDOR_PREFIXED_STICKY_RE.lastIndex = p
    const m = VENDOR_PREFIXED_STICKY_RE.exec(run)
    if (m !== null) {
      out += run.slice(last, p) + P.secret
      last = p + m[0].length
      p = last
      continue
    }
    let q = p
    while (q < run.length && run.charCodeAt(q) !== 61 && run.charCodeAt(q) !== 47) q++
    while (q < run.length && (run.charCodeAt(q) === 61 || run.charCodeAt(q) === 47)) q++
    p = q
  }
  return last === 0 ? null : out + run.slice(last)
}

/**
 * The run with its generic tokens replaced, or null: the whole run first (base64 may contain
 * `/`), unless it has an inner `=` (`key=value`); then each `/`- or `=`-separated part.
 */
const genericTokens = (run: string): string | null => {
  const eq = run.indexOf("=")
  const inner = eq >= 0 && eq < run.length - 1 && !/^=+$/.test(run.slice(eq))
  if (!inner && isGenericToken(eq >= 0 ? run.slice(0, eq) : run)) return P.secret
  if (!inner && !run.includes("/")) return null
  // The common `key=value` (one inner `=`, no `/`): no split.
  if (!run.includes("/") && run.indexOf("=", eq + 1) < 0) {
    const key = run.slice(0, eq)
    const value = run.slice(eq + 1)
    const k = isGenericToken(key)
    const v = isGenericToken(value)
    return k || v ? `${k ? P.secret : key}=${v ? P.secret : value}` : null
  }
  const pieces = run.split(/(\/|=+(?=[^=]))/)
  let hit = false
  for (let k = 0; k < pieces.length; k += 2) {
    const piece = pieces[k]!
    if (isGenericToken(piece.replace(/=+$/, ""))) {
      pieces[k] = P.secret
      hit = true
    }
  }
  return hit ? pieces.join("") : null
}

const redactLongValues = (text: string, keyWord: boolean): string => {
  const n = text.length
  if (n < 16) return text
  let out = ""
  let last = 0
  let i = 0
  while (i < n) {
    const c0 = text.charCodeAt(i)
    if (VALUE_CLASS[c0] === 0) {
      i++
      continue
    }
    let j = i
    // Generic token shapes have a digit or an upper-case letter; vendor rows are also tried on
    // long unmarked runs (below).
    let flags = 0
    let upper = 0
    while (j < n) {
      const c = text.charCodeAt(j)
      const k = VALUE_CLASS[c]!
      if (k === 0) break
      flags |= k
      if (k === 7) upper++
      j++
    }
    const marked = (flags & 2) !== 0
    // Without upper case only long shapes are possible (hex / lower-case bodies, UUID keys).
    const shaped = marked && (upper >= 2 || j - i >= 34)
    // Every check below needs a digit or an upper-case letter (no slice for words and paths).
    if (j - i >= 16 && marked) {
      const value = text.slice(i, j)
      let replacement: string | null = marked && j - i >= (upper > 0 ? 20 : 24) ? vendorTokens(value) : null
      if (replacement === null && marked) replacement = vendorKeyed(text, i, value)
      if (replacement === null && keyWord) {
        const key = keyWordBefore(text, i)
        if (key !== null && VALUE_KEY_WORD_RE.test(key) && isHighEntropy(value)) replacement = P.secret
      }
      if (replacement === null && shaped && j - i >= 20) {
        // Trailing dots end a sentence; `/`-separated parts are looked at one by one.
        let end = j
        while (end > i && text.charCodeAt(end - 1) === 46) end--
        replacement = genericTokens(text.slice(i, end))
        if (replacement !== null) replacement += text.slice(end, j)
      }
      if (replacement === null && j - i >= 40) {
        const aws = value.replace(AWS_SECRET_RE, (v) =>
          /[a-z]/.test(v) && /[A-Z]/.test(v) && /\d/.test(v) ? P.secret : v
        )
        if (aws !== value) replacement = aws
      }
      if (replacement !== null) {
        out += text.slice(last, i) + replacement
        last = j
      }
    } else if (keyWord && marked && upper >= 2 && j - i >= 8 && j - i < 16) {
      // A short random value right after a bare secret key word (`token oYYWIcS68s`).
      const value = text.slice(i, j)
      const key = keyWordBefore(text, i)
      if (key !== null && VALUE_KEY_WORD_RE.test(key) && isShortRandom(value)) {
        out += text.slice(last, i) + P.secret
        last = j
      }
    } else if (j - i >= 20) {
      // A vendor prefix names a token even when its random body came out all lower case
      // (`sk_live_` + 16 lower-case letters): only the table's prefixed rows are tried.
      const replacement = vendorTokens(text.slice(i, j))
      if (replacement !== null) {
        out += text.slice(last, i) + replacement
        last = j
      }
    }
    i = j
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- SQL literals -----------------------------------------------------------------------------

/**
 * Start of SQL-looking text: a statement keyword with its structure (`SELECT ... FROM`,
 * `INSERT INTO t`, `UPDATE t SET`, `DELETE FROM t`, `REPLACE INTO`, `MERGE INTO t USING`, `CALL p(`),
 * or an account statement naming a quoted account (`CREATE|ALTER|DROP|RENAME USER 'u'`, `GRANT
 * ... TO 'u'`, `REVOKE ... FROM 'u'`, `SET PASSWORD FOR 'u'`). Lower-case `select` counts only
 * with a column list (`select id, name from users`), so prose such as "select an option from the
 * menu", "where retries = 3" or "create user failed after 3 retries" is not SQL.
 */
const SQL_START_CI_RE =
  /\b(?:select\s+(?:distinct\s+)?(?:\*|[\w`."*()]{1,128}(?:\s+as\s+\w{1,64})?(?:\s*,\s*[\w`."*()]{1,128}(?:\s+as\s+\w{1,64})?){0,50})\s+from\s+[\w`"]|insert\s+(?:ignore\s+)?into\s+[\w`."]|update\s+[\w`."]{1,128}\s+set\s|delete\s+from\s+[\w`."]|replace\s+into\s+[\w`."]|merge\s+into\s+[\w`."]{1,128}(?:\s+(?:as\s+)?\w{1,64})?\s+using\s|call\s+[\w`.]{1,128}\s*\(|(?:create|alter|drop|rename)\s+(?:user|role|login)\s+(?:if\s+(?:not\s+)?exists\s+)?['"`]|(?:grant|revoke)\s[^;\r\n]{1,256}?\s(?:to|from)\s+['"`]|set\s+password\s+for\s+['"`]|(?:do|as|select)\s+\$(?:[A-Za-z_]\w{0,31})?\$)/i
const SQL_START_UPPER_RE = /\bSELECT\s[^;\r\n]{0,400}?\bFROM\s/
const SQL_LITERAL_RE =
  /'(?:[^'\\\r\n]|\\.|''){0,10000}'|"(?:[^"\\\r\n]|\\.|""){0,10000}"|(?<![\w$.])-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w$]|\.\d)/g

export const redactSqlLiterals = (text: string): string => {
  if (
    !/select|insert|update|delete|replace|call|merge|grant|revoke|(?:user|role|login|password\s+for)\s+(?:if\s+(?:not\s+)?exists\s+)?['"`]/i.test(
      text
    ) &&
    !(text.includes("$") && /\s\$\w{0,32}\$/.test(text))
  )
    return text
  const a = SQL_START_CI_RE.exec(text)
  const b = SQL_START_UPPER_RE.exec(text)
  const start = Math.min(a?.index ?? Number.POSITIVE_INFINITY, b?.index ?? Number.POSITIVE_INFINITY)
  if (start === Number.POSITIVE_INFINITY) return text
  return text.slice(0, start) + redactDollarQuoted(text.slice(start)).replace(SQL_LITERAL_RE, P.sqlLiteral)
}

// ---- network identities -----------------------------------------------------------------------

const EMAIL_RE =
  /(?<![\w.+-])[\w.+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24}\b/g

export const redactEmails = (text: string): string =>
  text.includes("@") ? text.replace(EMAIL_RE, P.email) : text

const H4 = "[0-9a-fA-F]{1,4}"
const IPV4 = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}"
/**
 * IPv6 in full, compressed (`::`) and IPv4-embedded forms (`::ffff:192.168.1.10`,
 * `64:ff9b::10.0.0.1`), with a zone (`%eth0`) and in brackets with a port (`[fe80::1%eth0]:8080`).
 * After `::` the IPv4-embedded tail is tried first, so the address is taken whole.
 */
const IPV6_RE = new RegExp(
  `\\[?(?<![\\w:.])(?:(?:${H4}:){7}${H4}|(?:${H4}(?::${H4}){0,6})?::(?:(?:${H4}:){0,5}${IPV4}|${H4}(?::${H4}){0,6})?|(?:${H4}:){6}${IPV4})(?:%[\\w.]{1,16})?(?![\\w:]|\\.\\d)(?:\\](?::\\d{1,5})?)?`,
  "g"
)
const IPV4_RE = new RegExp(`(?<![\\w.])${IPV4}(?::\\d{1,5})?(?![\\w]|\\.\\d)`, "g")
/**
 * tcpdump's `address.port` (`IP 10.0.0.1.51512 > 10.0.0.2.443:`), only right after `IP `, `IP6 `
 * or `tcpdump: ` (and the `>` that follows): elsewhere five dotted numbers are a version
 * (`1.2.3.4.5 > 1.2.3.4.4`).
 */
const IPV4_DOT_PORT_RE = new RegExp(
  `(?<=(?:\\bIP6?|tcpdump:)[ \\t]+(?:\\S{1,64}[ \\t]+>[ \\t]+)?)${IPV4}\\.\\d{1,5}(?=[ \\t]+>|:[ \\t]|:$)`,
  "gm"
)
const TCPDUMP_HINT_RE = /\bIP6? |tcpdump:/

/** What an IPv6 address needs: `::` or four hex groups (one scan). */
const IPV6_HINT_RE = /::|[0-9a-fA-F]:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:/

export const redactIps = (text: string): string => {
  let out = text
  // A single-character search first: it is far cheaper than any regex scan.
  if (out.includes(":") && IPV6_HINT_RE.test(out)) {
    // `::` alone, or hex letters with no digit (`::add-mask::`, `::beef`), is not taken for an address.
    out = out.replace(IPV6_RE, (match) => (/\d/.test(match) ? P.ip : match))
  }
  if (out.includes(".") && /\d\.\d/.test(out)) {
    if (out.includes(">") && TCPDUMP_HINT_RE.test(out)) out = out.replace(IPV4_DOT_PORT_RE, P.ip)
    out = out.replace(IPV4_RE, P.ip)
  }
  return out
}

/**
 * Like `text.replace(re, fn)` for a global `re`, but a declined match (`fn` returns null) does
 * not consume its text: the search resumes one character after its start, so `db host=x`
 * still finds `host=x` after declining `db host`.
 */
const replaceOrResume = (re: RegExp, text: string, fn: (m: RegExpExecArray) => string | null): string => {
  re.lastIndex = 0
  let out = ""
  let last = 0
  let changed = false
  let m: RegExpExecArray | null = re.exec(text)
  while (m !== null) {
    const replacement = fn(m)
    if (replacement === null) re.lastIndex = m.index + 1
    else {
      out += text.slice(last, m.index) + replacement
      last = m.index + m[0].length
      changed = true
    }
    m = re.exec(text)
  }
  return changed ? out + text.slice(last) : text
}

/**
 * Kubernetes pod names by shape, only where the shape is unambiguous: Deployments
 * (`name-<replicaset hash>-<5>`) and DaemonSets / Jobs (`name-<5>`) whose generated parts use
 * the Kubernetes safe alphabet (no vowels, no 0/1/3) and mix letters and digits.
 */
const K8S = "[bcdfghjklmnpqrstvwxz2456789]"
const POD_RE = new RegExp(
  `(?<![A-Za-z0-9.-])[a-z][a-z0-9]{0,62}(?:-[a-z0-9]{1,62}){0,8}?(?:-${K8S}{6,10}-${K8S}{5}|-${K8S}{5})(?![A-Za-z0-9-])`,
  "g"
)

const isPodName = (name: string): boolean => {
  const parts = name.split("-")
  const suffix = parts[parts.length - 1]!
  const hash = parts[parts.length - 2]
  const hasDigitAndLetter = (s: string) => /\d/.test(s) && /[a-z]/.test(s)
  // Deployment pod: replicaset hash and suffix; hash must mix letters and digits.
  if (parts.length >= 3 && hash !== undefined && /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/.test(hash)) {
    return hasDigitAndLetter(hash) || hasDigitAndLetter(suffix)
  }
  return parts.length >= 2 && hasDigitAndLetter(suffix)
}

/** A generated 5-character suffix ends every pod name of that shape (cheap pre-check). */
const POD_HINT_RE = new RegExp(`-${K8S}{5}(?![A-Za-z0-9-])`)

/**
 * Pod names by context, for the ambiguous shapes (StatefulSet `mysql-0`, `redis-master-2`, Job
 * `batch-job-xkcdq`): the value after `pod`, `pods`, `pod_name`, `podName`,
 * `kubernetes.pod_name` (`pod x`, `pod/x`, `pod=x`, `"pod": "x"`, `Created pod: x`). The value
 * is a lower-case DNS name with a `-` and a digit or two `-` (so `pod re-created` stays).
 */
const POD_CONTEXT_RE =
  /(?<![\w.-])(?=([A-Za-z][\w.-]{0,63}))\1(?<=(?<![A-Za-z0-9])pod(?:s|[_-]?name)?)(\\?["']?[ \t]*[:=][ \t]*\\?["']?|\/|[ \t]+["']?)(?=([a-z0-9][a-z0-9.]{0,62}-[a-z0-9.-]{0,190}))\3(?![A-Z])/gi

export const redactPods = (text: string): string => {
  let out =
    text.includes("-") && POD_HINT_RE.test(text)
      ? text.replace(POD_RE, (name) => (isPodName(name) ? P.pod : name))
      : text
  // Checked on the input: the `<POD>` placeholders just written would match `pod`.
  if (/pod|Pod|POD/.test(text)) {
    out = replaceOrResume(POD_CONTEXT_RE, out, (m) => {
      const whole = m[0]
      const raw = m[3]!
      if (/[A-Z]/.test(raw)) return null
      const name = raw.replace(/[.-]+$/, "")
      const hyphens = name.split("-").length - 1
      if (hyphens === 0 || !(/\d/.test(name) || hyphens >= 2)) return null
      return `${whole.slice(0, whole.length - raw.length)}${P.pod}${raw.slice(name.length)}`
    })
  }
  return out
}

// ---- host names ---------------------------------------------------------------------------------

/** Top-level and internal domain suffixes a host name ends with. */
const HOST_SUFFIXES =
  "com|net|org|io|dev|app|cloud|ai|co|me|biz|info|xyz|tech|site|online|gov|edu|mil|int|us|uk|de|fr|nl|jp|cn|ru|in|eu|au|ca|br|es|it|se|ch|pl|kr|local|localdomain|internal|intranet|lan|corp|home|svc|cluster|example|test|invalid"
const HOST_SUFFIX_SET: ReadonlySet<string> = new Set(HOST_SUFFIXES.split("|"))
/** Environment labels that make a lower-case dotted name a host (`db-primary.prod.acme`). */
const ENV_LABELS: ReadonlySet<string> = new Set([
  "prod",
  "production",
  "staging",
  "stage",
  "stg",
  "qa",
  "uat",
  "preprod",
  "sandbox",
  "dev",
  "test",
  "int"
])
/** Last labels of file names (`server.go:87`, `config.prod.yaml`): never hosts. */
const FILE_EXTENSIONS: ReadonlySet<string> = new Set(
  "go java kt scala groovy py pyc rb php js mjs cjs ts tsx jsx c cc cpp h hpp rs cs swift ex exs erl sh bash ps1 yml yaml json xml toml ini cfg conf properties env log txt md html htm css csv sql jar war ear so dll exe lock pem crt key pid sock gz zip tar tgz bz2 proto tf".split(
    " "
  )
)

/**
 * A whole dotted name (labels taken atomically, so `java.net.ConnectException` is one candidate),
 * with an optional port.
 */
const HOST_RE =
  /(?<![\w.-])(?=([A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9][A-Za-z0-9-]{0,62}){1,30}))\1(:\d{1,5})?(?![\w-]|\.[\w-])/g

const HOST_HINT_RE = new RegExp(`[A-Za-z0-9]\\.(?:${HOST_SUFFIXES})(?![A-Za-z0-9-])`, "i")
/**
 * What the other dotted hosts need (cheap pre-check): a `-` in a dotted name, a lower-case
 * dotted name with a port, or an environment label. Written from the dot outwards (lookbehinds):
 * a pattern that starts with a literal lets the engine skip to the dots.
 */
const DOTTED_HOST_HINT_RE =
  /\.(?:(?<=[a-z0-9]-[a-z0-9-]{0,62}\.)[a-z]|[a-z0-9]{1,62}-|(?<=[a-z]\.)[a-z][a-z0-9-]{0,62}:\d|(?:prod|production|staging|stage|stg|qa|uat|preprod|sandbox|dev|test|int)(?![\w-]))/

/**
 * A dotted name is a host when its last label is a known suffix; or, when it is lower case, starts
 * with a letter and is not a file name, when it has a port, a label with `-` (Java and Python
 * names never have one) or an environment label after the first. Class and module names
 * (`com.zaxxer.hikari.pool.HikariPool`, `redis.exceptions.TimeoutError`, `celery.worker`) stay.
 */
const isDottedHost = (name: string, port: string | undefined): boolean => {
  const last = name.slice(name.lastIndexOf(".") + 1).toLowerCase()
  if (HOST_SUFFIX_SET.has(last)) return true
  if (!/^[a-z][a-z0-9.-]*$/.test(name) || FILE_EXTENSIONS.has(last)) return false
  if (port !== undefined) return true
  const labels = name.split(".")
  if (name.includes("-")) return !/^v\d/.test(name) && !labels.some((l) => /^v\d+(?:-\d+)+$/.test(l))
  for (let i = 1; i < labels.length; i++) if (ENV_LABELS.has(labels[i]!)) return true
  return false
}

/** Ports that make a bare `name:port` a host even when the name is a plain word (`rabbitmq:5672`). */
const WELL_KNOWN_PORTS: ReadonlySet<string> = new Set(
  "21 22 23 25 53 80 110 143 389 443 465 587 636 993 995 1433 1521 2181 2375 2376 2379 2380 3000 3306 3389 4222 4317 4318 5000 5044 5432 5601 5672 5984 6379 6380 6443 7000 7001 8000 8080 8081 8086 8088 8200 8443 8500 8888 9000 9042 9090 9092 9093 9200 9300 9418 10250 11211 15672 26379 27017 50051".split(
    " "
  )
)
/** Names that precede `:<number>` without being hosts (`pid:2304`, `retry-after:30`). */
const NOT_HOST_NAMES: ReadonlySet<string> = new Set(
  "localhost http https tcp udp unix port pid ppid tid uid gid line col code status errno exit signal id attempt attempts retry retries after count size len length limit remaining timeout ms sec seconds time step version v rc page offset total max min took".split(
    " "
  )
)
/** `name:port` with a lower-case name that is not a URL scheme, a time or part of a dotted name. */
const NAME_PORT_RE = /(?<![\w.:%-])([a-z][a-z0-9-]{0,62}):(\d{1,5})(?![\w:]|\.\d|\/\/)/g

/** Cloud node names that carry their identity in the shape: GKE, AKS and EC2 (`ip-10-1-2-3`). */
const NODE_SHAPE_RE =
  /(?<![\w.-])(?:gke-[a-z0-9-]{1,80}-[a-z0-9]{4}|aks-[a-z0-9-]{1,60}-\d{6,10}-vmss[0-9a-z]{6}|ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})(?:\.[a-z0-9-]{1,63}){0,10}(?::\d{1,5})?(?![\w-]|\.[\w-])/g

/**
 * The value after a host key (`host=`, `hostname:`, `"server_name": "..."`, `db_host=`,
 * `SOURCE_HOST='...'`, `upstream:`, `remote_addr=`, `peer=`, `node ...`, `host "..."`).
 */
const HOST_KEY_RE =
  /(?<![\w.-])(?=([A-Za-z][\w.-]{0,63}))\1(?<=(?<![A-Za-z0-9])(?:host(?:_?name)?|node(?:_?name)?|server(?:_?name)?|upstream|remote_?(?:addr|host)|peer(?:_?addr)?|addr|db))(\\?["']?[ \t]*[:=][ \t]*\\?["']?|[ \t]+["']?)(?=([A-Za-z0-9][\w.-]{0,252}))\3(:\d{1,5})?/gi
/**
 * What a HOST_KEY_RE match needs (cheap pre-check): a key's last word right before its
 * separator, found from the separator backwards (fewer candidate positions than the words).
 */
const HOST_KEY_HINT_RE = /[\\"' \t:=](?<=(?:host|name|node|server|upstream|addr|peer|db).)/i
/** Keys that name a host whatever the value looks like (others need a host-shaped value). */
const STRONG_HOST_KEY_RE = /(?:host(?:_?name)?|addr)$/i
/** Keys whose value may also follow after a space in prose (`on host db-primary-01`). */
const PROSE_HOST_KEY_RE = /^(?:host|hostname|node|server|peer|upstream)$/i

/** `to db-primary-01`, `from worker-3`: a hyphenated name ending in a digit after to/from. */
const PREPOSITION_HOST_RE =
  /(?<![\w-])((?:to|from)[ \t]+)([a-z][a-z0-9]{0,62}(?:-[a-z0-9]{1,62}){1,8})(?![\w-]|\.[\w-])/g
const NOT_HOST_FIRST_LABELS: ReadonlySet<string> = new Set(
  "utf iso sha md aes rsa ecdsa x86 tls ssl http https base win windows amd arm level top step phase stage tier layer".split(
    " "
  )
)
/** Cloud regions (`eu-west-1`, `us-central1`): not hosts. */
const REGION_RE =
  /^[a-z]{2,6}(?:-[a-z]+)?-(?:north|south|east|west|central|northeast|southeast|northwest|southwest)\d?(?:-\d{1,2})?$/

const hostFromName = (name: string, port: string): boolean => {
  if (NOT_HOST_NAMES.has(name)) return false
  const lastPart = name.slice(name.lastIndexOf("-") + 1)
  if (NOT_HOST_NAMES.has(lastPart)) return false
  if (WELL_KNOWN_PORTS.has(port)) return true
  return /[\d-]/.test(name) && port.length >= 2
}

/** What a cloud node name needs (one scan before the per-cloud checks). */
const NODE_HINT_RE = /ip-|gke-|aks-/

/**
 * Host names by position, dotted or not: a UNC path's server (`\\fs01\share`, not `\\?\` or
 * `\\.\`), the server of a scheme-less `//nas-02/share` (not `a//b`, not after `scheme:`), and the
 * host of `user@host:path` (scp, rsync, git over ssh).
 */
const UNC_HOST_RE = /(?<![\w\\])\\\\([A-Za-z0-9][\w.-]{0,252})(?=\\)/g
const SLASH_HOST_RE = /(?<![\w:/])\/\/(?=[\w.-]{0,252}[A-Za-z])([A-Za-z0-9][\w.-]{0,252})(?=\/)/g
/** Not an image digest (`nginx@sha256:…`) or a version (`lodash@4.17.21:`): a name with a letter. */
const SSH_TARGET_RE =
  /(?<=[\w.+-]@)(?!sha\d{0,3}:)(?=[\w.-]{0,252}[A-Za-z])([A-Za-z0-9][\w.-]{0,252})(?=:[\w~/.])/g

const redactHostPositions = (text: string): string => {
  let out = text
  if (out.includes("\\\\")) out = out.replace(UNC_HOST_RE, `\\\\${P.host}`)
  if (out.includes("//")) out = out.replace(SLASH_HOST_RE, `//${P.host}`)
  if (out.includes("@")) out = out.replace(SSH_TARGET_RE, P.host)
  return out
}

export const redactHosts = (text: string): string => {
  // Every HOST_KEY_RE key ends in one of these words, right before its separator.
  const hostKey = HOST_KEY_HINT_RE.test(text)
  let out = redactHostPositions(text)
  if (out.includes(".") && (HOST_HINT_RE.test(out) || DOTTED_HOST_HINT_RE.test(out))) {
    out = out.replace(HOST_RE, (whole, name: string, port: string | undefined, offset: number, s: string) => {
      // A property key (`spring.datasource.hikari.connection-timeout=30000`) or a call.
      const next = s.charCodeAt(offset + whole.length)
      if (next === 61 /* = */ || next === 40 /* ( */) return whole
      return isDottedHost(name, port) ? P.host : whole
    })
  }
  if (
    NODE_HINT_RE.test(out) &&
    ((out.includes("ip-") && /-\d{1,3}-\d/.test(out)) || out.includes("gke-") || out.includes("aks-"))
  )
    out = out.replace(NODE_SHAPE_RE, P.host)
  if (out.includes(":") && /[a-z0-9]:\d/.test(out)) {
    out = out.replace(NAME_PORT_RE, (whole, name: string, port: string) =>
      hostFromName(name, port) ? P.host : whole
    )
  }
  // Checked on the input: the `<HOST>` placeholders just written would match `host`.
  if (hostKey) {
    const s = out
    out = replaceOrResume(HOST_KEY_RE, s, (m) => {
      const key = m[1]!
      const sep = m[2]!
      const raw = m[3]!
      const port = m[4]
      const end = m.index + m[0].length
      if (s.startsWith("://", end)) return null
      const value = raw.replace(/[.-]+$/, "")
      if (value === "" || /^\d+$/.test(value) || value.toLowerCase() === "localhost") return null
      const prose = !/[:=]/.test(sep)
      const hostShaped =
        port !== undefined ||
        (/^[A-Za-z0-9.-]+$/.test(value) &&
          /[\d.-]/.test(value) &&
          !/^v\d/i.test(value) &&
          !FILE_EXTENSIONS.has(value.slice(value.lastIndexOf(".") + 1)))
      if (prose) {
        if (!PROSE_HOST_KEY_RE.test(key) || !/^[a-z][a-z0-9.-]*$/.test(value)) return null
        if (!(port !== undefined || /\d/.test(value) || value.includes("."))) return null
        if (!hostShaped || /^v\d/.test(value)) return null
      } else if (!STRONG_HOST_KEY_RE.test(key) && !hostShaped) return null
      return `${key}${sep}${P.host}${raw.slice(value.length)}`
    })
  }
  if (/(?:to|from)[ \t]+[a-z]/.test(out)) {
    out = out.replace(PREPOSITION_HOST_RE, (whole, head: string, name: string) => {
      const labels = name.split("-")
      if (!/\d/.test(labels[labels.length - 1]!) || /^v\d/.test(name)) return whole
      if (NOT_HOST_FIRST_LABELS.has(labels[0]!) || REGION_RE.test(name)) return whole
      if (labels.every((l) => /^\d+$/.test(l) || l.length <= 1)) return whole
      return `${head}${P.host}`
    })
  }
  return out
}

// ---- process ids ------------------------------------------------------------------------------

/**
 * `pid=42`, `PID 42`, `process id: 42`, `proc[42]`, and the kernel OOM killer's
 * `Killed process 4411 (java)` / `Out of memory: Kill process 1234 (java)`.
 */
const PID_RE =
  /\b(pid|PID|Pid|process[ _]id|processId)(["']?\s*[=:#]\s*|\s+)\d{1,10}\b|\b([A-Za-z][\w.-]{0,63})\[\d{2,10}\]|\b((?:[Kk]ill(?:ed|ing)?|[Rr]eaped|[Tt]erminated|[Ss]topped|[Ss]tarted|[Ff]orked|[Ss]pawned|[Ee]xited|[Cc]hild|SIG[A-Z]{2,8} to) process[ \t]+|[Pp]rocess[ \t]+(?=\d{1,10}[ \t]*\())\d{1,10}\b/g

/** nginx `2871#2871:`, `worker 55120`, `starting as process 4821`, `with PID 48213`. */
const NGINX_PID_RE = /(?<![\w#])\d{1,10}#\d{1,10}(?=: )/g
const isDigit = (c: number): boolean => c >= 48 && c <= 57
const WORKER_PID_RE = /\b([Ww]orker(?:[ \t]+pid)?[ \t]+|as process[ \t]+)\d{2,10}\b(?![.%]\d|[%:])/g

/**
 * What any form below needs (one scan; most lines have none): a pid key word or `proc[42]`,
 * nginx's digit before `#`, a worker.
 */
const PID_HINT_RE = /pid|process|\[\d|orker|\d#/i

export const redactPids = (text: string): string => {
  if (!PID_HINT_RE.test(text)) return text
  // The key forms first: `<PID>` placeholders from the forms below would trip their pre-check.
  let out = redactPidKeys(text)
  // nginx puts `pid#tid: ` right after the level: a digit before `#` and `: ` after.
  const hash = out.indexOf("#")
  if (hash > 0 && isDigit(out.charCodeAt(hash - 1)) && out.includes(": ", hash))
    out = out.replace(NGINX_PID_RE, `${P.pid}#${P.pid}`)
  if (out.includes("orker") || out.includes("as process")) out = out.replace(WORKER_PID_RE, `$1${P.pid}`)
  return out
}

/** Syslog header: `May 12 10:22:13 bastion-02 sshd[…]:` (RFC 3164) or an ISO time, then the host. */
const SYSLOG_HOST_RE =
  /^((?:<\d{1,3}>\d?[ \t]*)?(?:[A-Z][a-z]{2}[ \t]+\d{1,2}[ \t]+\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)[ \t]+)(?!<)([A-Za-z0-9][A-Za-z0-9._-]{0,252})(?=[ \t]+[\w./@-]{1,64}(?:\[(?:\d{1,10}|<PID>)\])?:)/gm

const SYSLOG_HOST_LINE_RE = new RegExp(SYSLOG_HOST_RE.source)

export const redactSyslogHosts = (text: string): string => {
  const c = text.charCodeAt(0)
  // Single lines (the common case) start with the month, `<pri>` or the ISO year.
  if (!text.includes("\n")) {
    if (!(c === 60 || (c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return text
    const m = SYSLOG_HOST_LINE_RE.exec(text)
    return m === null ? text : `${m[1]}${P.host}${text.slice(m[0].length)}`
  }
  return /\d:\d\d[ \t.]/.test(text) ? text.replace(SYSLOG_HOST_RE, `$1${P.host}`) : text
}

const redactPidKeys = (text: string): string =>
  /pid|process|\[\d/i.test(text)
    ? text.replace(
        PID_RE,
        (
          _whole,
          key: string | undefined,
          sep: string | undefined,
          proc: string | undefined,
          head: string | undefined
        ) =>
          key !== undefined
            ? `${key}${sep}${P.pid}`
            : proc !== undefined
              ? `${proc}[${P.pid}]`
              : `${head}${P.pid}`
      )
    : text
