/**
 * Secrets whose key and value are not joined by `=` / `:`: name/value object pairs
 * (`{"name":"API_TOKEN","value":"…"}`, `{"Key":…,"Value":…}`, `- name: X` / `value: Y`,
 * `<add key="X" value="Y"/>`), XML elements (`<ApiToken>…</ApiToken>`, `<add key="ApiToken">…`,
 * CDATA), CSV/TSV neighbour fields (`"password","…"`), `setenv NAME value` and Go DSNs without a
 * scheme (`user:pass@tcp(host:3306)/db`). Each rule is one bounded regex pass behind a pre-check.
 */
import { isSensitiveName } from "./names.js"
import { isRandomMixed, isSecretShaped } from "./entropy.js"
import { VENDOR_KEY_RE } from "./keys.js"

const SECRET = "<SECRET>"

/** Key words that make a name secret whatever its value (as in `key=value`). */
const STRONG_NAME_RE =
  /passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|account[_-]?key|(?:auth|master|license|sdk|subscription|client|consumer|admin|root|app(?:lication)?)[_-]?key|credential|cookie|^pass$|[_.-]pass$/i

/** Whether the value under `name` is to be removed. */
const secretUnder = (name: string, value: string): boolean => {
  if (value === "" || value.startsWith("<")) return false
  if (STRONG_NAME_RE.test(name) || isSensitiveName(name))
    return !/^(?:true|false|null|none|\*+)$/i.test(value)
  if (/key$|auth|cred/i.test(name) || VENDOR_KEY_RE.test(name))
    return isSecretShaped(value) || isRandomMixed(value)
  return false
}

/** A quoted (`"…"`, `'…'`) or bare value starting at `i`: its bounds. */
const valueAt = (text: string, i: number): { from: number; to: number } => {
  const q = text.charCodeAt(i)
  if (q === 34 || q === 39) {
    let j = i + 1
    while (j < text.length && text.charCodeAt(j) !== q && text.charCodeAt(j) !== 10) j++
    return { from: i + 1, to: j }
  }
  let j = i
  while (j < text.length && !/[\s,;}\]"'<>]/.test(text[j]!)) j++
  return { from: i, to: j }
}

const replaceSpans = (text: string, spans: ReadonlyArray<readonly [number, number]>): string => {
  if (spans.length === 0) return text
  const sorted = [...spans].sort((a, b) => a[0] - b[0])
  let out = ""
  let last = 0
  for (const [a, b] of sorted) {
    if (a < last) continue
    out += text.slice(last, a) + SECRET
    last = b
  }
  return out + text.slice(last)
}

// ---- name / value pairs -----------------------------------------------------------------------

/**
 * `name`/`key` (any case, quoted or not, `:` or `=`), its value, then within 80 characters a
 * `value` key (same forms): the value goes when the name is secret.
 */
const NAME_VALUE_RE =
  /(?<![\w-])["']?(?:name|key|Name|Key|NAME|KEY|ParameterKey|ParameterName)["']?[ \t]*[:=][ \t]*["']?([A-Za-z_/][\w./-]{0,127})["']?[^<>{}\r\n]{0,40}?(?:\r?\n[ \t-]{0,40})?["']?(?:value|Value|VALUE|ParameterValue)["']?[ \t]*[:=][ \t]*/g

const redactNameValuePairs = (text: string): string => {
  const spans: Array<readonly [number, number]> = []
  NAME_VALUE_RE.lastIndex = 0
  for (let m = NAME_VALUE_RE.exec(text); m !== null; m = NAME_VALUE_RE.exec(text)) {
    const name = m[1]!.slice(m[1]!.lastIndexOf("/") + 1)
    const start = m.index + m[0].length
    const { from, to } = valueAt(text, start)
    if (to > from && secretUnder(name, text.slice(from, to))) spans.push([from, to])
  }
  return replaceSpans(text, spans)
}

// ---- XML elements -------------------------------------------------------------------------------

/** Our own placeholders look like elements (`<SECRET>`): never read as one. */
const PLACEHOLDER_NAMES: ReadonlySet<string> = new Set(
  "SECRET JWT PRIVATE_KEY URL_CREDENTIALS IP HOST EMAIL POD PID SQL_LITERAL STACK_TRACE".split(" ")
)

