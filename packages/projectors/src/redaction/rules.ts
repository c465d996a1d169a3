/**
 * The redaction catalogue: each rule is one linear-time pass (bounded quantifiers, anchored
 * starts, no nested unbounded repetition) guarded by a cheap pre-check so that clean text costs
 * little. Every redaction leaves a typed placeholder.
 */

export const PLACEHOLDERS = {
  ip: "<IP>",
  host: "<HOST>",
  email: "<EMAIL>",
  pod: "<POD>",
  pid: "<PID>",
  secret: "<SECRET>",
  jwt: "<JWT>",
  privateKey: "<PRIVATE_KEY>",
  urlCredentials: "<URL_CREDENTIALS>",
  sqlLiteral: "<SQL_LITERAL>",
  stackTrace: "<STACK_TRACE>"
} as const
export type Placeholder = (typeof PLACEHOLDERS)[keyof typeof PLACEHOLDERS]

const P = PLACEHOLDERS

// ---- private key blocks -------------------------------------------------------------------

const PRIVATE_KEY_RE =
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g

export const redactPrivateKeys = (text: string): string =>
  text.includes("-----BEGIN") ? text.replace(PRIVATE_KEY_RE, P.privateKey) : text

// ---- stack traces -------------------------------------------------------------------------

/**
 * Where a stack-trace suffix starts: an indented `at ` frame on a new line, a one-line Java/Node
 * frame (`at pkg.Class.method(File.java:42)`, `at fn (/app/x.js:1:2)`), `... N more`, a Python
 * `File "...", line N` frame, or a Go `goroutine N [running]:` dump.
 */
const STACK_START_RE =
  /\r?\n[ \t]+at[ \t]|\r?\n[ \t]*at [\w$.<>/[\]-]{1,300}[ \t]?\(|(?<![ \t])[ \t]+at [\w$.<>/[\]-]{1,300}[ \t]?\((?:[\w$.\\/<>@ -]{0,300}\.(?:java|kt|scala|groovy|clj|js|mjs|cjs|ts|tsx|jsx)(?::\d+){1,2}|Native Method|Unknown Source|native|node:[\w/:.]{1,200}|index \d+)\)|(?<![ \t])[ \t]+at (?:async )?(?:file:\/\/|node:|\/)[^\s()]{1,500}:\d+:\d+|\r?\n[ \t]*\.\.\. \d+ (?:more|common frames omitted)|(?:\r?\n[ \t]*|(?<![ \t])[ \t]+)File "[^"\r\n]{1,500}", line \d+|\r?\n?goroutine \d+ \[[\w ]{1,40}\]:/
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

export const redactStackTraces = (text: string): string => {
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

const URL_CREDENTIALS_RE = /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/)[^\s/@:]{1,256}(?::[^\s@]{0,256})?@/g

export const redactUrlCredentials = (text: string): string =>
  text.includes("://") ? text.replace(URL_CREDENTIALS_RE, `$1${P.urlCredentials}@`) : text

// ---- JWTs and well-known token shapes -------------------------------------------------------

const JWT_RE = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g

/** Cloud and SaaS credential shapes that are secret on their own, wherever they appear. */
const KNOWN_TOKEN_RE = new RegExp(
  [
    // AWS access key ids
    "\\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\\b",
    // GitHub
    "\\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,255}\\b",
    "\\bgithub_pat_[A-Za-z0-9_]{20,255}",
    // GitLab
    "\\bglpat-[A-Za-z0-9_-]{20,255}",
    // Slack
    "\\bxox[abposre]-[A-Za-z0-9-]{10,255}",
    // Stripe
    "\\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,255}",
    // Google API keys
    "\\bAIza[0-9A-Za-z_-]{30,40}",
    // OpenAI / Anthropic style keys
    "\\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,255}",
    // npm tokens
    "\\bnpm_[A-Za-z0-9]{30,255}"
  ].join("|"),
  "g"
)
const KNOWN_TOKEN_HINT_RE =
  /AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA|gh[posur]_|github_pat_|glpat-|xox|_live_|_test_|AIza|sk-|npm_/

