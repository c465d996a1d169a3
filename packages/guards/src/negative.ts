import type { Json, JsonObject } from "@aiops-harness/core"
import { cleanText, inlineText, quoteInline } from "./released-text.js"

/**
 * What a scoped negative claim must name about the NO_EVIDENCE call it cites, derived from
 * the stored record (never from the draft): the log topic, the query terms, the service
 * filter, the time window, and for SQL the datasource or a queried table.
 */
export interface NegativeScope {
  readonly topic: string | null
  /** Words of the query (Lucene field names and AND/OR/NOT dropped); `*`-suffixed ones match as prefixes. */
  readonly queryTerms: ReadonlyArray<string>
  readonly service: string | null
  readonly window: {
    readonly start: string
    readonly end: string
    readonly minutes: ReadonlyArray<number>
  } | null
  /** Datasource and tables of a SQL query: naming any one of them is enough. */
  readonly sqlTargets: ReadonlyArray<string>
}

/** Whether a negative claim's text states its scope, and what it lacks. */
export interface NegativeClaimCheck {
  readonly scoped: boolean
  /** What the text lacks: `absolute wording`, `topic "application"`, `query term "deadlock"`, `service "checkout"`, `window`, `datasource or table`, `no scope`. */
  readonly missing: ReadonlyArray<string>
}

const isObject = (v: Json | undefined): v is JsonObject =>
  v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v)
const str = (v: Json | undefined): string | null => (typeof v === "string" && v.trim() !== "" ? v : null)

/** Lower case, every run of non-letters/digits (including `_`, `-`, `:`) as one space. */
const canon = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()

const LUCENE_OPERATORS = new Set(["and", "or", "not", "to"])

