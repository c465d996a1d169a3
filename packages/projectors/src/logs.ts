import type { Json, Projection, Projector } from "@aiops-harness/core"
import { BackendError, ProjectionError } from "@aiops-harness/core"
import { byteBudget, fromResult, normalizeQuery, parseStrict } from "./common.js"
import { boundToBytes, cutText, type ToolProjectionLimits, resolveLimits } from "./limits.js"
import { groupLogPatterns } from "./patterns/index.js"
import { redactSecrets, redactText } from "./redaction/index.js"
import { BackendErrorReportRawSchema, type LogsRequest, LogsResultRawSchema } from "./schemas.js"

export const QUERY_LOGS_TOOL_NAME = "query_logs"
const DEFAULT_LOOKBACK_MINUTES = 60

/** One aggregated log pattern as the agent sees it. */
export interface LogPatternObservation {
  readonly pattern_id: string
  readonly level: string
  readonly service: string
  readonly template: string
  readonly example: string
  readonly count: number
  readonly first_seen: string
  readonly last_seen: string
}

/** One sampled timeline event as the agent sees it. */
export interface LogEventObservation {
  readonly timestamp: string
  readonly level: string
  readonly service: string
  readonly message: string
}

/** Longest `service` an observation carries (after redaction). */
export const MAX_SERVICE_CHARS = 64

/** Log levels an observation may carry (upper case); anything else becomes `UNKNOWN`. */
export const LOG_LEVELS: ReadonlySet<string> = new Set([
  "TRACE",
  "DEBUG",
  "FINEST",
  "FINER",
  "FINE",
  "CONFIG",
  "VERBOSE",
  "INFO",
  "INFORMATION",
  "NOTICE",
  "DEFAULT",
  "WARN",
  "WARNING",
  "ERROR",
  "ERR",
  "SEVERE",
  "FATAL",
  "CRITICAL",
  "CRIT",
  "ALERT",
  "EMERG",
  "EMERGENCY",
  "PANIC"
])

/** A raw level trimmed and upper-cased when it is a known level, else `UNKNOWN`. */
export const normalizeLogLevel = (level: string): string => {
  const upper = level.trim().toUpperCase()
  return LOG_LEVELS.has(upper) ? upper : "UNKNOWN"
}

/**
 * A raw `service` as the agent may see it: trimmed, redacted like a message (pods, hosts, IPs,
 * secrets) and cut to {@link MAX_SERVICE_CHARS}.
 */
export const sanitizeLogService = (service: string): string => sanitizeService(service).service

const sanitizeService = (raw: string): { service: string; cut: boolean } => {
  const redacted = redactText(raw.trim())
  const service = cutText(redacted, MAX_SERVICE_CHARS)
  return { service, cut: service.length < redacted.length }
}

/** FNV-1a (32 bit) as 8 hex digits: a short, stable id. */
const fnv1a = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, "0")
}

/** Stable pattern id: a short hash of `level|service|template`. */
export const logPatternId = (level: string, service: string, template: string): string =>
  `p${fnv1a(`${level}|${service}|${template}`)}`

/**
 * Deterministic timeline sample of `count` positions out of `n` time-ordered entries: the first
 * and the last entry, then the first entry at or after each of `count - 2` evenly spaced instants
 * between them (so the sample spreads over the whole time range, not the head), then evenly
 * spaced positions for slots left free by empty stretches of time. Ascending positions.
 */
export const sampleTimeline = (times: ReadonlyArray<number>, count: number): number[] => {
  const n = times.length
  if (count <= 0 || n === 0) return []
  if (n <= count) return Array.from({ length: n }, (_, i) => i)
  if (count === 1) return [0]
  const chosen = new Set<number>([0, n - 1])
  const t0 = times[0]!
  const span = times[n - 1]! - t0
  let p = 0
  for (let b = 1; b <= count - 2; b++) {
    const instant = t0 + (span * b) / (count - 1)
    while (p < n - 1 && times[p]! < instant) p++
    chosen.add(p)
  }
  for (let k = 1; chosen.size < count && k < count - 1; k++)
    chosen.add(Math.round((k * (n - 1)) / (count - 1)))
  for (let i = 1; chosen.size < count && i < n - 1; i++) chosen.add(i)
  return [...chosen].sort((a, b) => a - b)
}

interface PatternAccumulator {
  readonly level: string
  readonly service: string
  readonly template: string
  /** Entry index of the earliest occurrence (its message is the example). */
  first: number
  last: number
  count: number
}

/**
 * `query_logs` projector: a backend error report fails with `BackendError`; otherwise every
 * message is redacted, every `service` redacted and bounded ({@link sanitizeLogService}), every
 * `level` restricted to {@link LOG_LEVELS} (else `UNKNOWN`), entries are aggregated into patterns by level + service + mined template
 * (count, first/last timestamp, a sanitized example, a stable `pattern_id`), a deterministic
 * timeline sample spans the whole time range, and the actual scope and `source_kind` are
 * recorded. A successful empty result is `NO_EVIDENCE`.
 *
 * Note: the core `Projector` type declares only `ProjectionError`; a `BackendError` for a
 * backend error report travels in the same failure channel (the ToolBoundary maps both).
 */
