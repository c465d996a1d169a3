import { Data, Effect } from "effect"

/**
 * A parsed log query (Lucene-like subset). Free text (`field === null`) matches the message;
 * `message:` matches a substring; other fields match the whole value, case-insensitively.
 */
export type LogQuery =
  | { readonly kind: "all" }
  | { readonly kind: "and"; readonly clauses: ReadonlyArray<LogQuery> }
  | { readonly kind: "or"; readonly clauses: ReadonlyArray<LogQuery> }
  | { readonly kind: "not"; readonly clause: LogQuery }
  | {
      readonly kind: "term"
      readonly field: string | null
      /** Lower-cased value, escapes resolved; `*` / `?` kept as wildcards when `wildcard`. */
      readonly value: string
      readonly wildcard: boolean
      readonly phrase: boolean
    }
  | { readonly kind: "exists"; readonly field: string }
  | {
      readonly kind: "compare"
      readonly field: string
      readonly op: ">" | ">=" | "<" | "<="
      readonly value: number
    }

/** Stable codes of {@link LogQuerySyntaxError}. */
export type LogQuerySyntaxCode =
  | "EMPTY_QUERY"
  | "UNBALANCED_PARENS"
  | "DANGLING_OPERATOR"
  | "UNTERMINATED_QUOTE"
  | "UNSUPPORTED_OPERATOR"
  | "UNSUPPORTED_RANGE"
  | "INVALID_COMPARISON"
  | "INVALID_FIELD"
  | "EMPTY_FIELD_VALUE"
  | "EMPTY_GROUP"
  | "TRAILING_ESCAPE"
  | "TOO_COMPLEX"

/** The query is outside the supported subset. `position` is a 0-based character offset. */
export class LogQuerySyntaxError extends Data.TaggedError("LogQuerySyntaxError")<{
  readonly code: LogQuerySyntaxCode
  readonly position: number
}> {
  override get message() {
    return `${this.code} at ${this.position}`
  }
}

const MAX_DEPTH = 16
const MAX_TERMS = 64
const FIELD_NAME = /^[A-Za-z_@][A-Za-z0-9_.@-]*$/
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)$/
/** Lucene syntax outside this subset: fuzzy/proximity, boost, regex, ranges. */
const UNSUPPORTED: Readonly<Record<string, LogQuerySyntaxCode>> = {
  "~": "UNSUPPORTED_OPERATOR",
  "^": "UNSUPPORTED_OPERATOR",
  "/": "UNSUPPORTED_OPERATOR",
  "[": "UNSUPPORTED_RANGE",
  "]": "UNSUPPORTED_RANGE",
  "{": "UNSUPPORTED_RANGE",
  "}": "UNSUPPORTED_RANGE"
}

type Token =
  | { readonly t: "(" | ")" | "AND" | "OR" | "NOT" | "+"; readonly pos: number }
  | { readonly t: "phrase"; readonly value: string; readonly pos: number }
  /** `field:` directly followed by a phrase or a group. */
  | { readonly t: "field"; readonly name: string; readonly pos: number }
  | {
      readonly t: "word"
      readonly field: string | null
      /** Value with escapes resolved. */
      readonly value: string
      /** True when `value` holds unescaped `*` / `?` (as markers). */
      readonly wild: boolean
      /** True when the value starts with an unescaped `<` / `>` (a comparison). */
      readonly cmp: boolean
      readonly pos: number
    }

class Fail {
  constructor(
    readonly code: LogQuerySyntaxCode,
    readonly position: number
  ) {}
}
const fail = (code: LogQuerySyntaxCode, position: number): never => {
  throw new Fail(code, position)
}

/** Wildcards are kept as `\u0000*` / `\u0000?` markers so escaped `*` stays literal. */
const WILD_STAR = "\u0000*"
const WILD_ONE = "\u0000?"

