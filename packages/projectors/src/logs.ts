import type { Json, Projection, Projector } from "@aiops-harness/core"
import { BackendError, ProjectionError } from "@aiops-harness/core"
import { byteBudget, fromResult, normalizeQuery, parseStrict } from "./common.js"
import { boundToBytes, cutText, type ToolProjectionLimits, resolveLimits } from "./limits.js"
import { acceptLogs } from "./logs-input.js"
import { redactTemplate } from "./logs-template.js"
import { PatternGrouper } from "./patterns/index.js"
import { redactSecrets, redactText } from "./redaction/index.js"
import { BackendErrorReportRawSchema, type LogsRequest } from "./schemas.js"

/** The tool name whose results the logs projector projects (and EvidenceGuard expects for `pattern` refs). */
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
export const sampleTimeline = (times: ArrayLike<number>, count: number): number[] => {
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

/** Patterns of one (level, service) pair and one mined cluster, then after template redaction. */
interface PatternAccumulator {
  readonly level: string
  readonly service: string
  template: string
  /** Entry index of the earliest occurrence in time order (its message is the example). */
  first: number
  /** Entry index of the latest occurrence in time order. */
  last: number
  count: number
}

/** `a` comes before `b` in time order (ties: entry position). */
const before = (ms: Float64Array, a: number, b: number): boolean =>
  ms[a]! < ms[b]! || (ms[a] === ms[b] && a < b)

const LEVEL_SLOTS = 32

/**
 * `query_logs` projector: a backend error report fails with `BackendError`; otherwise entries are
 * grouped into patterns by level + service + template mined from the raw messages (count,
 * first/last timestamp, a redacted example, a stable `pattern_id`), a deterministic timeline
 * sample spans the whole time range, and the actual scope and `source_kind` are recorded. A
 * successful empty result is `NO_EVIDENCE`.
 *
 * Only what is emitted is redacted: every `service` ({@link sanitizeLogService}, once per distinct
 * value), every example and timeline message (`redactText`, as before) and every template
 * (`redactText`, then no constant that the redacted example does not show; see
 * `redactTemplate`). Every `level` is restricted to {@link LOG_LEVELS} (else `UNKNOWN`). The raw
 * entries are read once, never copied or re-serialized.
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
    const accepted = acceptLogs(
      rawInput,
      (i) =>
        new ProjectionError({ reason: "UNEXPECTED_SHAPE", detail: `entries.${i}.timestamp: invalid_date` })
    )
    if (accepted instanceof ProjectionError) return accepted
    const { raw, millis: ms } = accepted
    const entries = raw.entries
    const n = entries.length

    // One pass: level and service ids (each distinct value sanitized once), mined type, time order.
    const levelIds = new Map<string, number>()
    const levelNames: string[] = []
    const levelSlot = new Map<string, number>()
    const serviceIds = new Map<string, number>()
    const serviceNames: string[] = []
    let serviceCut = false
    const grouper = new PatternGrouper()
    const typeOf = new Int32Array(n)
    const pairOf = new Int32Array(n)
    let sorted = true
    for (let i = 0; i < n; i++) {
      const entry = entries[i]!
      let level = levelIds.get(entry.level)
      if (level === undefined) {
        const name = normalizeLogLevel(entry.level)
        level = levelSlot.get(name)
        if (level === undefined) {
          level = levelNames.length
          levelSlot.set(name, level)
          levelNames.push(name)
        }
        levelIds.set(entry.level, level)
      }
      let service = serviceIds.get(entry.service)
      if (service === undefined) {
        const sanitized = sanitizeService(entry.service)
        if (sanitized.cut) serviceCut = true
        service = serviceNames.length
        serviceNames.push(sanitized.service)
        serviceIds.set(entry.service, service)
      }
      pairOf[i] = service * LEVEL_SLOTS + level
      typeOf[i] = grouper.add(entry.message)
      if (i > 0 && ms[i]! < ms[i - 1]!) sorted = false
    }
    // Time order (stable on ties by position): the identity when the backend sent it sorted.
    const order: ArrayLike<number> = sorted
      ? { length: n }
      : Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => ms[a]! - ms[b]! || a - b)
    const at = (k: number): number => (sorted ? k : order[k]!)

    const { clusterOfType, templates } = grouper.finish()
    const clusterCount = templates.length
    const byCluster = new Map<number, PatternAccumulator>()
    for (let k = 0; k < n; k++) {
      const i = at(k)
      const key = pairOf[i]! * clusterCount + clusterOfType[typeOf[i]!]!
      const group = byCluster.get(key)
      if (group === undefined) {
        const pair = pairOf[i]!
        byCluster.set(key, {
          level: levelNames[pair % LEVEL_SLOTS]!,
          service: serviceNames[Math.floor(pair / LEVEL_SLOTS)]!,
          template: templates[clusterOfType[typeOf[i]!]!]!,
          first: i,
          last: i,
          count: 1
        })
      } else {
        group.last = i
        group.count++
      }
    }

    // Clusters whose templates redact alike are one pattern (hosts, pods, ... became placeholders).
    const redactedTemplates = new Map<string, string>()
    const groups = new Map<string, PatternAccumulator>()
    for (const group of byCluster.values()) {
      let redacted = redactedTemplates.get(group.template)
      if (redacted === undefined) {
        redacted = redactText(group.template)
        redactedTemplates.set(group.template, redacted)
      }
      const key = `${group.level}\u0000${group.service}\u0000${redacted}`
      const merged = groups.get(key)
      if (merged === undefined) groups.set(key, { ...group })
      else {
        if (before(ms, group.first, merged.first)) {
          merged.first = group.first
          merged.template = group.template
        }
        if (before(ms, merged.last, group.last)) merged.last = group.last
        merged.count += group.count
      }
    }
    const ranked = [...groups.values()].sort(
      (a, b) =>
        b.count - a.count ||
        ms[a.first]! - ms[b.first]! ||
        a.first - b.first ||
        (a.template < b.template ? -1 : a.template > b.template ? 1 : 0)
    )

    const redactedMessages = new Map<number, string>()
    const messageOf = (i: number): string => {
      let text = redactedMessages.get(i)
      if (text === undefined) {
        text = redactText(entries[i]!.message)
        redactedMessages.set(i, text)
      }
      return text
    }

    let cut = raw.total_matched > n || serviceCut
    if (ranked.length > limits.maxPatterns) cut = true
    const usedIds = new Set<string>()
    const patterns: LogPatternObservation[] = ranked.slice(0, limits.maxPatterns).map((group) => {
      const exampleFull = messageOf(group.first)
      const templateFull = redactTemplate(group.template, exampleFull)
      let id = logPatternId(group.level, group.service, templateFull)
      if (usedIds.has(id)) {
        let k = 2
        while (usedIds.has(`${id}-${k}`)) k++
        id = `${id}-${k}`
      }
      usedIds.add(id)
      const template = cutText(templateFull, limits.maxMessageChars)
      const example = cutText(exampleFull, limits.maxMessageChars)
      if (template.length < templateFull.length || example.length < exampleFull.length) cut = true
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

    const orderedTimes = sorted ? ms : Float64Array.from({ length: n }, (_, k) => ms[at(k)]!)
    const sample = sampleTimeline(orderedTimes, limits.maxEvents)
    if (sample.length < n) cut = true
    const timeline: LogEventObservation[] = sample.map((position) => {
      const i = at(position)
      const full = messageOf(i)
      const message = cutText(full, limits.maxMessageChars)
      if (message.length < full.length) cut = true
      const pair = pairOf[i]!
      return {
        timestamp: entries[i]!.timestamp,
        level: levelNames[pair % LEVEL_SLOTS]!,
        service: serviceNames[Math.floor(pair / LEVEL_SLOTS)]!,
        message
      }
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