export const projectLogs = (overrides?: Partial<ToolProjectionLimits>): Projector<LogsRequest, unknown> => {
  const limits = resolveLimits(overrides)
  const project = (request: LogsRequest, rawInput: unknown, maxBytes: number) => {
    if (rawInput !== null && typeof rawInput === "object" && "error" in rawInput) {
      const report = parseStrict(BackendErrorReportRawSchema, rawInput)
      if (report instanceof ProjectionError) return report
      return new BackendError({ toolName: QUERY_LOGS_TOOL_NAME, cause: report.error })
    }
    const raw = parseStrict(LogsResultRawSchema, rawInput)
    if (raw instanceof ProjectionError) return raw
    const entries = raw.entries
    const n = entries.length

    // Time order (stable on ties by position).
    const ms = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const t = Date.parse(entries[i]!.timestamp)
      if (Number.isNaN(t)) {
        return new ProjectionError({
          reason: "UNEXPECTED_SHAPE",
          detail: `entries.${i}.timestamp: invalid_date`
        })
      }
      ms[i] = t
    }
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => ms[a]! - ms[b]! || a - b)

    const levels = new Array<string>(n)
    const services = new Array<string>(n)
    const messages = new Array<string>(n)
    const cache = new Map<string, string>()
    const serviceCache = new Map<string, string>()
    let serviceCut = false
    for (let i = 0; i < n; i++) {
      const entry = entries[i]!
      levels[i] = normalizeLogLevel(entry.level)
      let service = serviceCache.get(entry.service)
      if (service === undefined) {
        const sanitized = sanitizeService(entry.service)
        service = sanitized.service
        if (sanitized.cut) serviceCut = true
        if (serviceCache.size < 4096) serviceCache.set(entry.service, service)
      }
      services[i] = service
      // Repeated messages (health checks, retries) are redacted once per projection.
      const message = entry.message
      let redacted = message.length <= 2048 ? cache.get(message) : undefined
      if (redacted === undefined) {
        redacted = redactText(message)
        if (message.length <= 2048) cache.set(message, redacted)
      }
      messages[i] = redacted
    }
    const grouping = groupLogPatterns(messages)
    const templates = new Map<number, string>()
    for (const pattern of grouping.patterns) templates.set(pattern.id, pattern.template)

    const groups = new Map<string, PatternAccumulator>()
    for (const i of order) {
      const template = templates.get(grouping.patternIds[i] ?? -1) ?? messages[i]!
      const key = `${levels[i]}\u0000${services[i]}\u0000${template}`
      const group = groups.get(key)
      if (group === undefined) {
        groups.set(key, { level: levels[i]!, service: services[i]!, template, first: i, last: i, count: 1 })
      } else {
        group.last = i
        group.count++
      }
    }
    const ranked = [...groups.values()].sort(
      (a, b) =>
        b.count - a.count ||
        ms[a.first]! - ms[b.first]! ||
        a.first - b.first ||
        (a.template < b.template ? -1 : a.template > b.template ? 1 : 0)
    )

    let cut = raw.total_matched > n || serviceCut
    if (ranked.length > limits.maxPatterns) cut = true
    const usedIds = new Set<string>()
    const patterns: LogPatternObservation[] = ranked.slice(0, limits.maxPatterns).map((group) => {
      let id = logPatternId(group.level, group.service, group.template)
      if (usedIds.has(id)) {
        let k = 2
        while (usedIds.has(`${id}-${k}`)) k++
        id = `${id}-${k}`
      }
      usedIds.add(id)
      const template = cutText(group.template, limits.maxMessageChars)
      const example = cutText(messages[group.first]!, limits.maxMessageChars)
      if (template.length < group.template.length || example.length < messages[group.first]!.length)
        cut = true
      return {
        pattern_id: id,
        level: group.level,
        service: group.service,
        template,
        example,
        count: group.count,
        first_seen: entries[group.first]!.timestamp,
        last_seen: entries[group.last]!.timestamp
      }
    })

    const orderedTimes = order.map((i) => ms[i]!)
    const sample = sampleTimeline(orderedTimes, limits.maxEvents)
    if (sample.length < n) cut = true
    const timeline: LogEventObservation[] = sample.map((position) => {
      const i = order[position]!
      const message = cutText(messages[i]!, limits.maxMessageChars)
      if (message.length < messages[i]!.length) cut = true
      return { timestamp: entries[i]!.timestamp, level: levels[i]!, service: services[i]!, message }
    })

    const scope = {
      topic: raw.scope.topic,
      query: redactSecrets(raw.scope.query),
      service: raw.scope.service === null ? null : sanitizeLogService(raw.scope.service),
      start_time: raw.scope.start_time,
      end_time: raw.scope.end_time,
      ...(raw.scope.available_from !== undefined ? { available_from: raw.scope.available_from } : {})
    }
    const build = (counts: ReadonlyArray<number>) => ({
      scope,
      source_kind: raw.source_kind,
      patterns: patterns.slice(0, counts[1]) as unknown as Json,
      timeline: timeline.slice(0, counts[0]) as unknown as Json
    })
    const bounded = boundToBytes(
      [{ items: timeline }, { items: patterns }],
      build,
      byteBudget(limits, maxBytes),
      patterns.length + timeline.length > 0
    )
    if (bounded instanceof ProjectionError) return bounded
    const projection: Projection = {
      evidenceStatus: n > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
      observation: build(bounded.counts),
      truncated: cut || bounded.dropped,
      returnedCount: n,
      scope: {
        topic: request.topic,
        query: normalizeQuery(request.query),
        service: request.service ?? null,
        // a look-back names its length; every search names the window actually searched
        ...(request.start_time !== undefined || request.end_time !== undefined
          ? {}
          : { lookback_minutes: request.lookback_minutes ?? DEFAULT_LOOKBACK_MINUTES }),
        start_time: raw.scope.start_time,
        end_time: raw.scope.end_time,
        // retention: the window starts before the oldest log the backend holds
        ...(raw.scope.available_from !== undefined ? { available_from: raw.scope.available_from } : {})
      }
    }
    return projection
  }
  const projector: Projector<LogsRequest, unknown> = (input) =>
    fromResult<ProjectionError | BackendError>(() => project(input.request, input.raw, input.maxBytes))
  return projector
}