export const redactTokenShapes = (text: string): string => {
  let out = text
  if (out.includes("eyJ")) out = out.replace(JWT_RE, P.jwt)
  if (KNOWN_TOKEN_HINT_RE.test(out)) out = out.replace(KNOWN_TOKEN_RE, P.secret)
  return out
}

// ---- key = value secrets --------------------------------------------------------------------

/** Key words that make the value of a `key=value` / `key: value` / JSON field secret. */
const SECRET_KEY_RE =
  /passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|credential|authori[sz]ation|session|cookie|bearer|^auth$|[_.-]auth$|^auth[_.-]|x-auth|^pass$|[_.-]pass$|^sig$|signature|otp$|^pin$/i

/** Header-like keys whose value runs to the end of the line (several `; `-separated parts). */
const WHOLE_LINE_KEY_RE = /^(?:set-)?cookie$|^(?:proxy-)?authori[sz]ation$/i

/**
 * `key` (optionally quoted, optionally JSON-escaped) then `=` or `:`; the value is scanned by
 * hand in {@link redactKeyValues}.
 */
const KEY_SEP_RE = /(?<![\w.-])(?=([A-Za-z_][\w.-]{0,63}))\1(\\?["']?)([ \t]*[:=][ \t]*)/g

const isValueStop = (c: number): boolean =>
  c === 32 ||
  c === 9 ||
  c === 10 ||
  c === 13 ||
  c === 44 /* , */ ||
  c === 59 /* ; */ ||
  c === 38 /* & */ ||
  c === 34 /* " */ ||
  c === 39 /* ' */ ||
  c === 125 /* } */ ||
  c === 93 /* ] */ ||
  c === 41 /* ) */ ||
  c === 92 /* \ */

const PLACEHOLDER_START_RE = /^<[A-Z_]{2,20}>/

const AUTH_SCHEME_RE = /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|ApiKey)[ \t]+/i

/** End index of the secret value starting at `start`, or `start` when there is none. */
const valueEnd = (text: string, start: number, wholeLine: boolean): { from: number; to: number } => {
  const n = text.length
  let i = start
  const first = text.charCodeAt(i)
  const quoted =
    first === 34 ||
    first === 39 ||
    (first === 92 && (text.charCodeAt(i + 1) === 34 || text.charCodeAt(i + 1) === 39))
  if (wholeLine && !quoted) {
    let j = i
    while (j < n) {
      const c = text.charCodeAt(j)
      if (c === 10 || c === 13 || c === 34 || c === 92) break
      j++
    }
    return { from: i, to: j }
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
    return { from: i, to: j }
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
    return { from: i, to: Math.min(j, n) }
  }
  // Unquoted: an optional auth scheme word, then one token.
  const scheme = AUTH_SCHEME_RE.exec(text.slice(i, i + 24))
  if (scheme) i += scheme[0].length
  let j = i
  while (j < n && !isValueStop(text.charCodeAt(j))) j++
  return { from: i, to: j }
}

/** Every key {@link SECRET_KEY_RE} accepts contains one of these (cheap pre-check). */
const KEY_HINT_RE = /pass|pwd|secret|token|key|credential|auth|session|cookie|bearer|sig|otp|pin/i

export const redactKeyValues = (text: string): string => {
  if ((!text.includes("=") && !text.includes(":")) || !KEY_HINT_RE.test(text)) return text
  KEY_SEP_RE.lastIndex = 0
  let out = ""
  let last = 0
  let m: RegExpExecArray | null = KEY_SEP_RE.exec(text)
  while (m !== null) {
    const key = m[1]!
    const sepEnd = m.index + m[0].length
    if (SECRET_KEY_RE.test(key)) {
      const { from, to } = valueEnd(text, sepEnd, WHOLE_LINE_KEY_RE.test(key))
      if (to > from && !PLACEHOLDER_START_RE.test(text.slice(from, from + 24))) {
        out += text.slice(last, from) + P.secret
        last = to
        KEY_SEP_RE.lastIndex = Math.max(to, sepEnd)
      }
    }
    m = KEY_SEP_RE.exec(text)
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- bearer / basic auth and secrets after a key word -------------------------------------

const AUTH_HEADER_RE = /\b(Bearer|Basic|Token|Digest)[ \t]+([A-Za-z0-9._~+/=-]{6,4096})/g

const looksOpaque = (value: string): boolean =>
  /\d|[+/=_.~-]/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value.slice(1)))

/** A secret key word followed by whitespace and a high-entropy hex/base64 value. */
/** The secret key word (and separator) right before a long value. */
const KEY_BEFORE_RE = /(?<![\w-])([\w-]{1,64})((?:[ \t]+(?:is|was|of|for|=|:))?[ \t]+)$/
const VALUE_KEY_WORD_RE = /passw|pwd|secret|token|key$|credential/i

const isHighEntropy = (value: string): boolean => {
  if (value.length < 16) return false
  if (/^[0-9a-fA-F]+$/.test(value)) return true
  const digits = /\d/.test(value)
  const letters = /[A-Za-z]/.test(value)
  if (!digits || !letters) return false
  // Hex, or base64 with mixed case.
  return /^[0-9a-fA-F]+$/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value)) || /[+/=_-]/.test(value)
}

