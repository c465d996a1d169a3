import {
  BRACKET_WILDCARD,
  BRACKETED_WILDCARD,
  type DateTokenView,
  dateWordMask,
  isBareVariable,
  maskDateWords,
  maskDigitToken,
  maskToken,
  OPEN_WILDCARD,
  PAREN_WILDCARD,
  PAREN_WILDCARD_COMMA,
  SPACE_RE,
  UNIT_TRAIL_RE,
  UNITS,
  WILDCARD
} from "./normalize.js"
import {
  DIRECT,
  lineSignature,
  MASKED,
  newTokenShapes,
  PLAIN,
  SignatureTable,
  tokenShapes
} from "./signature.js"

/** One mined template. `template` shows variable positions as `<*>`. */
export interface LogPattern {
  readonly id: number
  readonly template: string
  readonly count: number
}

/** Result of {@link groupLogPatterns}: `patternIds[i]` is the pattern id of `messages[i]`. */
export interface PatternGrouping {
  readonly patternIds: ReadonlyArray<number>
  readonly patterns: ReadonlyArray<LogPattern>
}

/** Options of {@link groupLogPatterns} (one configuration for every system; defaults are the tested ones). */
export interface PatternGroupingOptions {
  /**
   * A column whose values are all constant-looking words splits a group into sub-templates when it
   * has at most this many distinct values. Default 8: the smallest value at which no development
   * file loses accuracy (a larger one only splits more variable words into templates).
   */
  readonly maxSplitValues?: number
  /** Tokens beyond this position are ignored for grouping (bounds work on huge lines). Default 256. */
  readonly maxTokens?: number
}

const DEFAULT_MAX_SPLIT_VALUES = 8
const DEFAULT_MAX_TOKENS = 256

/**
 * Word-looking value (a candidate constant): letters with optional inner _ - ' and the . : = of
 * dotted or keyed identifiers (android.intent.action.SCREEN_ON, key=), the brackets of a call or a
 * flag (pam_unix(cron:session):, WWEN[enable]), and a numeric suffix.
 */
