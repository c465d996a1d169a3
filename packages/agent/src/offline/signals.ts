/**
 * Evidence reading for the offline model: log patterns and their severity, salient terms of a
 * log template, and matching a log signature to the runbook sections that describe it. Pure
 * functions over agent observations; nothing here knows a particular incident or runbook.
 */
import type { JsonObject } from "@aiops-harness/core"
import { clip, isObject, type Seen, str } from "./conversation.js"

/** One log pattern of a `query_logs` observation, with the call that returned it. */
export interface PatternHit {
  readonly toolCallId: string
  readonly topic: string
  readonly queriedService: string | null
  readonly patternId: string
  readonly level: string
  readonly service: string
  readonly template: string
  readonly count: number
  readonly firstSeen: string
  readonly lastSeen: string
  /** Position in its observation (the projector's order), the last tie-break. */
  readonly index: number
}

/** One knowledge evidence block, with the call that returned it. */
export interface DocHit {
  readonly toolCallId: string
  readonly documentId: string
  /** The runbook: `document_id` up to `#`. */
  readonly runbook: string
  readonly title: string
  readonly breadcrumb: string
  readonly excerpt: string
  readonly relevance: string
}

const ready = (o: JsonObject, tool: string) =>
  o.tool === tool &&
  o.status === "READY" &&
  o.evidence_status === "EVIDENCE_FOUND" &&
  str(o.tool_call_id) !== null

export const scopeOf = (o: JsonObject): JsonObject => (isObject(o.scope) ? o.scope : {})

/** Patterns of every READY, EVIDENCE_FOUND `query_logs` observation, in observation order. */
export const logPatterns = (observations: ReadonlyArray<JsonObject>): PatternHit[] =>
  observations
    .filter((o) => ready(o, "query_logs"))
    .flatMap((o) => {
      const scope = scopeOf(o)
      const patterns = Array.isArray(o.patterns) ? o.patterns.filter(isObject) : []
      return patterns.flatMap((p, index): PatternHit[] => {
        const patternId = str(p.pattern_id)
        if (!patternId) return []
        return [
          {
            toolCallId: str(o.tool_call_id)!,
            topic: str(scope.topic) ?? "",
            queriedService: str(scope.service),
            patternId,
            level: (str(p.level) ?? "").toUpperCase(),
            service: str(p.service) ?? "",
            template: str(p.template) ?? "",
            count: typeof p.count === "number" ? p.count : 0,
            firstSeen: str(p.first_seen) ?? "",
            lastSeen: str(p.last_seen) ?? "",
            index
          }
        ]
      })
    })

/** Knowledge evidence of every READY, EVIDENCE_FOUND `lookup_knowledge`, latest lookup first. */
export const docHits = (observations: ReadonlyArray<JsonObject>): DocHit[] => {
  const out: DocHit[] = []
  const seen = new Set<string>()
  for (const o of [...observations].reverse()) {
    if (!ready(o, "lookup_knowledge") || !Array.isArray(o.evidence)) continue
    for (const e of o.evidence.filter(isObject)) {
      const documentId = str(e.document_id)
      if (!documentId || seen.has(documentId)) continue
      seen.add(documentId)
      out.push({
        toolCallId: str(o.tool_call_id)!,
        documentId,
        runbook: documentId.split("#")[0] ?? documentId,
        title: str(e.title) ?? documentId,
        breadcrumb: str(e.breadcrumb) ?? "",
        excerpt: str(e.excerpt) ?? "",
        relevance: str(e.relevance_level) ?? ""
      })
    }
  }
  return out
}

const SEVERITY: Readonly<Record<string, number>> = { FATAL: 3, CRITICAL: 3, ERROR: 2, WARN: 1, WARNING: 1 }
export const severity = (level: string): number => SEVERITY[level.toUpperCase()] ?? 0

/**
 * The dominant problem pattern: highest severity (ERROR/FATAL over WARN; INFO never), then
 * the most lines, then the earliest first occurrence (of equal counts, the one that started
 * first is the better candidate for the cause), then the projector's order.
 */
