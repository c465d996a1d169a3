/**
 * Decoded views: a secret may be written percent-encoded (`%3Faccess_token%3D…`, also twice),
 * inside an escaped JSON string (`\"password\":\"…\"`), split by shell quote splicing
 * (`'abc'"'"'def'`) or with HTML/XML character references (`password&#61;…`). Each view
 * decodes the whole text while remembering, for every view character, the span of original
 * characters it came from; the secret rules run on the view and every span they remove is mapped
 * back and removed from the original (so the encoded secret goes too).
 */

interface View {
  readonly text: string
  /**
   * Original offset where view character `i` starts; a character ends where the next one
   * starts (`end` for the last), so a removed view span `[a, b)` is `[start[a], start[b])`.
   */
  readonly start: ReadonlyArray<number>
  readonly end: number
}

/**
 * `text.slice(from, to)` as it is, before any decoding: character `i` starts at `from + i`, so
 * no offset array is built (most first decoding steps are the only one).
 */
interface Plain {
  readonly text: string
  readonly from: number
  readonly end: number
}

const plainView = (text: string, from = 0, to = text.length): Plain => ({
  text: from === 0 && to === text.length ? text : text.slice(from, to),
  from,
  end: to
})

const hexValue = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1

type Decoding = "percent" | "unescape" | "splice" | "entity"

/** An HTML/XML character reference for printable ASCII: `&#61;`, `&#x3D;`, `&amp;`, `&quot;`. */
const ENTITY_RE = /&(?:#(\d{1,5})|#[xX]([0-9a-fA-F]{1,4})|(amp|quot|apos|lt|gt));/y
const ENTITY_HINT_RE = /&(?:#\d{1,5}|#[xX][0-9a-fA-F]{1,4}|amp|quot|apos|lt|gt);/
const ENTITY_GLOBAL_RE = new RegExp(ENTITY_RE.source, "g")
const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">" }

/** The character an entity match stands for, or "" when it is not printable ASCII. */
const entityChar = (
  decimal: string | undefined,
  hex: string | undefined,
  name: string | undefined
): string => {
  if (name !== undefined) return NAMED_ENTITIES[name]!
  const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16)
  return code >= 32 && code < 127 ? String.fromCharCode(code) : ""
}

/** Shell splice `'"'"'` (close quote, quoted quote, reopen) reads as nothing. */
const SPLICE = `'"'"'`

/**
 * One decoding step over a view (one monomorphic loop per call): `%XX` (printable ASCII only),
 * `\"` `\'` `\\` `\/` (the backslash goes), `\n` `\t` `\r`, an HTML character reference or a
 * shell splice (goes whole).
 */
const decodeStep = (view: View | Plain, kind: Decoding): View | null => {
  const src = view.text
  const n = src.length
  // Plain arrays: small typed arrays cost far more in allocation and GC here.
  const start: number[] = []
  const base = "start" in view ? view.start : null
  const from = "from" in view ? view.from : 0
  let out = ""
  let plain = 0
  for (let i = 0; i < n; ) {
    const c = src.charCodeAt(i)
    let consumed = 0
    let ch = ""
    if (kind === "percent" && c === 37) {
      const h = hexValue(src.charCodeAt(i + 1))
      const l = hexValue(src.charCodeAt(i + 2))
      const code = h * 16 + l
      if (h >= 0 && l >= 0 && code >= 32 && code < 127) {
        consumed = 3
        ch = String.fromCharCode(code)
      }
    } else if (kind === "unescape" && c === 92) {
      const e = src.charCodeAt(i + 1)
      if (e === 34 || e === 39 || e === 92 || e === 47) {
        consumed = 2
        ch = src[i + 1]!
      } else if (e === 110 || e === 116 || e === 114) {
        // `\n`, `\t`, `\r`: a multi-line value (a YAML block) inside a JSON string
        consumed = 2
        ch = e === 110 ? "\n" : e === 116 ? "\t" : "\r"
      }
    } else if (kind === "splice" && c === 39 && src.startsWith(SPLICE, i)) consumed = SPLICE.length
    else if (kind === "entity" && c === 38) {
      ENTITY_RE.lastIndex = i
      const m = ENTITY_RE.exec(src)
      const decoded = m === null ? "" : entityChar(m[1], m[2], m[3])
      if (decoded !== "") {
        consumed = m![0].length
        ch = decoded
      }
    }
    if (consumed === 0) {
      start.push(base === null ? from + i : base[i]!)
      i++
      continue
    }
    out += src.slice(plain, i) + ch
    if (ch !== "") start.push(base === null ? from + i : base[i]!)
    i += consumed
    plain = i
  }
  if (plain === 0) return null
  out += src.slice(plain)
  return { text: out, start, end: view.end }
}

const PERCENT_HINT_RE = /%[0-9A-Fa-f]{2}/
const PERCENT_ESCAPE_RE = /%[0-9A-Fa-f]{2}/g
/** Characters that end a token (whitespace, quotes, angle brackets). */
const isTokenEnd = (c: number): boolean => c <= 32 || c === 34 || c === 39 || c === 60 || c === 62
const MAX_LEVELS = 3