/** Search terms of a log query: field prefixes, punctuation and boolean operators dropped, deduplicated. */
export const queryTermsOf = (query: string): string[] => {
  const terms: string[] = []
  for (const raw of query.split(/\s+/)) {
    // drop a Lucene field prefix (`level:ERROR` -> `ERROR`) and grouping/boolean punctuation
    const token = raw.replace(/^[+\-!(]*[\p{L}_][\p{L}\p{N}_.]*:/u, "").replace(/^[+\-!("']+|[)"']+$/g, "")
    const prefix = token.endsWith("*")
    for (const word of canon(token).split(" ")) {
      if (word === "" || LUCENE_OPERATORS.has(word)) continue
      terms.push(prefix ? `${word}*` : word)
    }
  }
  return [...new Set(terms)]
}

const sqlTablesOf = (sql: string): string[] =>
  [
    ...sql.matchAll(
      /\b(?:from|join)\s+[`"]?([\p{L}_][\p{L}\p{N}_$]*(?:[`"]?\.[`"]?[\p{L}_][\p{L}\p{N}_$]*)?)/giu
    )
  ].map((m) => m[1]!.replace(/[`"]/g, ""))

/** The scope a negative claim citing this NO_EVIDENCE record must name. */
export const negativeScopeOf = (record: {
  readonly request: Json
  readonly agentResult: JsonObject
}): NegativeScope => {
  const request = isObject(record.request) ? record.request : {}
  const result = record.agentResult
  const scope = isObject(result.scope) ? result.scope : {}
  const query = str(scope.query) ?? str(result.query) ?? str(request.query)
  const start = str(scope.start_time)
  const end = str(scope.end_time)
  let window: NegativeScope["window"] = null
  if (start && end) {
    const minutes: number[] = []
    const lookback = request.lookback_minutes ?? scope.lookback_minutes
    if (typeof lookback === "number" && Number.isFinite(lookback)) minutes.push(lookback)
    const span = (Date.parse(end) - Date.parse(start)) / 60_000
    if (Number.isFinite(span) && span > 0) minutes.push(Math.round(span))
    window = { start, end, minutes }
  }
  const sql = str(request.sql)
  const datasource = str(result.datasource) ?? str(request.datasource)
  const sqlTargets =
    sql || datasource ? [...(datasource ? [datasource] : []), ...(sql ? sqlTablesOf(sql) : [])] : []
  return {
    topic: str(scope.topic),
    queryTerms: sql ? [] : query ? queryTermsOf(query) : [],
    service: str(scope.service),
    window,
    sqlTargets
  }
}

/** Wording that turns "nothing matched this search" into "the fault does not exist". */
export const ABSOLUTE_NEGATIVE_WORDING: ReadonlyArray<RegExp> = [
  /\b(?:is|are|was|were|looks?|seems?|appears?|remains?)\s+(?:\w+\s+)?(?:healthy|fine|ok|okay|normal|stable|unaffected|good)\b/,
  /\b(?:healthy|unaffected|nothing\s+(?:is\s+|was\s+)?(?:wrong|abnormal|unusual))\b/,
  /\b(?:no|not|never)\b.*\b(?:faults?|problems?|issues?|errors?|failures?|outages?|incidents?)\b.*\b(?:exists?|existed|occurs?|occurred|occurring|happen(?:s|ed|ing)?)\b/,
  /\b(?:does|did|do|has|have)\s+not\s+(?:exist|existed|occur|occurred|happen|happened)\b/,
  /\bnever\s+(?:exist|existed|occurred|happened)\b/,
  /\bruled?\s+out\b/,
  /\bnot\s+(?:the\s+|a\s+)?(?:root\s+)?cause[ds]?\b/,
  /\b(?:cannot|can't|could\s+not)\s+be\s+(?:the\s+)?(?:root\s+)?cause\b/
]

const MINUTES_PER: Record<string, number> = { m: 1, min: 1, h: 60, hr: 60, d: 1440 }
const unitMinutes = (unit: string): number =>
  MINUTES_PER[
    unit.startsWith("min") ? "min" : unit.startsWith("h") ? "h" : unit.startsWith("d") ? "d" : unit
  ] ?? 0

/** Lookback durations (in minutes) the text states: `last 60 minutes`, `past hour`, `within 2h`, `60-minute window`. */
export const statedLookbacks = (text: string): number[] => {
  const lower = text.toLowerCase()
  const out: number[] = []
  const lookback =
    /\b(?:last|past|previous|preceding|prior|within(?:\s+the)?(?:\s+(?:last|past))?)\s+(?:(\d+(?:\.\d+)?)\s*(minutes?|mins?|m|hours?|hrs?|h|days?|d)\b|(hour|day)\b)/g
  for (const m of lower.matchAll(lookback)) {
    out.push(m[3] ? unitMinutes(m[3]) : Number(m[1]) * unitMinutes(m[2]!))
  }
  for (const m of lower.matchAll(
    /\b(\d+(?:\.\d+)?)[\s-]*(minutes?|mins?|hours?|hrs?|h|days?)[\s-]+(?:window|lookback)\b/g
  )) {
    out.push(Number(m[1]) * unitMinutes(m[2]!))
  }
  return out
}

const hasWord = (text: string, term: string): boolean => {
  if (term.endsWith("*")) return ` ${text}`.includes(` ${term.slice(0, -1)}`)
  return ` ${text} `.includes(` ${term} `)
}

/**
 * Whether a negative claim is a *scoped* negative observation of the NO_EVIDENCE record it
 * cites ("no matching logs in this window/topic/query"), never "the fault does not exist".
 * The text (quoted parts ignored for the wording check) must not use absolute wording
 * ({@link ABSOLUTE_NEGATIVE_WORDING}: "is healthy", "does not exist", "ruled out", "not the cause", ...)
 * and must name, as whole words (case, `_`, `-` and punctuation ignored):
 * - the log topic, when the call had one (`database_slow_query` ~ "database slow query");
 * - every query term (`level:ERROR AND "pool timeout"` -> `error`, `pool`, `timeout`);
 * - the service filter, when there was one;
 * - the window, when the call had one: both `start_time` and `end_time` as stored, or a
 *   lookback equal to the call's (`last 60 minutes`, `past hour`, `within 1h`, `60-minute window`);
 * - for SQL, the datasource or one queried table.
 * A record with none of these is never citable for a negative claim.
 */
export const checkNegativeClaim = (
  rawText: string,
  record: { readonly request: Json; readonly agentResult: JsonObject }
): NegativeClaimCheck => {
  const missing: string[] = []
  // Hidden or look-alike characters must not split a word the checks look for.
  const text = cleanText(rawText)
  const unquoted = text.replace(/"[^"]*"|“[^”]*”|`[^`]*`|'[^']{2,}'/g, " ").toLowerCase()
  if (ABSOLUTE_NEGATIVE_WORDING.some((re) => re.test(unquoted))) missing.push("absolute wording")
  const scope = negativeScopeOf(record)
  const words = canon(text)
  const named =
    scope.topic !== null ||
    scope.queryTerms.length > 0 ||
    scope.service !== null ||
    scope.window !== null ||
    scope.sqlTargets.length > 0
  if (!named) missing.push("no scope")
  if (scope.topic !== null && !hasWord(words, canon(scope.topic))) missing.push(`topic "${scope.topic}"`)
  for (const term of scope.queryTerms) if (!hasWord(words, term)) missing.push(`query term "${term}"`)
  if (scope.service !== null && !hasWord(words, canon(scope.service)))
    missing.push(`service "${scope.service}"`)
  if (scope.window !== null) {
    const { start, end, minutes } = scope.window
    const bothTimes = hasWord(words, canon(start)) && hasWord(words, canon(end))
    const lookback = statedLookbacks(text).some((stated) => minutes.some((m) => Math.abs(m - stated) <= 1))
    if (!bothTimes && !lookback) missing.push("window")
  }
  if (scope.sqlTargets.length > 0 && !scope.sqlTargets.some((t) => hasWord(words, canon(t)))) {
    missing.push("datasource or table")
  }
  return { scoped: missing.length === 0, missing }
}

/**
 * Wording that makes a negative claim say more than "nothing matched in this scope": a cause,
 * an inference, or a second statement. Checked on the unquoted, cleaned, lower-cased text.
 */
export const BEYOND_ABSENCE_WORDING: ReadonlyArray<RegExp> = [
  // a second statement: `;`, `: `, a sentence break, a dash aside, a new line
  /[;!?\n。！？；]|:\s|\.\s+\S|\s[-–—]{1,2}\s|\s\|\s/,
  // cause and inference
  /\bcaus(?:e|es|ed|ing)\b|\bbecause\b|\bdue\s+to\b|\bowing\s+to\b|\bthanks\s+to\b|\bresult(?:s|ed|ing)?\s+(?:of|from|in)\b/,
  /\b(?:culprit|reason|responsible|blame[ds]?|explain(?:s|ed|ing)?|attribut\w*|triggered|trigger(?:s|ing)?|origin(?:ates?|ated)?|stem(?:s|med)?\s+from|led\s+to|leads?\s+to)\b/,
  /\b(?:therefore|thus|hence|consequently|so\s+(?:the|it|this|that|we|there)|which\s+(?:means|shows|indicates|suggests|implies|confirms|proves))\b/,
  /\b(?:indicat|suggest|impl(?:y|ies|ied)|confirm|prov(?:e|es|ed|ing)\b|demonstrat|point(?:s|ed|ing)?\s+to|mean(?:s|ing)?\s+that)/,
  /\b(?:misconfigur\w*|broken|faulty|at\s+fault)\b/,
  /\b(?:problem|issue|fault|failure|outage|incident|error|bug)\s+(?:is|was|lies|comes|came)\b/,
  /,\s*(?:and|but|so|which|while|whereas|yet)\b|\b(?:but|however|although|whereas|instead|rather)\b|\band\s+(?:the|it|this|that|there|so|therefore)\b/,
  // the same in Chinese: cause, because, due to, led to, so, therefore, but, means
  /原因|因为|由于|导致|造成|所以|因此|但是|意味着|说明了|根因/
]

/**
 * Whether a negative claim's text states more than an absence within its scope (a cause, an
 * inference, a second statement). Quoted parts (the query) are ignored; the text is cleaned
 * first (NFKC, no invisible characters), so look-alike or hidden punctuation does not help.
 */
export const negativeClaimBeyondAbsence = (text: string): boolean => {
  const unquoted = cleanText(text)
    .replace(/"[^"]*"|“[^”]*”|`[^`]*`|'[^']{2,}'/g, " ")
    .toLowerCase()
    .trim()
    .replace(/\.+$/, "")
  return BEYOND_ABSENCE_WORDING.some((re) => re.test(unquoted))
}

/**
 * The harness's own wording of a negative claim, from the stored record of the NO_EVIDENCE call
 * it cites (never from the model's text): tool, topic, query, service, window; for SQL the
 * datasource and tables. Released instead of whatever the model wrote.
 */
export const scopedNegativeText = (record: {
  readonly toolName: string
  readonly request: Json
  readonly agentResult: JsonObject
}): string => {
  const scope = negativeScopeOf(record)
  const request = isObject(record.request) ? record.request : {}
  const result = record.agentResult
  const resultScope = isObject(result.scope) ? result.scope : {}
  // The tool name is the stored record's (an authorized tool), never model text.
  const tool = cleanText(record.toolName).slice(0, 64)
  const window = scope.window ? ` between ${scope.window.start} and ${scope.window.end}` : ""
  const service = scope.service ? ` for service ${quoteInline(scope.service, 64)}` : ""
  if (scope.sqlTargets.length > 0) {
    const [datasource, ...tables] =
      (str(result.datasource) ?? str(request.datasource)) ? scope.sqlTargets : ["", ...scope.sqlTargets]
    const on = datasource ? ` on ${quoteInline(datasource, 64)}` : ""
    const from =
      tables.length > 0
        ? ` (tables ${[...new Set(tables)]
            .slice(0, 5)
            .map((t) => quoteInline(t, 64))
            .join(", ")})`
        : ""
    return `The read-only query${on}${from} returned no rows (${tool}).`
  }
  const query = str(resultScope.query) ?? str(result.query) ?? str(request.query)
  const matched = query ? ` matched query ${quoteInline(query, 80)}` : " matched"
  const what = scope.topic ? `${inlineText(scope.topic, 64)} logs` : "results"
  return `No ${what}${matched}${service}${window} (${tool}).`
}
