import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { logPatternId, projectLogs, sampleTimeline } from "../src/index.js"
import { LOG_LEVELS, MAX_SERVICE_CHARS, normalizeLogLevel, sanitizeLogService } from "../src/logs.js"
import { parseIsoMillis } from "../src/logs-input.js"
import { redactTemplate } from "../src/logs-template.js"
import { redactText } from "../src/redaction/index.js"
import { bytesOf, ok, run } from "./helpers.js"
import { fillerText, SECRET_SHAPES } from "./secrets.js"

const request = { topic: "application", query: "level:ERROR", service: "checkout", lookback_minutes: 30 }
const scope = {
  topic: "application",
  query: "level:ERROR",
  service: "checkout",
  start_time: "2026-01-01T10:00:00.000Z",
  end_time: "2026-01-01T10:30:00.000Z"
}
const at = (second: number) => new Date(Date.parse("2026-01-01T10:00:00.000Z") + second * 1000).toISOString()
const entry = (second: number, message: string, level = "ERROR", service = "checkout") => ({
  timestamp: at(second),
  level,
  service,
  message
})
const raw = (entries: unknown[], extra: object = {}) => ({
  source_kind: "fixture",
  scope,
  entries,
  total_matched: entries.length,
  ...extra
})
const project = projectLogs()