const tokenize = (input: string): Token[] => {
  const tokens: Token[] = []
  let i = 0
  const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c)
  while (i < input.length) {
    const c = input[i]!
    if (isSpace(c)) {
      i++
      continue
    }
    const start = i
    if (c === "(" || c === ")") {
      tokens.push({ t: c, pos: i++ })
      continue
    }
    if (c === '"') {
      i++
      let value = ""
      for (;;) {
        if (i >= input.length) fail("UNTERMINATED_QUOTE", start)
        const d = input[i]!
        if (d === "\\") {
          if (i + 1 >= input.length) fail("TRAILING_ESCAPE", i)
          value += input[i + 1]
          i += 2
          continue
        }
        if (d === '"') {
          i++
          break
        }
        value += d
        i++
      }
      if (input[i] === "~" || input[i] === "^") fail("UNSUPPORTED_OPERATOR", i)
      tokens.push({ t: "phrase", value, pos: start })
      continue
    }
    if (c === "&" && input[i + 1] === "&") {
      tokens.push({ t: "AND", pos: i })
      i += 2
      continue
    }
    if (c === "|" && input[i + 1] === "|") {
      tokens.push({ t: "OR", pos: i })
      i += 2
      continue
    }
    if (c === "-" || c === "!" || c === "+") {
      const next = input[i + 1]
      if (next === undefined || isSpace(next)) fail("DANGLING_OPERATOR", i)
      tokens.push({ t: c === "+" ? "+" : "NOT", pos: i++ })
      continue
    }
    // A word: up to whitespace, a parenthesis or a quote; `\` escapes the next character.
    let text = ""
    let field: string | null = null
    let wild = false
    let cmp = false
    while (i < input.length) {
      const d = input[i]!
      if (isSpace(d) || d === "(" || d === ")" || d === '"') break
      if (text === "" && (d === "<" || d === ">")) cmp = true
      if (d === "\\") {
        if (i + 1 >= input.length) fail("TRAILING_ESCAPE", i)
        text += input[i + 1]
        i += 2
        continue
      }
      const unsupported = UNSUPPORTED[d]
      if (unsupported) fail(unsupported, i)
      if (d === ":" && field === null) {
        if (!FIELD_NAME.test(text) || cmp) fail("INVALID_FIELD", start)
        field = text
        text = ""
        i++
        continue
      }
      if (d === "*" || d === "?") {
        text += d === "*" ? WILD_STAR : WILD_ONE
        wild = true
        i++
        continue
      }
      text += d
      i++
    }
    if (field !== null && text === "") {
      const next = input[i]
      if (next === '"' || next === "(") {
        tokens.push({ t: "field", name: field, pos: start })
        continue
      }
      fail("EMPTY_FIELD_VALUE", start)
    }
    if (field === null && !wild && (text === "AND" || text === "OR" || text === "NOT")) {
      tokens.push({ t: text, pos: start })
      continue
    }
    tokens.push({ t: "word", field, value: text, wild, cmp, pos: start })
  }
  return tokens
}

const termOf = (field: string | null, raw: string, wild: boolean, cmp: boolean, pos: number): LogQuery => {
  if (cmp) {
    // `>3000` alone, or `f:>30*`, would silently match nothing: a comparison needs a field and a number.
    if (field === null || wild) fail("INVALID_COMPARISON", pos)
    const op = raw.startsWith(">=") ? ">=" : raw.startsWith("<=") ? "<=" : raw.startsWith(">") ? ">" : "<"
    const number = raw.slice(op.length)
    if (!NUMBER.test(number)) fail("INVALID_COMPARISON", pos)
    return { kind: "compare", field: field!, op, value: Number(number) }
  }
  if (raw === WILD_STAR) return field === null ? { kind: "all" } : { kind: "exists", field }
  return { kind: "term", field, value: raw.toLowerCase(), wildcard: wild, phrase: false }
}

/** Maps a field name of the query to the name stored in the entries, or `undefined` when unknown. */
export type LogFieldResolver = (field: string) => string | undefined

/** Options of `parseLogQuery`. */
export interface ParseLogQueryOptions {
  /**
   * Fields the source knows. When given, any other field is `INVALID_FIELD` (a query on a field
   * that no entry has would otherwise be an empty result that reads like a scoped negative).
   */
  readonly resolveField?: LogFieldResolver
}

class Parser {
  private i = 0
  private terms = 0
  constructor(
    private readonly tokens: ReadonlyArray<Token>,
    private readonly length: number,
    private readonly resolveField: LogFieldResolver | undefined
  ) {}

  private field(name: string, pos: number): string {
    if (!this.resolveField) return name
    return this.resolveField(name) ?? fail("INVALID_FIELD", pos)
  }

  private peek(): Token | undefined {
    return this.tokens[this.i]
  }
  private here(): number {
    return this.peek()?.pos ?? this.length
  }

  parse(): LogQuery {
    if (this.tokens.length === 0) fail("EMPTY_QUERY", 0)
    const query = this.or(null, 0)
    const rest = this.peek()
    if (rest) fail(rest.t === ")" ? "UNBALANCED_PARENS" : "DANGLING_OPERATOR", rest.pos)
    return query
  }