export const dominantPattern = (patterns: ReadonlyArray<PatternHit>): PatternHit | null => {
  const problems = patterns.filter((p) => severity(p.level) > 0)
  if (problems.length === 0) return null
  return [...problems].sort(
    (a, b) =>
      severity(b.level) - severity(a.level) ||
      b.count - a.count ||
      (a.firstSeen < b.firstSeen ? -1 : a.firstSeen > b.firstSeen ? 1 : 0) ||
      a.index - b.index
  )[0]!
}

const SERVICE_NAME = /\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|svc|api|gateway|worker|job))\b/g

/** Service names (`<name>-service`, `-svc`, `-api`, `-gateway`, `-worker`, `-job`) in a text, in order. */
export const servicesIn = (text: string): string[] => [
  ...new Set([...text.toLowerCase().matchAll(SERVICE_NAME)].map((m) => m[1]!))
]

/** Another service named by a pattern's template (a call to a dependency), if any. */
export const dependencyOf = (p: PatternHit): string | null =>
  servicesIn(p.template).find((s) => s !== p.service.toLowerCase()) ?? null

const STOP_WORDS = new Set(
  (
    "a an and are as at be been by do does for from has have how i in into is it its of on or the this " +
    "that to was were what when where which while who why will with after before during " +
    // generic log fields: their values are redacted or random, their names say nothing
    "pod db host node client ip trace_id span_id request_id user password thread exec nio http https " +
    "get post put patch delete head id ms sec"
  ).split(" ")
)

/** A term is "technical" when it cannot be an ordinary word: CamelCase, snake_case, digits, hyphens. */
const technical = (t: string): boolean => /[a-z][A-Z]|_|-|\d/.test(t) || t.length >= 12

/**
 * Salient terms of a log template, for a knowledge search and for matching: placeholders
 * (`<*>`, `<IP>`, ...) dropped, dotted class names reduced to the class, stop words and
 * generic field names dropped, case-insensitively deduplicated, at most `max`.
 */