describe("projectLogs", () => {
  it("aggregates patterns by level + service + template with counts and first/last timestamps", () => {
    const entries = [
      entry(5, "Connection to 10.0.0.1:3306 timed out after 3000ms"),
      entry(1, "Connection to 10.0.0.2:3306 timed out after 2000ms"),
      entry(9, "Connection to 10.0.0.3:3306 timed out after 1000ms"),
      entry(3, "Connection to 10.0.0.4:3306 timed out after 1000ms", "WARN"),
      entry(4, "Cache warmed", "INFO", "inventory")
    ]
    const p = ok(run(project, request, raw(entries)))
    expect(p.evidenceStatus).toBe("EVIDENCE_FOUND")
    expect(p.returnedCount).toBe(5)
    expect(p.truncated).toBe(false)
    const patterns = p.observation.patterns as any[]
    expect(patterns).toHaveLength(3)
    expect(patterns[0]).toMatchObject({
      level: "ERROR",
      service: "checkout",
      count: 3,
      first_seen: at(1),
      last_seen: at(9),
      example: "Connection to <IP> timed out after 2000ms"
    })
    expect(patterns[0].pattern_id).toBe(logPatternId("ERROR", "checkout", patterns[0].template))
    expect(patterns[0].pattern_id).toMatch(/^p[0-9a-f]{8}$/)
    expect(patterns.map((x) => x.level).sort()).toEqual(["ERROR", "INFO", "WARN"])
    expect(JSON.stringify(p.observation)).not.toMatch(/10\.0\.0\.\d/)
    const timeline = p.observation.timeline as any[]
    expect(timeline.map((e) => e.timestamp)).toEqual([at(1), at(3), at(4), at(5), at(9)])
    expect(p.observation.scope).toEqual(scope)
    expect(p.observation.source_kind).toBe("fixture")
    // the Control View names the look-back and the window actually searched
    expect(p.scope).toEqual({
      topic: "application",
      query: "level:error",
      service: "checkout",
      lookback_minutes: 30,
      start_time: "2026-01-01T10:00:00.000Z",
      end_time: "2026-01-01T10:30:00.000Z"
    })
  })

  it("pattern ids are stable across calls and inputs", () => {
    const a = ok(run(project, request, raw([entry(1, "disk full on /dev/sda1")])))
    const b = ok(
      run(project, request, raw([entry(7, "Cache warmed", "INFO"), entry(2, "disk full on /dev/sda1")]))
    )
    const idA = (a.observation.patterns as any[])[0].pattern_id
    expect((b.observation.patterns as any[]).map((x) => x.pattern_id)).toContain(idA)
  })

  it("samples the timeline across the whole time range, including first and last", () => {
    const entries = Array.from({ length: 1000 }, (_, i) =>
      entry(i < 900 ? i : 900 + (i - 900) * 10, `tick ${i}`, "INFO")
    )
    const p = ok(run(projectLogs({ maxEvents: 10 }), request, raw(entries)))
    const times = (p.observation.timeline as any[]).map((e) => Date.parse(e.timestamp))
    expect(times).toHaveLength(10)
    expect(times[0]).toBe(Date.parse(at(0)))
    expect(times[9]).toBe(Date.parse(at(1890)))
    // Not just the head: half the sample lies in the second half of the time range.
    expect(times.filter((t) => t > Date.parse(at(945))).length).toBeGreaterThanOrEqual(4)
    expect([...times].sort((x, y) => x - y)).toEqual(times)
    expect(p.truncated).toBe(true)
  })

  it("sampleTimeline is deterministic, ascending, bounded and keeps both ends", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e6 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        (ts, m) => {
          const times = [...ts].sort((a, b) => a - b)
          const s = sampleTimeline(times, m)
          expect(s).toEqual(sampleTimeline(times, m))
          expect(s.length).toBe(Math.min(m, times.length))
          expect(new Set(s).size).toBe(s.length)
          for (let i = 1; i < s.length; i++) expect(s[i]!).toBeGreaterThan(s[i - 1]!)
          if (times.length > 0) expect(s[0]).toBe(0)
          if (times.length > 1 && m > 1) expect(s[s.length - 1]).toBe(times.length - 1)
        }
      )
    )
  })

  it("successful empty result is NO_EVIDENCE with the actual scope", () => {
    const p = ok(run(project, request, raw([])))
    expect(p.evidenceStatus).toBe("NO_EVIDENCE")
    expect(p.truncated).toBe(false)
    expect(p.observation).toEqual({ scope, source_kind: "fixture", patterns: [], timeline: [] })
  })

  it("backend error payload -> BackendError for query_logs, message only as cause", () => {
    const out = run(project, request, {
      error: { code: "UPSTREAM_DOWN", message: "es at 10.0.0.9 password=x" }
    })
    expect(out.ok).toBe(false)
    if (!out.ok) {
      expect(out.error._tag).toBe("BackendError")
      expect(out.error).toMatchObject({ toolName: "query_logs", cause: { code: "UPSTREAM_DOWN" } })
      const { cause: _cause, ...rest } = out.error as any
      expect(JSON.stringify(rest)).not.toContain("10.0.0.9")
    }
  })

  it.each([
    ["malformed error report", { error: { code: 1 } }],
    ["error report with extras", { error: { code: "X", message: "y" }, entries: [] }],
    ["unknown top-level field", { ...raw([]), debug: 1 }],
    ["bad timestamp", raw([{ ...entry(1, "x"), timestamp: "yesterday" }])],
    ["missing message", raw([{ timestamp: at(1), level: "INFO", service: "s" }])],
    ["unknown topic", { ...raw([]), scope: { ...scope, topic: "audit" } }],
    ["negative total", { ...raw([]), total_matched: -1 }],
    ["array", []]
  ])("unexpected shape (%s) fails closed", (_name, value) => {
    const out = run(project, request, value)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "UNEXPECTED_SHAPE" })
  })

  it("accepts and drops entry fields", () => {
    const p = ok(
      run(
        project,
        request,
        raw([{ ...entry(1, "x"), fields: { trace: "abc", n: 1, nested: { a: [true] } } }])
      )
    )
    expect(JSON.stringify(p.observation)).not.toContain("trace")
  })

  it("total_matched above the entries returned marks truncated", () => {
    const p = ok(run(project, request, raw([entry(1, "x")], { total_matched: 50 })))
    expect(p.truncated).toBe(true)
  })

  it("nothing fits -> NOTHING_FITS", () => {
    const out = run(project, request, raw([entry(1, "x".repeat(300))]), 200)
    expect(out.ok).toBe(false)
    if (!out.ok) expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "NOTHING_FITS" })
  })

  const levels = ["ERROR", "WARN", "INFO", "DEBUG"] as const
  const services = ["checkout", "payment", "inventory", "orders-api"] as const
  const exceptions = [
    "java.sql.SQLTransientConnectionException",
    "TimeoutError",
    "java.net.ConnectException",
    "KeyError"
  ]

  it("property: a random secret of each shape never appears; service, level and exception class survive", () => {
    const arb = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 3600 }),
        fc.constantFrom(...levels),
        fc.constantFrom(...services),
        fc.constantFrom(...SECRET_SHAPES),
        fc.constantFrom(...exceptions),
        fillerText,
        fillerText
      ),
      { minLength: 1, maxLength: 12 }
    )
    fc.assert(
      fc.property(
        arb.chain((rows) => fc.tuple(fc.constant(rows), fc.tuple(...rows.map(([, , , shape]) => shape.arb)))),
        ([rows, secrets]) => {
          const entries = rows.map(([second, level, service, , exc, before, after], i) =>
            entry(second, `${exc}: ${before} ${secrets[i]![0]} ${after}`, level, service)
          )
          const p = ok(
            run(
              projectLogs({ maxEvents: 50, maxPatterns: 50, maxMessageChars: 2000 }),
              request,
              raw(entries),
              1 << 20
            )
          )
          const text = JSON.stringify(p.observation)
          for (const [, secret] of secrets) expect(text).not.toContain(secret)
          const events = p.observation.timeline as any[]
          expect(events).toHaveLength(rows.length)
          for (const [i, row] of rows.entries()) {
            const [second, level, service, , exc] = row
            const event = events.find(
              (e, j) => e.timestamp === at(second) && e.level === level && e.service === service && j >= 0
            )
            expect(event, `entry ${i}`).toBeDefined()
            expect(text).toContain(exc)
          }
        }
      ),
      { numRuns: 150 }
    )
  })

  const entriesArb = fc.array(
    fc.record({
      timestamp: fc.integer({ min: 0, max: 86400 }).map(at),
      level: fc.constantFrom("ERROR", "WARN", "INFO", "error"),
      service: fc.constantFrom("checkout", "payment"),
      message: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom("timeout after 30s to 10.0.0.1", "user=bob password=x logged in", "GET /health 200")
      )
    }),
    { maxLength: 60 }
  )

  it("property: within budget, truncated exactly when something was dropped, deterministic", () => {
    fc.assert(
      fc.property(
        entriesArb,
        fc.integer({ min: 150, max: 6000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 3 }),
        (entries, maxBytes, maxEvents, maxPatterns, extra) => {
          const limits = { maxEvents, maxPatterns, maxMessageChars: 80 }
          const input = raw(entries, { total_matched: entries.length + extra })
          const a = run(projectLogs(limits), request, input, maxBytes)
          const b = run(projectLogs(limits), request, input, maxBytes)
          expect(JSON.stringify(a)).toBe(JSON.stringify(b))
          if (!a.ok) {
            expect(a.error).toMatchObject({ reason: "NOTHING_FITS" })
            return
          }
          const p = a.projection
          expect(bytesOf(p.observation)).toBeLessThanOrEqual(maxBytes)
          const full = ok(
            run(
              projectLogs({ maxEvents: 1e6, maxPatterns: 1e6, maxMessageChars: 1e6, maxBytes: 1 << 30 }),
              request,
              input,
              1 << 30
            )
          )
          const fullPatterns = full.observation.patterns as any[]
          const fullTimeline = full.observation.timeline as any[]
          const patterns = p.observation.patterns as any[]
          const timeline = p.observation.timeline as any[]
          const dropped =
            extra > 0 ||
            patterns.length < fullPatterns.length ||
            timeline.length < fullTimeline.length ||
            patterns.some(
              (x, i) => x.template !== fullPatterns[i].template || x.example !== fullPatterns[i].example
            ) ||
            timeline.some(
              (e) => !fullTimeline.some((f) => f.timestamp === e.timestamp && f.message === e.message)
            )
          expect(p.truncated).toBe(dropped)
          expect(p.evidenceStatus).toBe(entries.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE")
          expect(p.returnedCount).toBe(entries.length)
        }
      ),
      { numRuns: 200 }
    )
  })
})

