import { maskedTokens, WILDCARD } from "./normalize.js"

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

export interface PatternGroupingOptions {
  /**
   * A column whose values are all constant-looking words splits a group into sub-templates when it
   * has at most this many distinct values. Default 12.
   */
  readonly maxSplitValues?: number
  /** Tokens beyond this position are ignored for grouping (bounds work on huge lines). Default 256. */
  readonly maxTokens?: number
}

const DEFAULT_MAX_SPLIT_VALUES = 12
const DEFAULT_MAX_TOKENS = 256

/**
 * Word-looking value (a candidate constant): letters with optional inner _ - ' and the . : = of
 * dotted or keyed identifiers (android.intent.action.SCREEN_ON, key=), and a numeric suffix.
 */
const WORDISH_RE = /^[^A-Za-z0-9<]*[A-Za-z][A-Za-z_'.:=-]*(?:<\*>)?[^A-Za-z0-9<]*$/

/** Token id of `<*>`; every distinct masked token gets a small integer id. */
const WILDCARD_ID = 0

interface Vocabulary {
  readonly ids: Map<string, number>
  readonly words: string[]
  /** 1 when the token looks like a constant word. */
  readonly wordish: number[]
}

function intern(vocab: Vocabulary, token: string): number {
  let id = vocab.ids.get(token)
  if (id === undefined) {
    id = vocab.words.length
    vocab.ids.set(token, id)
    vocab.words.push(token)
    vocab.wordish.push(WORDISH_RE.test(token) ? 1 : 0)
  }
  return id
}

/**
 * Group log messages into templates. Deterministic: the same input gives the same output, and
 * pattern ids are numbered in order of first appearance.
 */
export function groupLogPatterns(
  messages: ReadonlyArray<string>,
  options: PatternGroupingOptions = {}
): PatternGrouping {
  const maxSplit = Math.max(1, Math.floor(options.maxSplitValues ?? DEFAULT_MAX_SPLIT_VALUES))
  const maxTokens = Math.max(1, Math.floor(options.maxTokens ?? DEFAULT_MAX_TOKENS))
  const n = messages.length
  const vocab: Vocabulary = { ids: new Map(), words: [], wordish: [] }
  intern(vocab, WILDCARD)
  const tokens: Int32Array[] = new Array(n)
  const byLength = new Map<number, number[]>()
  for (let i = 0; i < n; i++) {
    const masked = maskedTokens(messages[i] ?? "")
    const len = Math.min(masked.length, maxTokens)
    const t = new Int32Array(len)
    for (let p = 0; p < len; p++) t[p] = intern(vocab, masked[p]!)
    tokens[i] = t
    const list = byLength.get(len)
    if (list === undefined) byLength.set(len, [i])
    else list.push(i)
  }

  const clusters: number[][] = []
  for (const [len, members] of byLength) {
    partition(tokens, members, len, maxSplit, vocab.wordish, clusters)
  }

  // Templates; identical templates share one pattern.
  const clusterOf = new Int32Array(n)
  const templates: string[] = []
  for (let c = 0; c < clusters.length; c++) {
    const members = clusters[c]!
    templates.push(templateOf(tokens, members, vocab.words))
    for (const m of members) clusterOf[m] = c
  }

  const idOfTemplate = new Map<string, number>()
  const patternIds: number[] = new Array(n)
  const patterns: { id: number; template: string; count: number }[] = []
  for (let i = 0; i < n; i++) {
    const template = templates[clusterOf[i]!]!
    let id = idOfTemplate.get(template)
    if (id === undefined) {
      id = patterns.length
      idOfTemplate.set(template, id)
      patterns.push({ id, template, count: 0 })
    }
    patterns[id]!.count++
    patternIds[i] = id
  }
  return { patternIds, patterns }
}

function templateOf(tokens: Int32Array[], members: number[], words: string[]): string {
  const first = tokens[members[0]!]!
  const out: string[] = []
  for (let p = 0; p < first.length; p++) {
    const v = first[p]!
    let same = true
    for (let k = 1; k < members.length; k++) {
      if (tokens[members[k]!]![p] !== v) {
        same = false
        break
      }
    }
    out.push(same ? words[v]! : WILDCARD)
  }
  return out.join(" ")
}

/**
 * Brain-style root selection inside one same-length group: every (position, token) pair gets its
 * frequency in the group; for each line, the frequency shared by the most of its constant-looking
 * tokens (ties: the higher one) marks its template's own words, and lines with the same such words
 * form an initial group. Each initial group is then split further on word-valued columns.
 */
function partition(
  tokens: Int32Array[],
  members: number[],
  len: number,
  maxSplit: number,
  wordish: number[],
  out: number[][]
): void {
  if (members.length <= 1 || len === 0) {
    out.push(members)
    return
  }
  // Key (token id, position) -> frequency. len <= maxTokens, so id * stride + p is unique.
  const stride = len
  const freq = new Map<number, number>()
  for (const m of members) {
    const t = tokens[m]!
    for (let p = 0; p < len; p++) {
      const k = t[p]! * stride + p
      freq.set(k, (freq.get(k) ?? 0) + 1)
    }
  }
  const initial = new Map<string, number[]>()
  const lineFreq = new Int32Array(len)
  const counts = new Map<number, number>()
  for (const m of members) {
    const t = tokens[m]!
    counts.clear()
    for (let p = 0; p < len; p++) {
      const v = t[p]!
      if (v === WILDCARD_ID) {
        lineFreq[p] = -1
        continue
      }
      const f = freq.get(v * stride + p)!
      lineFreq[p] = f
      counts.set(f, (counts.get(f) ?? 0) + 1)
    }
    let bestF = -1
    let bestN = 0
    for (const [f, c] of counts) {
      if (c > bestN || (c === bestN && f > bestF)) {
        bestF = f
        bestN = c
      }
    }
    let key = ""
    for (let p = 0; p < len; p++) {
      if (lineFreq[p] === bestF) key += p + ":" + t[p] + ","
    }
    const list = initial.get(key)
    if (list === undefined) initial.set(key, [m])
    else list.push(m)
  }
  for (const group of initial.values()) splitColumns(tokens, group, len, maxSplit, wordish, out)
}

/**
 * Recursive column splitting: find the column with the fewest distinct values (more than one) whose
 * values all look like constant words, and split on it; columns with many distinct values or
 * non-word values stay variables.
 */
function splitColumns(
  tokens: Int32Array[],
  members: number[],
  len: number,
  maxSplit: number,
  wordish: number[],
  out: number[][]
): void {
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
          if (seen.length >= maxSplit || wordish[v] !== 1) {
            ok = false
            break
          }
          seen.push(v)
        }
      }
      if (!ok || seen.length <= 1) continue
      // A column of 3+ values most of which occur in a single line is a variable (user names,
      // hosts), not a choice between constant sub-templates: do not split on it.
      if (seen.length >= 3 && mostlyUnique(tokens, group, p, seen.length)) continue
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

/** True when more than half of a column's distinct values occur in exactly one line of the group. */
function mostlyUnique(tokens: Int32Array[], group: number[], col: number, distinct: number): boolean {
  const counts = new Map<number, number>()
  for (const m of group) {
    const v = tokens[m]![col]!
    counts.set(v, (counts.get(v) ?? 0) + 1)
  }
  let once = 0
  for (const c of counts.values()) if (c === 1) once++
  return once * 2 > distinct
}
