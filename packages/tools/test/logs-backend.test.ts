import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { LogsRawSchema, type LogsResult } from "../src/contracts/index.js"
import {
  EMBEDDED_NDJSON_SOURCE_KIND,
  EmbeddedLogBackend,
  LogBackend,
  type LogQueryRequest,
  sampleEvenly
} from "../src/logs/index.js"
import { LOGS_NOW, logFixturePath } from "./fixtures/logs.js"

const HOUR = 3_600_000
const backend = () =>
  Effect.runPromise(
    EmbeddedLogBackend.fromFiles([
      { path: logFixturePath("application.ndjson"), topic: "application" },
      { path: logFixturePath("slow-queries.ndjson") }
    ])
  )
const base: LogQueryRequest = {
  topic: "application",
  query: "*",
  service: null,
  startTime: LOGS_NOW - HOUR,
  endTime: LOGS_NOW,
  limit: 100
}
const run = async (request: Partial<LogQueryRequest>): Promise<LogsResult> => {
  const b = await backend()
  const raw = await Effect.runPromise(b.query({ ...base, ...request }))
  expect(LogsRawSchema.safeParse(raw).success).toBe(true)
  if ("error" in raw) throw new Error("unexpected error report")
  return raw
}

describe("EmbeddedLogBackend over NDJSON fixtures", () => {
  it("returns entries of the topic and window in time order, with the scope actually used", async () => {
    const raw = await run({ query: "level:ERROR", service: " checkout " })
    expect(raw.source_kind).toBe(EMBEDDED_NDJSON_SOURCE_KIND)
    expect(raw.scope).toEqual({
      topic: "application",
      query: "level:ERROR",
      service: "checkout",
      start_time: "2025-03-14T09:00:00.000Z",
      end_time: "2025-03-14T10:00:00.000Z"
    })
    expect(raw.total_matched).toBe(4)
    expect(raw.entries.map((e) => e.timestamp)).toEqual([
      "2025-03-14T09:12:40.000Z",
      "2025-03-14T09:14:02.000Z",
      "2025-03-14T09:20:00.000Z",
      "2025-03-14T09:30:00.000Z"
    ])
    expect(raw.entries[0]).toEqual({
      timestamp: "2025-03-14T09:12:40.000Z",
      level: "ERROR",
      service: "checkout",
      message: "PaymentGatewayTimeout: no answer from 10.12.4.77:8443 after 3000 ms",
      fields: { response_time: 3012, status: 500, host: "checkout-7f9c6d5b8-x2kqp" }
    })
  })

  it("applies the window: older entries need a longer lookback", async () => {
    expect((await run({ query: "started" })).total_matched).toBe(0)
    expect((await run({ query: "started", startTime: LOGS_NOW - 3 * HOUR })).total_matched).toBe(1)
    expect((await run({ endTime: LOGS_NOW - 50 * 60_000 })).entries.at(-1)?.timestamp).toBe(
      "2025-03-14T09:05:12.000Z"
    )
  })

  it("says when a window starts before the oldest log it holds (retention), never for a few minutes' slack", async () => {
    const b = await backend()
    const all = await run({ startTime: LOGS_NOW - 24 * HOUR })
    const oldest = all.scope.available_from
    expect(oldest).toBeDefined()
    // nothing is older than the reported horizon
    const every = await Effect.runPromise(b.query({ ...base, topic: "database_slow_query", startTime: 0 }))
    if ("error" in every) throw new Error("unexpected error report")
    expect(every.entries.every((e) => e.timestamp >= oldest!)).toBe(true)
    expect(every.scope.available_from).toBe(oldest)
    // a window starting at (or within five minutes before) the horizon carries no note
    expect((await run({ startTime: Date.parse(oldest!) })).scope.available_from).toBeUndefined()
    expect((await run({ startTime: Date.parse(oldest!) - 4 * 60_000 })).scope.available_from).toBeUndefined()
  })

  it("numeric comparisons, fields and topics from the line", async () => {
    expect((await run({ query: "response_time:>3000" })).total_matched).toBe(4)
    expect((await run({ query: "response_time:>3000 AND NOT status:500" })).total_matched).toBe(1)
    const slow = await run({ topic: "database_slow_query", query: "query_time_ms:>=5000" })
    expect(slow.entries.map((e) => e.fields?.rows_examined)).toEqual([2400000])
    expect((await run({ topic: "system_events", query: "memory" })).total_matched).toBe(1)
    expect((await run({ topic: "system_metrics" })).total_matched).toBe(0)
  })

  it("bounds entries by limit with an even, deterministic sample that keeps first and last", async () => {
    const all = await run({})
    const few = await run({ limit: 3 })
    expect(few.total_matched).toBe(all.total_matched)
    expect(few.entries).toHaveLength(3)
    expect(few.entries[0]).toEqual(all.entries[0])
    expect(few.entries[2]).toEqual(all.entries.at(-1))
    expect(await run({ limit: 3 })).toEqual(few)
    expect(sampleEvenly([1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([1, 5, 9])
    expect(sampleEvenly([1, 2, 3], 1)).toEqual([3])
    expect(sampleEvenly([1, 2, 3], 0)).toEqual([])
  })

  it("a query without matches succeeds with no entries", async () => {
    const raw = await run({ query: 'message:"kernel panic"' })
    expect(raw.entries).toEqual([])
    expect(raw.total_matched).toBe(0)
  })

  it.each([
    ["(level:ERROR", "UNBALANCED_PARENS"],
    ["response_time:>abc", "INVALID_COMPARISON"],
    ["timeout~", "UNSUPPORTED_OPERATOR"],
    // unknown fields and field-less comparisons would otherwise be an empty result
    ["lvel:ERROR", "INVALID_FIELD at character 0"],
    ["x:y:z", "INVALID_FIELD at character 0"],
    ["level:ERROR AND respone_time:>3000", "INVALID_FIELD at character 16"],
    ["nope:(a OR b)", "INVALID_FIELD at character 0"],
    ["pod.name:x", "INVALID_FIELD"],
    [">3000", "INVALID_COMPARISON at character 0"],
    ["level:ERROR AND >=5", "INVALID_COMPARISON at character 16"]
  ])("invalid syntax %j is InvalidRequest QUERY_SYNTAX (%s)", async (query, code) => {
    const b = await backend()
    const error = await Effect.runPromise(Effect.flip(b.query({ ...base, query })))
    expect(error).toMatchObject({ _tag: "InvalidRequest", toolName: "query_logs", reason: "QUERY_SYNTAX" })
    expect(error._tag === "InvalidRequest" && error.issues[0]).toContain(code)
  })

  it("knows the fields its entries have: other topics' fields, nested paths, any case", async () => {
    // query_time_ms only occurs in slow-query lines, but it is a field of this source.
    expect((await run({ query: "query_time_ms:>1" })).total_matched).toBe(0)
    expect((await run({ topic: "system_events", query: "node:*" })).total_matched).toBe(1)
    const errors = (await run({ query: "level:ERROR" })).total_matched
    expect(errors).toBeGreaterThan(0)
    expect((await run({ query: "Level:ERROR" })).total_matched).toBe(errors)
    expect((await run({ query: "topic:application level:error" })).total_matched).toBe(errors)
    expect((await run({ query: "Response_Time:>3000" })).total_matched).toBe(4)
    // `\>` is a literal character in free text, not a comparison.
    expect((await run({ query: "\\>3000" })).total_matched).toBe(0)
    const nested = await Effect.runPromise(
      EmbeddedLogBackend.fromNdjson([
        {
          name: "nested",
          topic: "application",
          ndjson:
            '{"timestamp":"2025-03-14T09:59:00Z","level":"INFO","service":"a","message":"m","http":{"method":"POST"}}'
        }
      ])
    )
    const ok = await Effect.runPromise(nested.query({ ...base, query: "http.method:post" }))
    expect("total_matched" in ok && ok.total_matched).toBe(1)
    const bad = await Effect.runPromise(Effect.flip(nested.query({ ...base, query: "http.status:500" })))
    expect(bad._tag === "InvalidRequest" && bad.issues[0]).toBe("query: INVALID_FIELD at character 0")
  })

  it("rejects an invalid window or limit as InvalidRequest", async () => {
    const b = await backend()
    for (const bad of [
      { startTime: LOGS_NOW, endTime: LOGS_NOW - 1 },
      { startTime: Number.NaN },
      { limit: -1 },
      { limit: 1.5 }
    ]) {
      const error = await Effect.runPromise(Effect.flip(b.query({ ...base, ...bad })))
      expect(error).toMatchObject({ _tag: "InvalidRequest", reason: "INVALID_SCOPE" })
    }
  })

  it("loading: malformed lines fail (or are skipped on request), lines need a topic", async () => {
    const bad = '{"timestamp":"2025-03-14T09:00:00Z","level":"INFO","service":"a","message":"ok"}\nnot json\n'
    const failed = await Effect.runPromise(
      Effect.flip(EmbeddedLogBackend.fromNdjson([{ name: "bad", ndjson: bad, topic: "application" }]))
    )
    expect(failed).toMatchObject({ _tag: "LogSourceError", reason: "INVALID_LINE", line: 2 })
    const noMessage = '{"timestamp":"2025-03-14T09:00:00Z","level":"INFO","service":"a"}'
    expect(
      await Effect.runPromise(
        Effect.flip(EmbeddedLogBackend.fromNdjson([{ name: "x", ndjson: noMessage, topic: "application" }]))
      )
    ).toMatchObject({ reason: "INVALID_LINE", line: 1 })
    const badTime = '{"timestamp":"yesterday","level":"INFO","service":"a","message":"m"}'
    expect(
      await Effect.runPromise(
        Effect.flip(EmbeddedLogBackend.fromNdjson([{ name: "x", ndjson: badTime, topic: "application" }]))
      )
    ).toMatchObject({ reason: "INVALID_LINE" })
    const noTopic = '{"timestamp":"2025-03-14T09:00:00Z","level":"INFO","service":"a","message":"m"}'
    expect(
      await Effect.runPromise(Effect.flip(EmbeddedLogBackend.fromNdjson([{ name: "x", ndjson: noTopic }])))
    ).toMatchObject({ reason: "MISSING_TOPIC", line: 1 })
    const skipped = await Effect.runPromise(
      EmbeddedLogBackend.fromNdjson([{ name: "bad", ndjson: bad, topic: "application" }], {
        onInvalidLine: "skip"
      })
    )
    const raw = await Effect.runPromise(
      skipped.query({ ...base, startTime: Date.parse("2025-03-14T08:00:00Z"), endTime: LOGS_NOW })
    )
    expect("entries" in raw && raw.entries).toHaveLength(1)
    expect(
      await Effect.runPromise(
        Effect.flip(EmbeddedLogBackend.fromFiles([{ path: logFixturePath("nope.ndjson") }]))
      )
    ).toMatchObject({ reason: "READ_FAILED" })
  })

  it("is provided as the LogBackend service", async () => {
    const raw = await Effect.runPromise(
      Effect.gen(function* () {
        const logs = yield* LogBackend
        return yield* logs.query({ ...base, query: "redis" })
      }).pipe(
        Effect.provide(
          EmbeddedLogBackend.layerFromFiles([
            { path: logFixturePath("application.ndjson"), topic: "application" }
          ])
        )
      )
    )
    expect("total_matched" in raw && raw.total_matched).toBe(1)
  })
})