describe("projectLogs: service and level of raw entries", () => {
  it("levels are upper-cased when known, anything else is UNKNOWN", () => {
    expect(normalizeLogLevel(" warning ")).toBe("WARNING")
    expect(normalizeLogLevel("err")).toBe("ERR")
    expect(normalizeLogLevel("Fine")).toBe("FINE")
    expect(normalizeLogLevel("INFO\n")).toBe("INFO")
    for (const bad of ["", "bogus", "ERROR password=hunter2", "<script>", "x".repeat(10000)])
      expect(normalizeLogLevel(bad), bad.slice(0, 20)).toBe("UNKNOWN")
    for (const level of LOG_LEVELS) expect(normalizeLogLevel(level.toLowerCase())).toBe(level)
    const entries = [
      entry(1, "a", "warning"),
      entry(2, "b", "Critical"),
      entry(3, "c", "pod checkout-7d9f8b6c5d-x2k4p died"),
      entry(4, "d", "z".repeat(5000))
    ]
    const p = ok(run(project, request, raw(entries)))
    const timeline = p.observation.timeline as any[]
    expect(timeline.map((e) => e.level)).toEqual(["WARNING", "CRITICAL", "UNKNOWN", "UNKNOWN"])
    const patterns = p.observation.patterns as any[]
    expect(patterns.map((x) => x.level).sort()).toEqual(["CRITICAL", "UNKNOWN", "UNKNOWN", "WARNING"])
    expect(JSON.stringify(p.observation)).not.toContain("x2k4p")
  })

  it("services are redacted like messages and cut to MAX_SERVICE_CHARS (truncated)", () => {
    expect(sanitizeLogService(" checkout ")).toBe("checkout")
    expect(sanitizeLogService("orders-api")).toBe("orders-api")
    expect(sanitizeLogService("checkout-7d9f8b6c5d-x2k4p")).toBe("<POD>")
    expect(sanitizeLogService("10.0.0.7:8080")).toBe("<IP>")
    expect(sanitizeLogService("db-primary.prod.example.com")).toBe("<HOST>")
    expect(sanitizeLogService("api password=hunter2")).toBe("api password=<SECRET>")
    expect(sanitizeLogService("s".repeat(500))).toHaveLength(MAX_SERVICE_CHARS)
    const entries = [
      entry(1, "boom", "ERROR", "checkout-7d9f8b6c5d-x2k4p"),
      entry(2, "boom", "ERROR", "gke-prod-pool-1-abcd1234-xyz9"),
      entry(3, "boom", "ERROR", "x".repeat(300))
    ]
    const p = ok(run(project, request, raw(entries)))
    const text = JSON.stringify(p.observation)
    for (const gone of ["x2k4p", "abcd1234", "x".repeat(MAX_SERVICE_CHARS + 1)])
      expect(text).not.toContain(gone)
    const services = (p.observation.timeline as any[]).map((e) => e.service)
    expect(services).toEqual(["<POD>", "<HOST>", "x".repeat(MAX_SERVICE_CHARS)])
    for (const pattern of p.observation.patterns as any[])
      expect(pattern.service.length).toBeLessThanOrEqual(MAX_SERVICE_CHARS)
    expect(p.truncated).toBe(true)
    // A short clean service is not a cut.
    expect(ok(run(project, request, raw([entry(1, "boom")]))).truncated).toBe(false)
  })

  it("the scope's service is sanitized the same way", () => {
    const p = ok(
      run(project, request, {
        ...raw([entry(1, "boom")]),
        scope: { ...scope, service: "redis-master-2.cache.svc:6379" }
      })
    )
    expect((p.observation.scope as any).service).toBe("<HOST>")
    const q = ok(run(project, request, { ...raw([entry(1, "boom")]), scope: { ...scope, service: null } }))
    expect((q.observation.scope as any).service).toBe(null)
  })
})

