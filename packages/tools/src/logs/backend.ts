import { readFile } from "node:fs/promises"
import { type BackendError, InvalidRequest } from "@aiops-harness/core"
import { Context, Data, Effect, Layer } from "effect"
import { z } from "zod"
import { type LogTopic, LogTopicSchema } from "../contracts/requests.js"
import type { LogEntry, LogsRaw } from "../contracts/results.js"
import {
  collectLogFieldNames,
  type LogQuery,
  makeLogFieldResolver,
  matchesLogQuery,
  parseLogQuery
} from "./query.js"

/** One scoped log query a log backend runs. */
export interface LogQueryRequest {
  readonly topic: LogTopic
  /** Lucene-like subset, see `parseLogQuery`. */
  readonly query: string
  readonly service?: string | null
  /** Inclusive window, epoch milliseconds. */
  readonly startTime: number
  readonly endTime: number
  /** Maximum entries returned (`total_matched` still counts every match). */
  readonly limit: number
}

/** Operations of the `LogBackend` service (the `query_logs` backend). */
export interface LogBackendShape {
  /**
   * Runs one scoped query. Zero matches is a success with `entries: []`. A query outside the
   * supported syntax is `InvalidRequest` with `reason: "QUERY_SYNTAX"`, never an empty result.
   */
  readonly query: (request: LogQueryRequest) => Effect.Effect<LogsRaw, BackendError | InvalidRequest>
}

/** Log search as the `query_logs` tool consumes it. */
export class LogBackend extends Context.Service<LogBackend, LogBackendShape>()(
  "@aiops-harness/tools/LogBackend"
) {}

/** The stable `InvalidRequest.reason` of a query outside the supported subset. */
export const QUERY_SYNTAX = "QUERY_SYNTAX"

/** The `source_kind` the embedded NDJSON log backend reports. */
export const EMBEDDED_NDJSON_SOURCE_KIND = "embedded_ndjson"

/** Loading NDJSON failed: unreadable file, or a line that is not a valid log entry. */
export class LogSourceError extends Data.TaggedError("LogSourceError")<{
  readonly reason: "READ_FAILED" | "INVALID_LINE" | "MISSING_TOPIC"
  readonly source: string
  /** 1-based line number for `INVALID_LINE` / `MISSING_TOPIC`. */
  readonly line?: number
  readonly cause?: unknown
}> {}

/** One NDJSON source: `topic` applies to lines that carry none. */
export interface NdjsonSource {
  /** Name for error messages (file path or a label). */
  readonly name: string
  readonly ndjson: string
  readonly topic?: LogTopic
}

/** An NDJSON log file to load, with the topic of its lines when they carry none. */
export interface NdjsonFile {
  readonly path: string
  readonly topic?: LogTopic
}

/** Options of the embedded log backend. */
export interface EmbeddedLogOptions {
  /** `"fail"` (default): a malformed line fails the load. `"skip"`: it is dropped. */
  readonly onInvalidLine?: "fail" | "skip"
}

/** A loaded entry: wire fields plus every other field flattened for matching. */
interface StoredEntry {
  readonly at: number
  readonly topic: LogTopic
  readonly entry: LogEntry
  readonly record: { readonly [key: string]: unknown }
}

const LineSchema = z
  .object({
    timestamp: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "not a timestamp"),
    level: z.string(),
    service: z.string(),
    message: z.string(),
    topic: LogTopicSchema.optional()
  })
  .catchall(z.json())

const CORE_FIELDS = new Set(["timestamp", "level", "service", "message", "topic"])

const loadSource = (
  source: NdjsonSource,
  options: EmbeddedLogOptions
): Effect.Effect<ReadonlyArray<StoredEntry>, LogSourceError> =>
  Effect.suspend(() => {
    const out: StoredEntry[] = []
    const lines = source.ndjson.split(/\r?\n/)
    for (let n = 0; n < lines.length; n++) {
      const text = lines[n]!.trim()
      if (text === "") continue
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (cause) {
        if (options.onInvalidLine === "skip") continue
        return Effect.fail(
          new LogSourceError({ reason: "INVALID_LINE", source: source.name, line: n + 1, cause })
        )
      }
      const parsed = LineSchema.safeParse(json)
      if (!parsed.success) {
        if (options.onInvalidLine === "skip") continue
        return Effect.fail(
          new LogSourceError({
            reason: "INVALID_LINE",
            source: source.name,
            line: n + 1,
            cause: parsed.error.issues
          })
        )
      }
      const line = parsed.data
      const topic = line.topic ?? source.topic
      if (!topic) {
        return Effect.fail(new LogSourceError({ reason: "MISSING_TOPIC", source: source.name, line: n + 1 }))
      }
      const at = Date.parse(line.timestamp)
      const fields: NonNullable<LogEntry["fields"]> = {}
      for (const [k, v] of Object.entries(line)) if (!CORE_FIELDS.has(k)) fields[k] = v
      const entry: LogEntry = {
        timestamp: new Date(at).toISOString(),
        level: line.level,
        service: line.service,
        message: line.message,
        ...(Object.keys(fields).length > 0 ? { fields } : {})
      }
      out.push({ at, topic, entry, record: { ...fields, ...entry, topic } })
    }
    return Effect.succeed(out)
  })

/**
 * Evenly spaced, deterministic sample of `limit` items that always keeps the first and the
 * last (so onset and tail of an incident both stay visible).
 */