/** The decoded views worth looking at (none for most lines). */
const viewsOf = (text: string): View[] => {
  const views: View[] = []
  if (PERCENT_HINT_RE.test(text)) {
    // Each whitespace- or quote-delimited token with a percent escape is decoded on its own
    // (found from its escape outwards: a regex with a leading `[^\s]*` would rescan).
    PERCENT_ESCAPE_RE.lastIndex = 0
    for (let m = PERCENT_ESCAPE_RE.exec(text); m !== null; m = PERCENT_ESCAPE_RE.exec(text)) {
      let from = m.index
      while (from > 0 && !isTokenEnd(text.charCodeAt(from - 1))) from--
      let to = m.index + 3
      while (to < text.length && !isTokenEnd(text.charCodeAt(to))) to++
      PERCENT_ESCAPE_RE.lastIndex = to
      let v: View | Plain = plainView(text, from, to)
      for (let level = 0; level < MAX_LEVELS; level++) {
        // Another level only where an escape is left (no offset array built for nothing).
        if (level > 0 && !PERCENT_HINT_RE.test(v.text)) break
        const next = decodeStep(v, "percent")
        if (next === null) break
        v = next
        views.push(next)
      }
    }
  }
  if (text.includes("\\")) {
    let v: View | Plain = plainView(text)
    let decoded: View | null = null
    for (let level = 0; level < MAX_LEVELS && v.text.includes("\\"); level++) {
      const next = decodeStep(v, "unescape")
      if (next === null) break
      v = next
      decoded = next
    }
    if (decoded !== null && decoded.text !== text) views.push(decoded)
  }
  if (text.includes(SPLICE)) {
    const spliced = decodeStep(plainView(text), "splice")
    if (spliced !== null) views.push(spliced)
  }
  if (text.includes("&") && ENTITY_HINT_RE.test(text)) {
    const entities = decodeStep(plainView(text), "entity")
    if (entities !== null) views.push(entities)
  }
  return views
}

const ESCAPE_RE = /\\(["'\\/ntr])/g
const ESCAPED: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r" }

/**
 * Fast path for the whole-text views: unescape without keeping positions and see whether the
 * rules find anything there (most escaped text holds no secret).
 */
const worthDecoding = (text: string, redact: (view: string) => string): boolean => {
  let decoded = text
  for (let level = 0; level < MAX_LEVELS; level++) {
    const next = decoded
      .replace(ESCAPE_RE, (_w, c: string) => ESCAPED[c] ?? c)
      .split(SPLICE)
      .join("")
      .replace(
        ENTITY_GLOBAL_RE,
        (whole, decimal?: string, hex?: string, name?: string) => entityChar(decimal, hex, name) || whole
      )
    if (next === decoded) break
    decoded = next
  }
  if (decoded === text) return false
  return redact(decoded) !== decoded
}

const PLACEHOLDER_RE = /<[A-Z_]{2,20}>/y

/**
 * The spans of `orig` that `red` (= `orig` with some spans replaced by `<PLACEHOLDER>`s)
 * removed. After a placeholder, the next few literal characters of `red` anchor where `orig`
 * resumes; when no anchor is found the rest is taken (never under-redact).
 */
export const removedSpans = (orig: string, red: string): Array<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  let i = 0
  let j = 0
  while (j < red.length) {
    if (red.charCodeAt(j) === 60 /* < */) {
      PLACEHOLDER_RE.lastIndex = j
      const ph = PLACEHOLDER_RE.exec(red)
      if (ph !== null && !orig.startsWith(ph[0], i)) {
        j += ph[0].length
        let k = j
        while (k < red.length && k - j < 12 && red.charCodeAt(k) !== 60) k++
        const anchor = red.slice(j, k)
        const b = anchor === "" ? (j >= red.length ? orig.length : -1) : orig.indexOf(anchor, i)
        if (b < 0) {
          spans.push([i, orig.length])
          return spans
        }
        if (b > i) spans.push([i, b])
        i = b
        continue
      }
    }
    if (orig.charCodeAt(i) !== red.charCodeAt(j)) {
      spans.push([i, orig.length])
      return spans
    }
    i++
    j++
  }
  if (i < orig.length) spans.push([i, orig.length])
  return spans
}

/**
 * Runs `redact` on every decoded view of `text` and replaces, in `text`, the original span of
 * everything it removed there by `<SECRET>`. Text with nothing encoded is returned as is.
 */
export const redactDecodedViews = (text: string, redact: (view: string) => string): string => {
  const entities = text.includes("&") && ENTITY_HINT_RE.test(text)
  if (!text.includes("%") && !text.includes("\\") && !text.includes(SPLICE) && !entities) return text
  // Whole-text views (escapes, splices, entities) are built only when the decoded text holds a secret.
  const whole = text.includes("\\") || text.includes(SPLICE) || entities
  if (whole && !PERCENT_HINT_RE.test(text) && !worthDecoding(text, redact)) return text
  const views = viewsOf(text)
  if (views.length === 0) return text
  const spans: Array<readonly [number, number]> = []
  for (const view of views) {
    const red = redact(view.text)
    if (red === view.text) continue
    for (const [a, b] of removedSpans(view.text, red)) {
      if (b > a) spans.push([view.start[a]!, b < view.start.length ? view.start[b]! : view.end])
    }
  }
  if (spans.length === 0) return text
  spans.sort((x, y) => x[0] - y[0])
  let out = ""
  let last = 0
  let open = -1
  for (const [a, b] of spans) {
    if (open >= 0 && a <= last) {
      last = Math.max(last, b)
      continue
    }
    if (open >= 0) out += "<SECRET>"
    out += text.slice(last, a)
    open = a
    last = b
  }
  if (open >= 0) out += "<SECRET>"
  return out + text.slice(last)
}