  private or(field: string | null, depth: number): LogQuery {
    const clauses = [this.and(field, depth)]
    while (this.peek()?.t === "OR") {
      this.i++
      clauses.push(this.and(field, depth))
    }
    return clauses.length === 1 ? clauses[0]! : { kind: "or", clauses }
  }

  private startsClause(token: Token | undefined): boolean {
    return token !== undefined && token.t !== ")" && token.t !== "AND" && token.t !== "OR"
  }

  private and(field: string | null, depth: number): LogQuery {
    const clauses = [this.unary(field, depth)]
    for (;;) {
      const next = this.peek()
      if (next?.t === "AND") {
        this.i++
        clauses.push(this.unary(field, depth))
      } else if (this.startsClause(next)) {
        clauses.push(this.unary(field, depth))
      } else break
    }
    return clauses.length === 1 ? clauses[0]! : { kind: "and", clauses }
  }

  private unary(field: string | null, depth: number): LogQuery {
    const token = this.peek()
    if (!token || token.t === "AND" || token.t === "OR" || token.t === ")") {
      if (token?.t === ")" && depth === 0) fail("UNBALANCED_PARENS", token.pos)
      return fail("DANGLING_OPERATOR", this.here())
    }
    if (token.t === "NOT") {
      this.i++
      if (!this.startsClause(this.peek())) fail("DANGLING_OPERATOR", token.pos)
      return { kind: "not", clause: this.unary(field, depth) }
    }
    if (token.t === "+") {
      this.i++
      if (!this.startsClause(this.peek())) fail("DANGLING_OPERATOR", token.pos)
      return this.unary(field, depth)
    }
    return this.primary(field, depth)
  }

  private group(field: string | null, depth: number, open: number): LogQuery {
    if (depth + 1 > MAX_DEPTH) fail("TOO_COMPLEX", open)
    this.i++
    if (this.peek()?.t === ")") fail("EMPTY_GROUP", open)
    if (!this.peek()) fail("UNBALANCED_PARENS", open)
    const inner = this.or(field, depth + 1)
    if (this.peek()?.t !== ")") fail("UNBALANCED_PARENS", open)
    this.i++
    return inner
  }

  private count(pos: number) {
    if (++this.terms > MAX_TERMS) fail("TOO_COMPLEX", pos)
  }

  private primary(field: string | null, depth: number): LogQuery {
    const token = this.peek()!
    switch (token.t) {
      case "(":
        return this.group(field, depth, token.pos)
      case "phrase":
        this.i++
        this.count(token.pos)
        return { kind: "term", field, value: token.value.toLowerCase(), wildcard: false, phrase: true }
      case "field": {
        this.i++
        const name = this.field(token.name, token.pos)
        const next = this.peek()
        if (next?.t === "phrase") {
          this.i++
          this.count(next.pos)
          return {
            kind: "term",
            field: name,
            value: next.value.toLowerCase(),
            wildcard: false,
            phrase: true
          }
        }
        if (next?.t === "(") return this.group(name, depth, next.pos)
        return fail("EMPTY_FIELD_VALUE", token.pos)
      }
      case "word":
        this.i++
        this.count(token.pos)
        return termOf(
          token.field === null ? field : this.field(token.field, token.pos),
          token.value,
          token.wild,
          token.cmp,
          token.pos
        )
      default:
        return fail("DANGLING_OPERATOR", token.pos)
    }
  }
}

/** Parses a query of the supported subset, or fails with a stable syntax code. */
export const parseLogQuery = (
  input: string,
  options: ParseLogQueryOptions = {}
): Effect.Effect<LogQuery, LogQuerySyntaxError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(new Parser(tokenize(input), input.length, options.resolveField).parse())
    } catch (e) {
      if (e instanceof Fail)
        return Effect.fail(new LogQuerySyntaxError({ code: e.code, position: e.position }))
      throw e
    }
  })

// ---- Known fields ------------------------------------------------------------------------

/** The fields every log entry has (the wire fields of decision 0002 plus `topic`). */
export const LOG_WIRE_FIELDS: ReadonlyArray<string> = ["timestamp", "level", "service", "message", "topic"]

const MAX_FIELD_DEPTH = 8

/**
 * Adds the queryable names of `fields` to `into`: every key, and `a.b` paths into nested objects
 * (arrays are matched element-wise by their own name, not by index).
 */