export const salientTerms = (template: string, max = 12): string[] => {
  const text = template.replace(/<[A-Z_*]*>|<\*>/g, " ")
  const out: string[] = []
  const seen = new Set<string>()
  for (const m of text.matchAll(/[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z]{2}/g)) {
    let t = m[0]
    if (t.includes("."))
      t =
        t
          .split(".")
          .filter((s) => s.length > 0)
          .at(-1) ?? t
    t = t.replace(/^[-_]+|[-_]+$/g, "")
    const key = t.toLowerCase()
    if (key.length < 3 || STOP_WORDS.has(key) || seen.has(key) || /^\d/.test(key)) continue
    seen.add(key)
    out.push(t)
    if (out.length >= max) break
  }
  return out
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Whether `text` mentions `term` (word start match, so plurals and suffixes count). */
export const mentions = (text: string, term: string): boolean =>
  new RegExp(`(?:^|[^a-z0-9])${escapeRe(term.toLowerCase())}`).test(text.toLowerCase())

/** Weighted share of `terms` that `text` mentions (technical terms weigh double), and the raw count. */
export const overlap = (
  terms: ReadonlyArray<string>,
  text: string
): { readonly score: number; readonly matched: number } => {
  let total = 0
  let got = 0
  let matched = 0
  for (const t of terms) {
    const w = technical(t) ? 2 : 1
    total += w
    if (mentions(text, t)) {
      got += w
      matched++
    }
  }
  return { score: total === 0 ? 0 : got / total, matched }
}

/** Minimum weighted share and distinct terms for "this runbook section describes the signature". */
export const MATCH_MIN_SCORE = 0.34
export const MATCH_MIN_TERMS = 2

export interface RunbookMatch {
  /** The runbook (document id up to `#`) and its title. */
  readonly runbook: string
  readonly title: string
  /** The section that best describes the signature (the one to cite). */
  readonly section: DocHit
  /** The excerpt line of that section that best describes the signature (verbatim). */
  readonly line: string
  readonly score: number
  /** Set when the best section pointed to this runbook by its quoted title. */
  readonly referencedFrom: DocHit | null
}

const docText = (d: DocHit) => `${d.title} ${d.breadcrumb} ${d.excerpt}`

const bestLine = (excerpt: string, terms: ReadonlyArray<string>): string => {
  let best = ""
  let bestScore = -1
  for (const raw of excerpt.split("\n")) {
    const line = raw.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim()
    if (line.length < 8) continue
    const { score } = overlap(terms, line)
    if (score > bestScore) {
      best = line
      bestScore = score
    }
  }
  return best
}

/**
 * The runbook that explains a log signature. Each knowledge section is scored by the weighted
 * share of the signature's salient terms it mentions; the best section wins, unless it names
 * (by its quoted title) another runbook that is also among the hits and mentions the signature
 * too: a triage page that says `Go to "X"` defers to X. `null` when no section describes the
 * signature well enough.
 */
export const matchRunbook = (
  terms: ReadonlyArray<string>,
  docs: ReadonlyArray<DocHit>
): RunbookMatch | null => {
  if (terms.length === 0) return null
  const scored = docs
    .map((d, rank) => ({ d, rank, ...overlap(terms, docText(d)) }))
    .filter((s) => s.score >= MATCH_MIN_SCORE && s.matched >= Math.min(MATCH_MIN_TERMS, terms.length))
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
  const best = scored[0]
  if (!best) return null
  let chosen = best
  let referencedFrom: DocHit | null = null
  const quoted = [...best.d.excerpt.matchAll(/["“]([^"”\n]{3,120})["”]/g)].map((m) =>
    m[1]!.trim().toLowerCase()
  )
  for (const title of quoted) {
    const target = scored.find(
      (s) => s.d.runbook !== best.d.runbook && s.d.title.trim().toLowerCase() === title
    )
    if (target) {
      chosen = target
      referencedFrom = best.d
      break
    }
  }
  return {
    runbook: chosen.d.runbook,
    title: chosen.d.title,
    section: chosen.d,
    line: bestLine(chosen.d.excerpt, terms),
    score: chosen.score,
    referencedFrom
  }
}

const STEPS_HEADING = /mitigat|next[ -]?steps|remediat|resolution|workaround|what to do|\bfix/i

/** The observed section of `runbook` with mitigation / next steps, if one was retrieved. */
export const mitigationSection = (runbook: string, docs: ReadonlyArray<DocHit>): DocHit | null =>
  docs.find((d) => d.runbook === runbook && STEPS_HEADING.test(d.breadcrumb.split(">").at(-1) ?? "")) ??
  docs.find((d) => d.runbook === runbook && STEPS_HEADING.test(d.documentId.split("#")[1] ?? "")) ??
  null

/** List items of an excerpt (continuation lines joined), bounded. */
export const stepsOf = (excerpt: string, max = 4, maxChars = 300): string[] => {
  const items: string[] = []
  for (const raw of excerpt.split("\n")) {
    if (raw.trim() === "") continue
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(raw)
    if (item) items.push(item[1]!.trim())
    else if (items.length > 0 && /^\s/.test(raw)) items[items.length - 1] += ` ${raw.trim()}`
    else items.push(raw.trim())
  }
  return items
    .filter((s) => s.length > 0)
    .slice(0, max)
    .map((s) => clip(s, maxChars))
}

/** Topics (from the tool's schema) a text mentions, in order of first mention. */
export const topicsMentioned = (text: string, topics: ReadonlyArray<string>): string[] =>
  topics
    .map((t) => ({ t, at: text.toLowerCase().indexOf(t.toLowerCase()) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.t)

/** Services a diagnosis question is about: named outright, or a question word that names a service in the runbook hits. */
export const serviceFrom = (question: string, knowledgeText: string): string | null => {
  const explicit = servicesIn(question)[0]
  if (explicit) return explicit
  const known = servicesIn(knowledgeText)
  for (const m of question.toLowerCase().matchAll(/[a-z][a-z0-9]{2,}/g)) {
    const word = m[0]
    if (STOP_WORDS.has(word)) continue
    const stem = word.length > 4 && word.endsWith("s") ? word.slice(0, -1) : word
    const hit = known.find((s) => s === `${stem}-service` || s.startsWith(`${stem}-`))
    if (hit) return hit
  }
  return null
}

/** All knowledge text seen (titles and excerpts), lower-cased. */
export const knowledgeText = (seen: Seen): string =>
  docHits(seen.observations)
    .map((d) => `${d.title} ${d.excerpt}`)
    .join(" ")
    .toLowerCase()