describe("projectLogs: redaction of what is emitted only", () => {
  const templatesOf = [
    (s: string, n: number) => `login ok for user u${n} with ${s} from 10.1.${n % 250}.7`,
    (s: string, n: number) => `request ${n} failed: upstream said ${s} after ${n * 3}ms`,
    (s: string, n: number) => `cache refresh ${n} done (${s})`
  ]
  const wildcardMatch = (token: string, visible: ReadonlyArray<string>): boolean => {
    if (token === "<*>" || visible.includes(token)) return true
    const escaped = token.split("<*>").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    const re = new RegExp(`^${escaped.join("[\\s\\S]*")}$`)
    return visible.some((v) => re.test(v))
  }

  it("property (fixed seed): every emitted string equals or is covered by its full redaction", () => {
    const arb = fc.tuple(
      fc.constantFrom(...SECRET_SHAPES),
      fc.array(
        fc.tuple(
          fc.integer({ min: 0, max: 3600 }),
          fc.constantFrom("ERROR", "warn", "INFO"),
          fc.constantFrom("checkout", "payment", "db-7f9c6d5b4-x2k4p"),
          fc.integer({ min: 0, max: 2 }),
          fc.integer({ min: 0, max: 999 })
        ),
        { minLength: 1, maxLength: 40 }
      )
    )
    fc.assert(
      fc.property(
        arb.chain(([shape, rows]) => fc.tuple(fc.constant(rows), shape.arb)),
        ([rows, [embedded, secret]]) => {
          // The same secret on every line: it is a template constant, and must still go.
          const entries = rows.map(([second, level, service, t, n]) =>
            entry(second, templatesOf[t]!(embedded, n), level, service)
          )
          const p = ok(
            run(projectLogs({ maxEvents: 50, maxPatterns: 50, maxMessageChars: 4000 }), request, raw(entries))
          )
          const text = JSON.stringify(p.observation)
          expect(text).not.toContain(secret)
          const full = entries.map((e) => redactText(e.message))
          for (const event of p.observation.timeline as any[]) {
            const i = entries.findIndex(
              (e, k) => e.timestamp === event.timestamp && full[k] === event.message
            )
            expect(i, event.message).toBeGreaterThanOrEqual(0)
            expect(event.service).toBe(sanitizeLogService(entries[i]!.service))
            expect(event.level).toBe(normalizeLogLevel(entries[i]!.level))
          }
          for (const pattern of p.observation.patterns as any[]) {
            expect(full).toContain(pattern.example)
            const visible = pattern.example.split(/\s+/)
            for (const token of pattern.template.split(" ")) {
              expect(wildcardMatch(token, visible), `${token} in ${pattern.template}`).toBe(true)
            }
          }
        }
      ),
      { seed: 4242, numRuns: 200 }
    )
  })

  it("a secret on every line is a template constant, and is redacted there too", () => {
    const entries = [1, 2, 3].map((s) => entry(s, `job ${s} uses key AKIAABCDEFGHIJKLMNOP now`))
    const p = ok(run(project, request, raw(entries)))
    expect(JSON.stringify(p.observation)).not.toContain("AKIAABCDEFGHIJKLMNOP")
    const [pattern] = p.observation.patterns as any[]
    expect(pattern.count).toBe(3)
    expect(pattern.template).toBe(`job <*> uses key ${redactText("AKIAABCDEFGHIJKLMNOP")} now`)
  })

  it("a template token that full redaction of the example would not show becomes <*>", () => {
    expect(redactTemplate("key hunter<*> ok", "key <SECRET> ok")).toBe("key <*> ok")
    expect(redactTemplate("user=<*> ok", "user=bob ok")).toBe("user=<*> ok")
    expect(redactTemplate("a b", "a b")).toBe("a b")
  })

  it("timestamps the fast path does not read go to the schema (and Date.parse)", () => {
    const odd = { ...entry(1, "x"), timestamp: "2026-01-01T10:00:01.5+0100" }
    const out = run(project, request, raw([odd, entry(2, "y")]))
    // Either the schema accepts the form (and Date.parse reads it) or it is UNEXPECTED_SHAPE.
    if (out.ok) expect((out.projection.observation.timeline as any[]).length).toBe(2)
    else expect(out.error).toMatchObject({ _tag: "ProjectionError", reason: "UNEXPECTED_SHAPE" })
    expect(parseIsoMillis("2026-01-01T10:00:01.5+01:00")).toBe(Date.parse("2026-01-01T10:00:01.5+01:00"))
    expect(parseIsoMillis("2024-02-29T23:59:59.999999Z")).toBe(Date.parse("2024-02-29T23:59:59.999Z"))
    expect(parseIsoMillis("2023-02-29T00:00:00Z")).toBeNaN()
    expect(parseIsoMillis("2023-13-01T00:00:00Z")).toBeNaN()
    expect(parseIsoMillis("2023-01-01 00:00:00Z")).toBeNaN()
    expect(parseIsoMillis("2023-01-01T00:00:00")).toBeNaN()
  })

  it("property (fixed seed): the hand-written ISO reader agrees with Date.parse", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1900-01-01T00:00:00Z"),
          max: new Date("2200-01-01T00:00:00Z"),
          noInvalidDate: true
        }),
        fc.constantFrom("Z", "+00:00", "-05:30", "+14:00"),
        (d, zone) => {
          const text = d.toISOString().replace("Z", zone)
          expect(parseIsoMillis(text)).toBe(Date.parse(text))
        }
      ),
      { seed: 7, numRuns: 500 }
    )
  })
})