export const collectLogFieldNames = (
  fields: { readonly [key: string]: unknown },
  into: Set<string>
): void => {
  const walk = (value: { readonly [key: string]: unknown }, prefix: string, depth: number) => {
    for (const [key, v] of Object.entries(value)) {
      const name = prefix === "" ? key : `${prefix}.${key}`
      into.add(name)
      if (depth < MAX_FIELD_DEPTH && v !== null && typeof v === "object" && !Array.isArray(v)) {
        walk(v as { readonly [key: string]: unknown }, name, depth + 1)
      }
    }
  }
  walk(fields, "", 1)
}

/**
 * A resolver over known field names: the exact name, else the only name equal ignoring case
 * (`Level:ERROR` is `level:ERROR`); unknown or ambiguous names are `undefined`.
 */
export const makeLogFieldResolver = (names: Iterable<string>): LogFieldResolver => {
  const exact = new Set<string>()
  const folded = new Map<string, string | null>()
  for (const name of [...LOG_WIRE_FIELDS, ...names]) {
    exact.add(name)
    const key = name.toLowerCase()
    const seen = folded.get(key)
    folded.set(key, seen === undefined || seen === name ? name : null)
  }
  return (field) => (exact.has(field) ? field : (folded.get(field.toLowerCase()) ?? undefined))
}

// ---- Matching ---------------------------------------------------------------------------

/**
 * Case-insensitive glob match (`*` any run, `?` one character) without regular expressions:
 * linear backtracking over the last star, O(n·m) worst case.
 */
const globMatch = (pattern: string, text: string): boolean => {
  // Decode markers: tokens of literal chars, STAR or ONE.
  const p: Array<string | 0 | 1> = []
  for (let k = 0; k < pattern.length; k++) {
    if (pattern[k] === "\u0000") {
      p.push(pattern[k + 1] === "*" ? 0 : 1)
      k++
    } else p.push(pattern[k]!)
  }
  let pi = 0
  let ti = 0
  let star = -1
  let mark = 0
  while (ti < text.length) {
    const tok = p[pi]
    if (pi < p.length && (tok === 1 || tok === text[ti])) {
      pi++
      ti++
    } else if (pi < p.length && tok === 0) {
      star = pi++
      mark = ti
    } else if (star !== -1) {
      pi = star + 1
      ti = ++mark
    } else return false
  }
  while (pi < p.length && p[pi] === 0) pi++
  return pi === p.length
}

/** A log entry as the matcher sees it: top-level fields plus everything else by name. */
export type LogRecord = { readonly [key: string]: unknown }

const lookup = (record: LogRecord, field: string): unknown => {
  if (Object.hasOwn(record, field)) return record[field]
  let value: unknown = record
  for (const part of field.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

const scalars = (value: unknown): ReadonlyArray<string | number | boolean> => {
  if (Array.isArray(value)) return value.flatMap(scalars)
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return [value]
  return []
}

const TEXT_FIELDS = new Set(["message"])

const matchTerm = (q: Extract<LogQuery, { kind: "term" }>, record: LogRecord): boolean => {
  const field = q.field ?? "message"
  const contains = q.field === null || TEXT_FIELDS.has(field)
  return scalars(lookup(record, field)).some((v) => {
    const text = String(v).toLowerCase()
    if (q.wildcard) return globMatch(contains ? `\u0000*${q.value}\u0000*` : q.value, text)
    return contains ? text.includes(q.value) : text === q.value
  })
}

const toNumber = (v: string | number | boolean): number | null => {
  if (typeof v === "number") return v
  if (typeof v === "string" && NUMBER.test(v.trim())) return Number(v)
  return null
}

/** True when `record` satisfies `query`. */
export const matchesLogQuery = (query: LogQuery, record: LogRecord): boolean => {
  switch (query.kind) {
    case "all":
      return true
    case "and":
      return query.clauses.every((c) => matchesLogQuery(c, record))
    case "or":
      return query.clauses.some((c) => matchesLogQuery(c, record))
    case "not":
      return !matchesLogQuery(query.clause, record)
    case "exists": {
      const v = lookup(record, query.field)
      return v !== undefined && v !== null
    }
    case "compare":
      return scalars(lookup(record, query.field)).some((v) => {
        const n = toNumber(v)
        if (n === null) return false
        if (query.op === ">") return n > query.value
        if (query.op === ">=") return n >= query.value
        if (query.op === "<") return n < query.value
        return n <= query.value
      })
    case "term":
      return matchTerm(query, record)
  }
}