/** A standalone 40-character AWS-secret-key shape (mixed case, digits; `/` or `+` allowed). */
const AWS_SECRET_RE = /(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])/g

export const redactAuthAndEntropy = (text: string): string => {
  let out = text
  if (/Bearer|Basic|Token|Digest/.test(out)) {
    out = out.replace(AUTH_HEADER_RE, (whole, scheme: string, value: string) =>
      scheme === "Bearer" || looksOpaque(value) ? `${scheme} ${P.secret}` : whole
    )
  }
  return redactLongValues(out)
}

const isValueChar = (c: number): boolean =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 43 ||
  c === 47 ||
  c === 61 ||
  c === 95 ||
  c === 45

/**
 * One hand-written scan over runs of `[A-Za-z0-9+/=_-]` of 16+ characters: a high-entropy run
 * right after a secret key word (`token 9f8e...`, `api key is ...`) and a standalone
 * 40-character AWS secret key shape become `<SECRET>`.
 */
const redactLongValues = (text: string): string => {
  const n = text.length
  if (n < 16) return text
  const keyWord = /passw|pwd|secret|token|key|credential/i.test(text)
  let out = ""
  let last = 0
  let i = 0
  while (i < n) {
    if (!isValueChar(text.charCodeAt(i))) {
      i++
      continue
    }
    let j = i + 1
    while (j < n && isValueChar(text.charCodeAt(j))) j++
    if (j - i >= 16) {
      const value = text.slice(i, j)
      let replacement: string | null = null
      if (keyWord && isHighEntropy(value)) {
        const key = KEY_BEFORE_RE.exec(text.slice(Math.max(0, i - 96), i))
        if (key !== null && VALUE_KEY_WORD_RE.test(key[1]!)) replacement = P.secret
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
    }
    i = j
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- SQL literals -----------------------------------------------------------------------------

/** Start of SQL-looking text. */
const SQL_START_RE =
  /\b(?:select\s[^;\r\n]{0,400}?\bfrom\s|insert\s+(?:ignore\s+)?into\s|update\s+[\w`."]{1,128}\s+set\s|delete\s+from\s|replace\s+into\s|call\s+[\w`.]{1,128}\s*\(|(?:where|having)\s+[\w`."]{1,128}\s*(?:=|<>|!=|<=|>=|<|>|\s+like\s|\s+in\s*\(|\s+between\s))/i
const SQL_LITERAL_RE =
  /'(?:[^'\\\r\n]|\\.|''){0,10000}'|"(?:[^"\\\r\n]|\\.|""){0,10000}"|(?<![\w$.])-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w$])/g

export const redactSqlLiterals = (text: string): string => {
  const m = SQL_START_RE.exec(text)
  if (m === null) return text
  const head = text.slice(0, m.index)
  return head + text.slice(m.index).replace(SQL_LITERAL_RE, P.sqlLiteral)
}

// ---- network identities -----------------------------------------------------------------------

const EMAIL_RE =
  /(?<![\w.+-])[\w.+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}[A-Za-z]{2,24}\b/g

export const redactEmails = (text: string): string =>
  text.includes("@") ? text.replace(EMAIL_RE, P.email) : text

const H4 = "[0-9a-fA-F]{1,4}"
const IPV4 = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}"
const IPV6_RE = new RegExp(
  `\\[?(?<![\\w:.])(?:(?:${H4}:){7}${H4}|(?:${H4}(?::${H4}){0,6})?::(?:${H4}(?::${H4}){0,6})?(?::${IPV4})?|(?:${H4}:){6}${IPV4})(?:%[\\w.]{1,16})?(?![\\w:])(?:\\](?::\\d{1,5})?)?`,
  "g"
)
const IPV4_RE = new RegExp(`(?<![\\w.])${IPV4}(?::\\d{1,5})?(?![\\w]|\\.\\d)`, "g")

export const redactIps = (text: string): string => {
  let out = text
  if (out.includes("::") || /[0-9a-fA-F]:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:/.test(out)) {
    out = out.replace(IPV6_RE, (match) => (match.replace(/[[\]:]/g, "").length === 0 ? match : P.ip))
  }
  if (/\d\.\d/.test(out)) out = out.replace(IPV4_RE, P.ip)
  return out
}

/**
 * Kubernetes pod names of Deployments (`name-<replicaset hash>-<5>`) and of DaemonSets / Jobs
 * (`name-<5>`); the generated parts use the Kubernetes safe alphabet (no vowels, no 0/1/3).
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

/** A generated 5-character suffix ends every pod name (cheap pre-check). */
const POD_HINT_RE = new RegExp(`-${K8S}{5}(?![A-Za-z0-9-])`)

export const redactPods = (text: string): string =>
  POD_HINT_RE.test(text) ? text.replace(POD_RE, (name) => (isPodName(name) ? P.pod : name)) : text

/** Top-level and internal domain suffixes a host name ends with. */
const HOST_SUFFIXES =
  "com|net|org|io|dev|app|cloud|ai|co|me|biz|info|xyz|tech|site|online|gov|edu|mil|int|us|uk|de|fr|nl|jp|cn|ru|in|eu|au|ca|br|es|it|se|ch|pl|kr|local|localdomain|internal|intranet|lan|corp|home|svc|cluster|example|test|invalid"
const HOST_SUFFIX_SET: ReadonlySet<string> = new Set(HOST_SUFFIXES.split("|"))
/**
 * A whole dotted name (labels taken atomically, so `java.net.ConnectException` is one candidate
 * and never a host); it is a host when its last label is a known suffix.
 */
const HOST_RE =
  /(?<![\w.-])(?=([A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9][A-Za-z0-9-]{0,62}){1,30}))\1(:\d{1,5})?(?![\w-]|\.[\w-])/g

const HOST_HINT_RE = new RegExp(`[A-Za-z0-9]\\.(?:${HOST_SUFFIXES})(?![A-Za-z0-9-])`, "i")

export const redactHosts = (text: string): string =>
  HOST_HINT_RE.test(text)
    ? text.replace(HOST_RE, (whole, name: string) => {
        const dot = name.lastIndexOf(".")
        return HOST_SUFFIX_SET.has(name.slice(dot + 1).toLowerCase()) ? P.host : whole
      })
    : text

// ---- process ids ------------------------------------------------------------------------------

const PID_RE =
  /\b(pid|PID|Pid|process[ _]id|processId)(["']?\s*[=:#]\s*|\s+)\d{1,10}\b|\b([A-Za-z][\w.-]{0,63})\[\d{2,10}\]/g

export const redactPids = (text: string): string =>
  /pid|process|\[\d/i.test(text)
    ? text.replace(
        PID_RE,
        (_whole, key: string | undefined, sep: string | undefined, proc: string | undefined) =>
          key !== undefined ? `${key}${sep}${P.pid}` : `${proc}[${P.pid}]`
      )
    : text