/** `<Name attrs>text` or `<ns:Name>` with an optional CDATA: the element's text. */
const XML_ELEMENT_RE =
  /<(?:[\w.-]{1,32}:)?([A-Za-z_][\w.-]{0,63})(?:[ \t]([^<>]{0,256}))?>(<!\[CDATA\[)?([^<\r\n]{1,4096})/g
/** The name an element's `key`/`name` attribute gives its text: `<add key="ApiToken">…</add>`. */
const NAME_ATTRIBUTE_RE = /(?:^|[ \t])(?:key|name)=["']([^"'<>]{1,128})["']/

const redactXmlElements = (text: string): string => {
  const spans: Array<readonly [number, number]> = []
  XML_ELEMENT_RE.lastIndex = 0
  for (let m = XML_ELEMENT_RE.exec(text); m !== null; m = XML_ELEMENT_RE.exec(text)) {
    if (PLACEHOLDER_NAMES.has(m[1]!)) continue
    const from = m.index + m[0].length - m[4]!.length
    let value = m[4]!
    if (m[3] !== undefined && value.includes("]]>")) value = value.slice(0, value.indexOf("]]>"))
    const trimmed = value.trim()
    const named = m[2] === undefined ? undefined : NAME_ATTRIBUTE_RE.exec(m[2])?.[1]
    if (
      trimmed !== "" &&
      (secretUnder(m[1]!, trimmed) || (named !== undefined && secretUnder(named, trimmed)))
    ) {
      const lead = value.length - value.trimStart().length
      spans.push([from + lead, from + lead + trimmed.length])
    }
  }
  return replaceSpans(text, spans)
}

// ---- CSV / TSV neighbour fields ----------------------------------------------------------------

/** A whole field that is a secret key name, then a delimiter and the next field. */
const CSV_FIELD_RE =
  /(?:^|[,;\t|]|[ ](?=["']))(["']?)([A-Za-z_][\w.-]{1,63})\1([,;\t|])(?=["']?[^\s,;\t|"'])/gm

const redactNeighbourFields = (text: string): string => {
  const spans: Array<readonly [number, number]> = []
  CSV_FIELD_RE.lastIndex = 0
  for (let m = CSV_FIELD_RE.exec(text); m !== null; m = CSV_FIELD_RE.exec(text)) {
    const name = m[2]!
    const start = m.index + m[0].length
    // The next field may be a key itself: look again from its delimiter.
    CSV_FIELD_RE.lastIndex = start - 1
    if (!STRONG_NAME_RE.test(name)) continue
    const q = text.charCodeAt(start)
    let from = start
    let to: number
    if (q === 34 || q === 39) {
      from = start + 1
      to = from
      while (to < text.length && text.charCodeAt(to) !== q && text.charCodeAt(to) !== 10) to++
    } else {
      const delim = m[3]!
      to = from
      while (to < text.length && text[to] !== delim && text[to] !== "\n" && text[to] !== "\r") to++
    }
    const value = text.slice(from, to)
    // A value with a digit or a symbol (a header row `password,token,secret` stays).
    if (to > from && !value.startsWith("<") && !/^[A-Za-z_ ]+$/.test(value)) spans.push([from, to])
  }
  return replaceSpans(text, spans)
}

// ---- setenv and DSNs ----------------------------------------------------------------------------

const SETENV_RE =
  /\b(setenv|set -x)[ \t]+([A-Za-z_]\w{0,63})[ \t]+(?!<)("[^"\r\n]{0,1024}"|'[^'\r\n]{0,1024}'|\S{1,1024})/g

/** `user:pass@tcp(`, `user:pass@unix(`, `user:pass@(`: Go MySQL driver DSNs have no scheme. */
const GO_DSN_RE = /(?<![\w.:/%-])([\w.-]{1,64}):(?!<)([^\s@/:]{1,256})@(?=(?:tcp|unix|udp|tcp6)?\()/g

const KEY_WORD_RE = /pass|pwd|secret|token|key|cred|cookie/i

/** Any of the forms below but CSV may be present (one scan of literals; most lines have none). */
const STRUCTURED_HINT_RE = /alue|ALUE|<\/|CDATA|setenv|set -x|@(?:tcp|unix|udp|tcp6)?\(/
const CSV_HINT_RE = /[,;\t|]["']?[^\s,;\t|]/

/** `hint`: whether the text holds a secret key word (see `hasKeyHint`); CSV needs one. */
export const redactStructured = (text: string, hint = KEY_WORD_RE.test(text)): string => {
  const csv = hint && CSV_HINT_RE.test(text)
  if (!csv && !STRUCTURED_HINT_RE.test(text)) return text
  let out = text
  if ((out.includes("alue") || out.includes("ALUE")) && /value["']?[ \t]*[:=]/i.test(out))
    out = redactNameValuePairs(out)
  if (out.includes("</") || out.includes("<![CDATA[")) out = redactXmlElements(out)
  if (csv) out = redactNeighbourFields(out)
  if (out.includes("setenv") || out.includes("set -x")) {
    out = out.replace(SETENV_RE, (whole, cmd: string, name: string, value: string) => {
      const bare = value.replace(/^["']|["']$/g, "")
      return secretUnder(name, bare) ? `${cmd} ${name} ${SECRET}` : whole
    })
  }
  if (/@(?:tcp|unix|udp|tcp6)?\(/.test(out)) out = out.replace(GO_DSN_RE, `$1:${SECRET}@`)
  return out
}
