import type { Seen } from "./conversation.js"
import {
  type DocHit,
  dependencyOf,
  docHits,
  dominantPattern,
  logPatterns,
  MATCH_MIN_SCORE,
  MATCH_MIN_TERMS,
  matchRunbook,
  overlap,
  type PatternHit,
  type RunbookMatch,
  salientTerms,
  severity
} from "./signals.js"

/** What the observations so far say: the reasoning state shared by planning and drafting. */
export interface Analysis {
  readonly patterns: ReadonlyArray<PatternHit>
  readonly docs: ReadonlyArray<DocHit>
  /** The dominant problem pattern of the first application logs that showed any. */
  readonly symptom: PatternHit | null
  /** A dependency the symptom names (`call to order-service timed out`), if any. */
  readonly dependency: string | null
  /** The dependency's own dominant problem pattern, once its logs were read. */
  readonly dependencyPattern: PatternHit | null
  /** The signature to explain: the dependency's pattern when there is one, else the symptom. */
  readonly cause: PatternHit | null
  /** Salient terms of the cause's template. */
  readonly terms: ReadonlyArray<string>
  readonly match: RunbookMatch | null
  /** Problem patterns from other log queries that the matched runbook names as signals. */
  readonly corroborating: ReadonlyArray<PatternHit>
  /**
   * Other services whose own application errors show the same failure (their dominant problem
   * pattern the matched runbook describes), one pattern per service, most lines first.
   */
  readonly affected: ReadonlyArray<PatternHit>
}

const sameSignature = (a: PatternHit, b: PatternHit | null): boolean =>
  b !== null && a.service.toLowerCase() === b.service.toLowerCase() && a.template === b.template

export const APPLICATION_TOPIC = "application"

export const analyze = (seen: Seen): Analysis => {
  const patterns = logPatterns(seen.observations)
  const docs = docHits(seen.observations)
  const app = patterns.filter((p) => p.topic === APPLICATION_TOPIC)
  const firstCall = app.find((p) => severity(p.level) > 0)?.toolCallId
  const symptom = firstCall ? dominantPattern(app.filter((p) => p.toolCallId === firstCall)) : null
  const dependency = symptom ? dependencyOf(symptom) : null
  const dependencyPattern = dependency
    ? dominantPattern(app.filter((p) => p.service.toLowerCase() === dependency))
    : null
  const cause = dependencyPattern ?? symptom
  const terms = cause ? salientTerms(cause.template) : []
  const match = cause ? matchRunbook(terms, docs) : null
  const runbookText = match
    ? docs
        .filter((d) => d.runbook === match.runbook)
        .map((d) => d.excerpt)
        .join("\n")
    : ""
  const used = new Set([symptom?.toolCallId, dependencyPattern?.toolCallId])
  const described = (p: PatternHit): number | null => {
    const o = overlap(salientTerms(p.template), runbookText)
    return o.score >= MATCH_MIN_SCORE && o.matched >= MATCH_MIN_TERMS ? o.score : null
  }
  // The same signature seen again by a broader query is the same evidence, not a second signal.
  const fresh = patterns.filter(
    (p) =>
      !used.has(p.toolCallId) &&
      severity(p.level) > 0 &&
      !sameSignature(p, symptom) &&
      !sameSignature(p, dependencyPattern)
  )
  // Application errors of an all-services query are other services' symptoms (affected), not signals.
  const blastRadius = (p: PatternHit) => p.topic === APPLICATION_TOPIC && p.queriedService === null
  const knownServices = new Set([symptom?.service.toLowerCase(), cause?.service.toLowerCase()])
  const affected: PatternHit[] = []
  if (match) {
    const byService = new Map<string, PatternHit[]>()
    const candidates = patterns.filter(
      (p) => blastRadius(p) && severity(p.level) > 0 && p.toolCallId !== dependencyPattern?.toolCallId
    )
    for (const p of candidates) {
      const service = p.service.toLowerCase()
      if (!knownServices.has(service)) byService.set(service, [...(byService.get(service) ?? []), p])
    }
    for (const own of byService.values()) {
      const dominant = dominantPattern(own)
      if (dominant && described(dominant) !== null) affected.push(dominant)
    }
    affected.sort((x, y) => y.count - x.count || x.index - y.index)
  }
  const corroborating = match
    ? fresh
        .filter((p) => !blastRadius(p))
        .map((p) => ({ p, score: described(p) }))
        .filter((x): x is { p: PatternHit; score: number } => x.score !== null)
        .sort((a, b) => b.score - a.score || b.p.count - a.p.count)
        .map((x) => x.p)
    : []
  return {
    patterns,
    docs,
    symptom,
    dependency,
    dependencyPattern,
    cause,
    terms,
    match,
    corroborating,
    affected
  }
}