const WORDISH_RE = /^[^A-Za-z0-9<]*[A-Za-z][A-Za-z_'.:=()[\]-]*(?:<\*>)?[^A-Za-z0-9<]*$/

/** Token id of `<*>`; every distinct masked token gets a small integer id. */
const WILDCARD_ID = 0

interface Vocabulary {
  readonly ids: Map<string, number>
  readonly words: string[]
  /**
   * 1 when the token looks like a constant word, 0 when not, -1 until asked (the regex runs only
   * for the tokens column splitting looks at: most one-off tokens never are).
   */
  readonly wordish: number[]
  /** 1 when the token holds a `<*>`. */
  readonly wild: number[]
  /** The id of the token's masked form when it is a date word, -1 when not, -2 until asked. */
  readonly date: number[]
  /**
   * Whether `ids` may lack words added by {@link addPlain} (true until a line takes the regex
   * split, which fills it in: see there).
   */
  partial: boolean
}

function intern(vocab: Vocabulary, token: string): number {
  let id = vocab.ids.get(token)
  if (id === undefined) {
    id = vocab.words.length
    vocab.ids.set(token, id)
    vocab.words.push(token)
    vocab.wordish.push(-1)
    vocab.wild.push(token.includes(WILDCARD) ? 1 : 0)
    vocab.date.push(-2)
  }
  return id
}

/**
 * The id of a digit-free token of a new shape, {@link intern} with no map lookup when none can
 * hold it. Equal texts have equal shapes, so no other digit-free token of the shape path holds it;
 * every other word comes from masking (it holds a `<*>`, or it is a 36+ character token with a
 * hyphen: never of this kind) or from the regex split, which first adds every word to `ids`.
 */
function addPlain(vocab: Vocabulary, token: string): number {
  if (!vocab.partial || token.includes(WILDCARD)) return intern(vocab, token)
  const id = vocab.words.length
  vocab.words.push(token)
  vocab.wordish.push(-1)
  vocab.wild.push(0)
  vocab.date.push(-2)
  return id
}

/** Tokens read past `maxTokens` so that a date cut by the limit is still recognised. */
const DATE_LOOKAHEAD = 8

/** `tokens` cut to its first `max`. */
function firstTokens(tokens: number[], max: number): number[] {
  if (tokens.length > max) tokens.length = max
  return tokens
}

/** {@link maskDateWords} over vocabulary ids (a token's date mask is looked up once). */
function dateView(vocab: Vocabulary): DateTokenView<number> {
  return {
    dateMask: (id) => {
      let d = vocab.date[id]!
      if (d === -2) {
        const masked = vocab.wild[id] === 1 ? undefined : dateWordMask(vocab.words[id]!)
        d = masked === undefined ? -1 : intern(vocab, masked)
        vocab.date[id] = d
      }
      return d < 0 ? undefined : d
    },
    isBareVariable: (id) => vocab.wild[id] === 1 && isBareVariable(vocab.words[id]!),
    isWild: (id) => vocab.wild[id] === 1
  }
}

/** Whether token `id` looks like a constant word (computed once, on first use). */
function isWordish(vocab: Vocabulary, id: number): boolean {
  let w = vocab.wordish[id]!
  if (w < 0) {
    w = WORDISH_RE.test(vocab.words[id]!) ? 1 : 0
    vocab.wordish[id] = w
  }
  return w === 1
}

/**
 * Incremental grouping: {@link PatternGrouper.add} each line (one pass, returns the line's type),
 * then {@link PatternGrouper.finish} once. Lines are deduplicated by a one-pass signature
 * ({@link lineSignature}), then by their masked tokens; the grouping itself runs on those distinct
 * token sequences ("types"), each weighted by its number of lines, so its cost follows the number
 * of distinct shapes, not lines.
 */
export class PatternGrouper {
  private readonly maxSplit: number
  private readonly maxTokens: number
  private readonly vocab: Vocabulary = {
    ids: new Map(),
    words: [],
    wordish: [],
    wild: [],
    date: [],
    partial: true
  }
  private readonly dates: DateTokenView<number> = dateView(this.vocab)
  private readonly typeOfSignature = new SignatureTable(512)
  private readonly tokens: number[][] = []
  private readonly weight: number[] = []
  private readonly special: Int32Array

  constructor(options: PatternGroupingOptions = {}) {
    this.maxSplit = Math.max(1, Math.floor(options.maxSplitValues ?? DEFAULT_MAX_SPLIT_VALUES))
    this.maxTokens = Math.max(1, Math.floor(options.maxTokens ?? DEFAULT_MAX_TOKENS))
    intern(this.vocab, WILDCARD)
    this.special = Int32Array.from(
      [OPEN_WILDCARD, BRACKET_WILDCARD, PAREN_WILDCARD, PAREN_WILDCARD_COMMA, BRACKETED_WILDCARD].map((w) =>
        intern(this.vocab, w)
      )
    )
  }

  /** The vocabulary id of a raw token's masked form (a short digit-free token is its own). */
  private maskedId(raw: string): number {
    if (raw.length < 36) {
      let digit = false
      for (let i = 0; i < raw.length; i++) {
        const c = raw.charCodeAt(i)
        if (c >= 48 && c <= 57) {
          digit = true
          break
        }
      }
      if (!digit) return intern(this.vocab, raw)
    }
    return intern(this.vocab, maskToken(raw))
  }

  /** Token shape -> vocabulary id of the masked token. */
  private readonly idOfShape = new SignatureTable(1024)
  /**
   * Token shape -> 1 when the token is a unit word ("ms", "KB)"), 0 when not. A digit-free token's
   * shape is its text; a token with a digit is never a unit: the shape decides.
   */
  private readonly unitOfShape = new SignatureTable(64)

  /**
   * `maskedTokens(message)` as vocabulary ids, at most `maxTokens` (same rules, see there), each
   * distinct token shape masked once.
   */
  private maskedIds(message: string): number[] {
    const shapes = SHAPES
    if (!tokenShapes(message, shapes)) return this.maskedIdsBySplit(message)
    const special = this.special
    const open = special[0]!
    const bracket = special[1]!
    const paren = special[2]!
    const parenComma = special[3]!
    const bracketed = special[4]!
    const { wild, words } = this.vocab
    const max = this.maxTokens
    // A plain array: small ones are allocated in the heap, where a typed array's buffer is not.
    const out: number[] = []
    for (let k = 0; k < shapes.count; k++) {
      const kind = shapes.kind[k]!
      let id = -1
      if (kind !== DIRECT) id = this.idOfShape.get(shapes.lo[k]!, shapes.hi[k]!)
      if (id < 0) {
        const raw = message.slice(shapes.start[k], shapes.end[k])
        // A digit-free token (no possible UUID) is what maskToken would return.
        id =
          kind === PLAIN
            ? addPlain(this.vocab, raw)
            : intern(this.vocab, kind === MASKED ? maskDigitToken(raw) : maskToken(raw))
        if (kind !== DIRECT) this.idOfShape.set(shapes.lo[k]!, shapes.hi[k]!, id)
      }
      // A unit word is at most 4 letters plus closing punctuation: longer tokens skip the regex.
      if (
        (id === WILDCARD_ID || id === open || id === bracket) &&
        k + 1 < shapes.count &&
        shapes.end[k + 1]! - shapes.start[k + 1]! <= 10
      ) {
        const lo = shapes.lo[k + 1]!
        const hi = shapes.hi[k + 1]!
        const known = this.unitOfShape.get(lo, hi)
        if (known !== 0) {
          const m = UNIT_TRAIL_RE.exec(message.slice(shapes.start[k + 1], shapes.end[k + 1]))
          const unit = m !== null && UNITS.has(m[1]!.toLowerCase())
          if (known < 0) this.unitOfShape.set(lo, hi, unit ? 1 : 0)
          if (unit) {
            id = intern(this.vocab, words[id]! + m![2]!)
            k++
          }
        }
      }
      if (id === paren || id === parenComma || id === bracketed) continue
      if (out.length > 0 && out[out.length - 1] === id && wild[id] === 1) continue
      out.push(id)
      // Only the first maxTokens are kept. A later token changes an earlier one only as the
      // number beside a date word (maskDateWords): a few more are read for that, then cut.
      if (out.length === max + DATE_LOOKAHEAD) break
    }
    return firstTokens(maskDateWords(out, this.dates), max)
  }

  /** {@link maskedIds} for lines with non-ASCII whitespace: the regex split. */
  private maskedIdsBySplit(message: string): number[] {
    const vocab = this.vocab
    if (vocab.partial) {
      // Tokens here are interned by text: every word must be in the map from now on.
      vocab.partial = false
      for (let id = 0; id < vocab.words.length; id++) vocab.ids.set(vocab.words[id]!, id)
    }
    const raw = message.trim()
    const parts = raw === "" ? [] : raw.split(SPACE_RE)
    const special = this.special
    const open = special[0]!
    const bracket = special[1]!
    const paren = special[2]!
    const parenComma = special[3]!
    const bracketed = special[4]!
    const { wild, words } = this.vocab
    const out: number[] = []
    for (let i = 0; i < parts.length; i++) {
      let id = this.maskedId(parts[i]!)
      if (id === WILDCARD_ID || id === open || id === bracket) {
        const next = parts[i + 1]
        if (next !== undefined) {
          const m = UNIT_TRAIL_RE.exec(next)
          if (m !== null && UNITS.has(m[1]!.toLowerCase())) {
            id = intern(this.vocab, words[id]! + m[2]!)
            i++
          }
        }
      }
      if (id === paren || id === parenComma || id === bracketed) continue
      if (out.length > 0 && out[out.length - 1] === id && wild[id] === 1) continue
      out.push(id)
    }
    return firstTokens(maskDateWords(out, this.dates), this.maxTokens)
  }

  /** Number of types so far (type ids are 0 .. typeCount - 1). */
  get typeCount(): number {
    return this.tokens.length
  }

  /** Adds one line; returns its type id. */
  add(message: string): number {
    const signature = SIGNATURE
    lineSignature(message, signature)
    const lo = signature[0]!
    const hi = signature[1]!
    let type = this.typeOfSignature.get(lo, hi)
    if (type < 0) {
      // Two signatures may share masked tokens: they stay two types, which the grouping puts in
      // one cluster anyway (equal sequences have equal frequencies and split on no column).
      const t = this.maskedIds(message)
      type = this.tokens.length
      this.tokens.push(t)
      this.weight.push(0)
      this.typeOfSignature.set(lo, hi, type)
    }
    this.weight[type]!++
    return type
  }

  /** Clusters the types: `clusterOfType[type]` indexes `templates`. */
  finish(): { readonly clusterOfType: Int32Array; readonly templates: ReadonlyArray<string> } {
    const { tokens, weight, vocab, maxSplit } = this
    const byLength = new Map<number, number[]>()
    for (let t = 0; t < tokens.length; t++) {
      const len = tokens[t]!.length
      const list = byLength.get(len)
      if (list === undefined) byLength.set(len, [t])
      else list.push(t)
    }
    const counts = new Int32Array(vocab.words.length)
    const sorted = new Int32Array(this.maxTokens)
    const corpus: Corpus = { tokens, weight, vocab, maxSplit, counts, sorted }
    const clusters: number[][] = []
    for (const [len, members] of byLength) partition(corpus, members, len, clusters)
    const clusterOfType = new Int32Array(tokens.length)
    const templates: string[] = []
    const merged = new Map<string, number>()
    const parts: TemplateParts = { words: [], wild: false }
    for (let c = 0; c < clusters.length; c++) {
      const members = clusters[c]!
      // Final merge: templates equal once runs of `<*>` are one `<*>` are one template (a
      // variable that spans one token on some lines and several on others).
      const key = templateOf(tokens, members, vocab, parts)
      let id = parts.wild ? merged.get(key) : undefined
      if (id === undefined) {
        id = templates.length
        merged.set(key, id)
        templates.push(key)
      }
      for (const m of members) clusterOfType[m] = id
    }
    return { clusterOfType, templates }
  }
}

/**
 * Group log messages into templates. Deterministic: the same input gives the same output, and
 * pattern ids are numbered in order of first appearance. See `PatternGrouper` (internal).
 */
export function groupLogPatterns(
  messages: ReadonlyArray<string>,
  options: PatternGroupingOptions = {}
): PatternGrouping {
  const n = messages.length
  const grouper = new PatternGrouper(options)
  const typeOfLine = new Int32Array(n)
  for (let i = 0; i < n; i++) typeOfLine[i] = grouper.add(messages[i] ?? "")
  const { clusterOfType, templates } = grouper.finish()

  // Pattern ids in order of first appearance; identical templates share one pattern.
  const idOfTemplate = new Map<string, number>()
  const patternOfCluster = new Int32Array(templates.length).fill(-1)
  const patternIds: number[] = new Array(n)
  const patterns: { id: number; template: string; count: number }[] = []
  for (let i = 0; i < n; i++) {
    const c = clusterOfType[typeOfLine[i]!]!
    let id = patternOfCluster[c]!
    if (id < 0) {
      const template = templates[c]!
      id = idOfTemplate.get(template) ?? patterns.length
      if (id === patterns.length) {
        idOfTemplate.set(template, id)
        patterns.push({ id, template, count: 0 })
      }
      patternOfCluster[c] = id
    }
    patterns[id]!.count++
    patternIds[i] = id
  }
  return { patternIds, patterns }
}

/** Distinct token sequences and their line counts. */
interface Corpus {
  readonly tokens: number[][]
  readonly weight: number[]
  readonly vocab: Vocabulary
  readonly maxSplit: number
  /** Scratch counts by token id, all zero between uses. */
  readonly counts: Int32Array
  /** Scratch for one line's frequencies (maxTokens long). */
  readonly sorted: Int32Array
}

/**
 * Module-level scratch (grouping is synchronous: one user at a time, nothing kept across calls):
 * groupers are made per call, and each typed array is an ArrayBuffer whose allocation and external
 * memory accounting cost more than the lines of a small file.
 */
const SIGNATURE = new Int32Array(2)
const SHAPES = newTokenShapes()
let scratchBuffer = new Int32Array(4096)
let scratchBuffer2 = new Int32Array(1024)
/** A second scratch of at least `size` ints (used while {@link scratch} is in use). */
function scratch2(size: number): Int32Array {
  if (scratchBuffer2.length < size) scratchBuffer2 = new Int32Array(Math.max(size, scratchBuffer2.length * 2))
  return scratchBuffer2
}
/** A module-level scratch of at least `size` ints (grouping is synchronous: one user at a time). */
function scratch(size: number): Int32Array {
  if (scratchBuffer.length < size) scratchBuffer = new Int32Array(Math.max(size, scratchBuffer.length * 2))
  return scratchBuffer
}

/** Scratch of {@link templateOf}: the template's words, and whether one holds a `<*>`. */
interface TemplateParts {
  readonly words: string[]
  wild: boolean
}

/**
 * A cluster's template, columns that differ written `<*>` and each run of `<*>` tokens written as
 * one; `parts.wild` tells whether it holds a `<*>` (read from the vocabulary, no string search).
 */
function templateOf(tokens: number[][], members: number[], vocab: Vocabulary, parts: TemplateParts): string {
  const first = tokens[members[0]!]!
  const out = parts.words
  out.length = 0
  let wild = false
  let lastWildcard = false
  for (let p = 0; p < first.length; p++) {
    const v = first[p]!
    let same = true
    for (let k = 1; k < members.length; k++) {
      if (tokens[members[k]!]![p] !== v) {
        same = false
        break
      }
    }
    const wildcard = !same || v === WILDCARD_ID
    if (wildcard && lastWildcard) continue
    lastWildcard = wildcard
    if (wildcard) {
      wild = true
      out.push(WILDCARD)
    } else {
      if (vocab.wild[v] === 1) wild = true
      out.push(vocab.words[v]!)
    }
  }
  parts.wild = wild
  return out.join(" ")
}

/**
 * Brain-style root selection inside one same-length group: every (position, token) pair gets its
 * frequency in the group (in lines); for each line, the frequency shared by the most of its
 * constant-looking tokens (ties: the higher one) marks its template's own words, and lines with
 * the same such words form an initial group. Each initial group is then split further on
 * word-valued columns.
 */
function partition(corpus: Corpus, members: number[], len: number, out: number[][]): void {
  const { tokens, weight, counts } = corpus
  const size = members.length
  if (size <= 1 || len === 0) {
    out.push(members)
    return
  }
  // freqAt[k * len + p]: frequency (in lines) of member k's token at position p. Counted one
  // column at a time in `counts` (indexed by token id, left zeroed), no map, no per-pair key.
  const freqAt = scratch(size * len)
  const rows = members.map((m) => tokens[m]!)
  const weights = members.map((m) => weight[m]!)
  for (let p = 0; p < len; p++) {
    for (let k = 0; k < size; k++) counts[rows[k]![p]!]! += weights[k]!
    for (let k = 0; k < size; k++) freqAt[k * len + p] = counts[rows[k]![p]!]!
    for (let k = 0; k < size; k++) counts[rows[k]![p]!] = 0
  }
  const initial = new Map<number, number[]>()
  const firstOf = new Map<number, number>()
  const collided = new Map<string, number[]>()
  const rootF = scratch2(size)
  const sorted = corpus.sorted
  for (let k = 0; k < size; k++) {
    const m = members[k]!
    const t = tokens[m]!
    const base = k * len
    // The frequency shared by the most non-wildcard tokens of the line (ties: the higher one).
    let n = 0
    for (let p = 0; p < len; p++) if (t[p] !== WILDCARD_ID) sorted[n++] = freqAt[base + p]!
    // Insertion sort in place (a line has few tokens; no view object per line).
    for (let i = 1; i < n; i++) {
      const v = sorted[i]!
      let j = i - 1
      while (j >= 0 && sorted[j]! > v) {
        sorted[j + 1] = sorted[j]!
        j--
      }
      sorted[j + 1] = v
    }
    let bestF = -1
    let bestN = 0
    for (let i = 0; i < n; ) {
      let j = i + 1
      while (j < n && sorted[j] === sorted[i]) j++
      if (j - i >= bestN) {
        bestN = j - i
        bestF = sorted[i]!
      }
      i = j
    }
    // The group key is the set of (position, token) of those words: hashed to a small integer,
    // checked against the group's first line (a collision falls back to a text key).
    let h = 0x811c9dc5
    for (let p = 0; p < len; p++) {
      if (t[p] !== WILDCARD_ID && freqAt[base + p] === bestF)
        h = Math.imul(h ^ (p * 65599 + t[p]!), 0x01000193)
    }
    h &= 0x3fffffff
    const list = initial.get(h)
    if (list === undefined) {
      initial.set(h, [m])
      firstOf.set(h, k)
    } else if (sameRoot(corpus, freqAt, len, firstOf.get(h)!, members, k, bestF, rootF)) list.push(m)
    else {
      const key = rootKey(t, freqAt, base, len, bestF)
      const other = collided.get(key)
      if (other === undefined) collided.set(key, [m])
      else other.push(m)
    }
    rootF[k] = bestF
  }
  for (const group of initial.values()) splitColumns(corpus, group, len, out)
  for (const group of collided.values()) splitColumns(corpus, group, len, out)
}

/** Whether members k and j (of `members`) have the same template words (see partition). */
function sameRoot(
  corpus: Corpus,
  freqAt: Int32Array,
  len: number,
  j: number,
  members: number[],
  k: number,
  bestK: number,
  rootF: Int32Array
): boolean {
  const a = corpus.tokens[members[j]!]!
  const b = corpus.tokens[members[k]!]!
  const bestJ = rootF[j]!
  for (let p = 0; p < len; p++) {
    const inA = a[p] !== WILDCARD_ID && freqAt[j * len + p] === bestJ
    const inB = b[p] !== WILDCARD_ID && freqAt[k * len + p] === bestK
    if (inA !== inB || (inA && a[p] !== b[p])) return false
  }
  return true
}

function rootKey(t: number[], freqAt: Int32Array, base: number, len: number, bestF: number): string {
  let key = ""
  for (let p = 0; p < len; p++) if (t[p] !== WILDCARD_ID && freqAt[base + p] === bestF) key += `${p}:${t[p]},`
  return key
}

/**
 * Recursive column splitting: find the column with the fewest distinct values (more than one) whose
 * values all look like constant words, and split on it; columns with many distinct values or
 * non-word values stay variables.
 */
function splitColumns(corpus: Corpus, members: number[], len: number, out: number[][]): void {
  const { tokens, vocab, maxSplit } = corpus
  const stack: number[][] = [members]
  const seen: number[] = []
  while (stack.length > 0) {
    const group = stack.pop()!
    if (group.length <= 1 || len === 0) {
      out.push(group)
      continue
    }
    let bestCol = -1
    let bestDistinct = Number.POSITIVE_INFINITY
    for (let p = 0; p < len; p++) {
      seen.length = 0
      let ok = true
      for (const m of group) {
        const v = tokens[m]![p]!
        if (!seen.includes(v)) {
          if (seen.length >= maxSplit || !isWordish(vocab, v)) {
            ok = false
            break
          }
          seen.push(v)
        }
      }
      if (!ok || seen.length <= 1) continue
      // A column of 3+ values many of which occur in a single line is a variable (user names,
      // hosts), not a choice between constant sub-templates: do not split on it.
      if (seen.length >= 3 && mostlyUnique(corpus, group, p, seen.length)) continue
      if (seen.length < bestDistinct) {
        bestDistinct = seen.length
        bestCol = p
      }
    }
    if (bestCol < 0) {
      out.push(group)
      continue
    }
    const parts = new Map<number, number[]>()
    for (const m of group) {
      const v = tokens[m]![bestCol]!
      const list = parts.get(v)
      if (list === undefined) parts.set(v, [m])
      else list.push(m)
    }
    // Push in reverse so sub-groups are emitted in first-appearance order.
    const subgroups = [...parts.values()]
    for (let k = subgroups.length - 1; k >= 0; k--) stack.push(subgroups[k]!)
  }
}

/**
 * True when more than a third of a column's distinct values occur in exactly one line of the group:
 * a variable (user, host, file names). A third, not a half: the most variable-friendly share that
 * costs no development file any accuracy.
 */
function mostlyUnique(corpus: Corpus, group: number[], col: number, distinct: number): boolean {
  const counts = new Map<number, number>()
  for (const m of group) {
    const v = corpus.tokens[m]![col]!
    counts.set(v, (counts.get(v) ?? 0) + corpus.weight[m]!)
  }
  let once = 0
  for (const c of counts.values()) if (c === 1) once++
  return once * 3 > distinct
}