export const sampleEvenly = <A>(items: ReadonlyArray<A>, limit: number): ReadonlyArray<A> => {
  if (limit <= 0) return []
  if (items.length <= limit) return items
  if (limit === 1) return [items[items.length - 1]!]
  const step = (items.length - 1) / (limit - 1)
  return Array.from({ length: limit }, (_, k) => items[Math.round(k * step)]!)
}

const syntaxError = (code: string, position: number) =>
  new InvalidRequest({
    toolName: "query_logs",
    reason: QUERY_SYNTAX,
    issues: [`query: ${code} at character ${position}`]
  })

const invalid = (issue: string) =>
  new InvalidRequest({ toolName: "query_logs", reason: "INVALID_SCOPE", issues: [issue] })

/**
 * A window may start this much before the oldest log without a retention note (sparse sources
 * and a clock that moved on since loading would otherwise flag every window).
 */
const RETENTION_SLACK_MS = 5 * 60_000

/** A log backend over already loaded entries (see {@link EmbeddedLogBackend}). */
export const makeEmbeddedLogBackend = (entries: ReadonlyArray<StoredEntry>): LogBackendShape => {
  const sorted = [...entries].sort((a, b) => a.at - b.at)
  const oldest = sorted[0]?.at ?? null
  // Fields a query may name: the wire fields and every field some loaded entry has.
  const known = new Set<string>()
  for (const e of entries) if (e.entry.fields) collectLogFieldNames(e.entry.fields, known)
  const resolveField = makeLogFieldResolver(known)
  return {
    query: (request) =>
      Effect.gen(function* () {
        if (!Number.isFinite(request.startTime) || !Number.isFinite(request.endTime)) {
          return yield* invalid("window: start and end must be finite epoch milliseconds")
        }
        if (request.startTime > request.endTime) return yield* invalid("window: start is after end")
        if (!Number.isSafeInteger(request.limit) || request.limit < 0) {
          return yield* invalid("limit: must be a non-negative integer")
        }
        const query: LogQuery = yield* parseLogQuery(request.query, { resolveField }).pipe(
          Effect.mapError((e) => syntaxError(e.code, e.position))
        )
        const service = request.service?.trim() ? request.service.trim() : null
        const wanted = service?.toLowerCase() ?? null
        const matched = sorted.filter(
          (e) =>
            e.topic === request.topic &&
            e.at >= request.startTime &&
            e.at <= request.endTime &&
            (wanted === null || e.entry.service.toLowerCase() === wanted) &&
            matchesLogQuery(query, e.record)
        )
        const raw: LogsRaw = {
          source_kind: EMBEDDED_NDJSON_SOURCE_KIND,
          scope: {
            topic: request.topic,
            query: request.query.trim(),
            service,
            start_time: new Date(request.startTime).toISOString(),
            end_time: new Date(request.endTime).toISOString(),
            // the oldest log held (retention): a window starting earlier was partly unsearchable
            ...(oldest !== null && oldest - request.startTime > RETENTION_SLACK_MS
              ? { available_from: new Date(oldest).toISOString() }
              : {})
          },
          entries: sampleEvenly(matched, request.limit).map((e) => e.entry),
          total_matched: matched.length
        }
        return raw
      })
  }
}

const readSource = (file: NdjsonFile): Effect.Effect<NdjsonSource, LogSourceError> =>
  Effect.tryPromise({
    try: async () => ({
      name: file.path,
      ndjson: await readFile(file.path, "utf8"),
      ...(file.topic ? { topic: file.topic } : {})
    }),
    catch: (cause) => new LogSourceError({ reason: "READ_FAILED", source: file.path, cause })
  })

/**
 * Embedded log backend over NDJSON: each line `{ timestamp, level, service, message, topic?,
 * ...fields }`. Entries are matched by topic, window, service and query, returned in time
 * order, evenly sampled down to `limit`; `source_kind` is `embedded_ndjson`.
 */
export const EmbeddedLogBackend = {
  /** Makes the backend from NDJSON text sources. */
  fromNdjson: (
    sources: ReadonlyArray<NdjsonSource>,
    options: EmbeddedLogOptions = {}
  ): Effect.Effect<LogBackendShape, LogSourceError> =>
    Effect.map(
      Effect.forEach(sources, (s) => loadSource(s, options)),
      (loaded) => makeEmbeddedLogBackend(loaded.flat())
    ),
  /** Makes the backend from NDJSON files. */
  fromFiles: (
    files: ReadonlyArray<NdjsonFile>,
    options: EmbeddedLogOptions = {}
  ): Effect.Effect<LogBackendShape, LogSourceError> =>
    Effect.flatMap(Effect.forEach(files, readSource), (sources) =>
      EmbeddedLogBackend.fromNdjson(sources, options)
    ),
  /** The backend from NDJSON text sources as the `LogBackend` service. */
  layerFromNdjson: (sources: ReadonlyArray<NdjsonSource>, options?: EmbeddedLogOptions) =>
    Layer.effect(LogBackend, EmbeddedLogBackend.fromNdjson(sources, options)),
  /** The backend from NDJSON files as the `LogBackend` service. */
  layerFromFiles: (files: ReadonlyArray<NdjsonFile>, options?: EmbeddedLogOptions) =>
    Layer.effect(LogBackend, EmbeddedLogBackend.fromFiles(files, options))
}
