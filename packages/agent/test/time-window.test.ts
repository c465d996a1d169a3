import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  extractTimeWindow,
  parseTimeWindowMessage,
  REACH_MARGIN,
  resolveWindow,
  timeWindowMessage,
  zoneOffsetOf
} from "../src/time-window.js"

/** Fixed seed: deterministic in CI (set FC_SEED for a random-seed run). */
const FC = { seed: Number(process.env.FC_SEED ?? 20261130), numRuns: 300 }

const NOW = Date.parse("2026-03-15T13:30:00.000Z")
const at = (iso: string) => new Date(iso).toISOString()

describe("extractTimeWindow (run clock 2026-03-15T13:30Z, default zone UTC)", () => {
  it.each([
    ["why did latency spike on orders at 13:10?", "2026-03-15T12:40:00Z", "2026-03-15T13:30:00Z"],
    ["anything since this morning?", "2026-03-15T06:00:00Z", "2026-03-15T13:30:00Z"],
    ["errors between 9 and 10", "2026-03-15T09:00:00Z", "2026-03-15T10:00:00Z"],
    ["errors between 10:00 and 11:00 UTC", "2026-03-15T10:00:00Z", "2026-03-15T11:00:00Z"],
    ["from 9am to 11am", "2026-03-15T09:00:00Z", "2026-03-15T11:00:00Z"],
    ["were there errors yesterday?", "2026-03-14T00:00:00Z", "2026-03-15T00:00:00Z"],
    ["how is checkout doing over the last 30 minutes?", "2026-03-15T13:00:00Z", "2026-03-15T13:30:00Z"],
    ["in the last hour", "2026-03-15T12:30:00Z", "2026-03-15T13:30:00Z"],
    ["past 2 hours", "2026-03-15T11:30:00Z", "2026-03-15T13:30:00Z"],
    ["last 3 days", "2026-03-12T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["since 13:00", "2026-03-15T13:00:00Z", "2026-03-15T13:30:00Z"],
    ["since 9am", "2026-03-15T09:00:00Z", "2026-03-15T13:30:00Z"],
    ["since yesterday", "2026-03-14T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["since midnight", "2026-03-15T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["2 hours ago", "2026-03-15T11:00:00Z", "2026-03-15T12:00:00Z"],
    ["this afternoon", "2026-03-15T12:00:00Z", "2026-03-15T13:30:00Z"],
    ["last night", "2026-03-14T18:00:00Z", "2026-03-15T06:00:00Z"],
    ["today", "2026-03-15T00:00:00Z", "2026-03-15T13:30:00Z"],
    // time zones: abbreviations, offsets, UTC±h
    ["why did checkout fail at 13:20 CET?", "2026-03-15T11:50:00Z", "2026-03-15T12:50:00Z"],
    ["did the cart fail at 13:12 +02:00?", "2026-03-15T10:42:00Z", "2026-03-15T11:42:00Z"],
    ["at 13:15 UTC+1", "2026-03-15T11:45:00Z", "2026-03-15T12:45:00Z"],
    ["at 8:30 EST", "2026-03-15T13:00:00Z", "2026-03-15T13:30:00Z"],
    // a time still to come today is yesterday's
    ["at 3pm", "2026-03-14T14:30:00Z", "2026-03-14T15:30:00Z"],
    ["yesterday at 13:10", "2026-03-14T12:40:00Z", "2026-03-14T13:40:00Z"],
    // number words, half hours, weeks and months (2026-03-15 is a Sunday)
    ["in the last half hour", "2026-03-15T13:00:00Z", "2026-03-15T13:30:00Z"],
    ["past few hours", "2026-03-15T10:30:00Z", "2026-03-15T13:30:00Z"],
    ["an hour ago", "2026-03-15T12:00:00Z", "2026-03-15T13:00:00Z"],
    ["half an hour ago", "2026-03-15T12:30:00Z", "2026-03-15T13:30:00Z"],
    ["slow since about an hour ago", "2026-03-15T12:30:00Z", "2026-03-15T13:30:00Z"],
    ["since 2 hours ago", "2026-03-15T11:30:00Z", "2026-03-15T13:30:00Z"],
    ["over the past week", "2026-03-08T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["last 2 weeks", "2026-03-01T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["what failed last week?", "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"],
    ["this week", "2026-03-09T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["last month", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"],
    ["so far this month", "2026-03-01T00:00:00Z", "2026-03-15T13:30:00Z"],
    // named days: whole days, or a time on them
    ["the day before yesterday", "2026-03-13T00:00:00Z", "2026-03-14T00:00:00Z"],
    ["two days ago", "2026-03-13T00:00:00Z", "2026-03-14T00:00:00Z"],
    ["a week ago", "2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z"],
    ["on monday", "2026-03-09T00:00:00Z", "2026-03-10T00:00:00Z"],
    ["on sunday", "2026-03-15T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["last sunday", "2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z"],
    ["friday night", "2026-03-13T18:00:00Z", "2026-03-14T06:00:00Z"],
    ["yesterday morning", "2026-03-14T06:00:00Z", "2026-03-14T12:00:00Z"],
    ["monday at 13:00", "2026-03-09T12:30:00Z", "2026-03-09T13:30:00Z"],
    ["since wednesday", "2026-03-11T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["on 2026-03-10", "2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z"],
    ["2026-03-12 13:05", "2026-03-12T12:35:00Z", "2026-03-12T13:35:00Z"],
    ["march 10", "2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z"],
    ["10 Mar", "2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z"],
    ["december 24th", "2025-12-24T00:00:00Z", "2025-12-25T00:00:00Z"],
    ["Jan 3, 2026", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z"],
    ["on the 2nd", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"],
    ["on the 20th", "2026-02-20T00:00:00Z", "2026-02-21T00:00:00Z"],
    // weekends: today is Sunday, so "the weekend" is this one and "last weekend" the one before
    ["over the weekend", "2026-03-14T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["last weekend", "2026-03-07T00:00:00Z", "2026-03-09T00:00:00Z"],
    // two sets written blind before the calendar rules and the bare-hour rule (15/15, 14/15)
    ["what broke last tuesday?", "2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z"],
    ["errors two weeks ago?", "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"],
    ["what happened on Mar 3", "2026-03-03T00:00:00Z", "2026-03-04T00:00:00Z"],
    ["checkout failures on the 3rd of March", "2026-03-03T00:00:00Z", "2026-03-04T00:00:00Z"],
    ["any errors earlier this week?", "2026-03-09T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["how did checkout do over the past couple of days", "2026-03-13T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["errors in the previous three hours", "2026-03-15T10:30:00Z", "2026-03-15T13:30:00Z"],
    ["anything wrong in the last 90 mins", "2026-03-15T12:00:00Z", "2026-03-15T13:30:00Z"],
    ["what happened during the weekend", "2026-03-14T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["checkout errors on Saturday", "2026-03-14T00:00:00Z", "2026-03-15T00:00:00Z"],
    ["within the past day, any issues?", "2026-03-14T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["was checkout failing earlier today", "2026-03-15T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["errors since Friday?", "2026-03-13T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["what happened 2026-03-12", "2026-03-12T00:00:00Z", "2026-03-13T00:00:00Z"],
    ["errors last month", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"],
    ["errors in the last 45 min", "2026-03-15T12:45:00Z", "2026-03-15T13:30:00Z"],
    ["what happened around noon", "2026-03-15T11:30:00Z", "2026-03-15T12:30:00Z"],
    ["since 9:30am", "2026-03-15T09:30:00Z", "2026-03-15T13:30:00Z"],
    ["between 12:15 and 12:45", "2026-03-15T12:15:00Z", "2026-03-15T12:45:00Z"],
    ["yesterday evening", "2026-03-14T18:00:00Z", "2026-03-15T00:00:00Z"],
    ["last Friday afternoon", "2026-03-13T12:00:00Z", "2026-03-13T18:00:00Z"],
    ["on March 14th at 10:00", "2026-03-14T09:30:00Z", "2026-03-14T10:30:00Z"],
    ["past 3 days", "2026-03-12T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["four hours ago", "2026-03-15T09:00:00Z", "2026-03-15T10:00:00Z"],
    ["since Saturday", "2026-03-14T00:00:00Z", "2026-03-15T13:30:00Z"],
    ["in the previous 24 hours", "2026-03-14T13:30:00Z", "2026-03-15T13:30:00Z"],
    ["from 1pm to 1:20pm", "2026-03-15T13:00:00Z", "2026-03-15T13:20:00Z"],
    ["over the last couple of hours", "2026-03-15T11:30:00Z", "2026-03-15T13:30:00Z"],
    ["the last 2 weeks", "2026-03-01T13:30:00Z", "2026-03-15T13:30:00Z"],
    // a bare hour with a part of the day
    ["this morning around 8", "2026-03-15T07:30:00Z", "2026-03-15T08:30:00Z"],
    ["yesterday at 7 in the evening", "2026-03-14T18:30:00Z", "2026-03-14T19:30:00Z"]
  ])("%j -> %s .. %s", (question, start, end) => {
    const w = extractTimeWindow(question, NOW)
    expect(w).not.toBeNull()
    expect([at(new Date(w!.start).toISOString()), at(new Date(w!.end).toISOString())]).toEqual([
      at(start),
      at(end)
    ])
  })

  it.each([
    "is checkout-service healthy right now?",
    "why is checkout returning 500s?",
    "HTTP 503 on /api/v2/orders",
    "pods restart every 5 minutes",
    "we met a problem on checkout",
    "version 2.3 is slow",
    "this may cause 5 errors",
    "a couple of pods restart",
    "the 10th percentile latency",
    "errors on 2026-03-20"
  ])("%j names no window", (question) => {
    expect(extractTimeWindow(question, NOW)).toBeNull()
  })

  it("keeps the zone in the phrase and honours a configured default zone", () => {
    expect(extractTimeWindow("at 13:20 CET", NOW)?.phrase).toBe("at 13:20 CET")
    const w = extractTimeWindow("since 14:00", NOW, { defaultOffsetMinutes: 120 })
    expect(w && new Date(w.start).toISOString()).toBe("2026-03-15T12:00:00.000Z")
  })

  it.each([
    ["13:00 UTC", 0],
    ["9:00 cest", 120],
    ["10:00 +05:30", 330],
    ["10:00 -0800", -480],
    ["GMT+8", 480],
    ["no zone here", null]
  ])("zoneOffsetOf(%j) = %s", (text, offset) => {
    expect(zoneOffsetOf(text)).toBe(offset)
  })
})

describe("extractTimeWindow properties", () => {
  const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  const pad = (n: number) => String(n).padStart(2, "0")
  const nowArb = fc.integer({ min: Date.parse("2020-01-01"), max: Date.parse("2030-01-01") })

  it("a window is never empty and never ends after now", () => {
    const phrase = fc.oneof(
      hhmm.map(([h, m]) => `at ${pad(h)}:${pad(m)}`),
      hhmm.map(([h, m]) => `since ${h}:${pad(m)}`),
      fc.tuple(hhmm, hhmm).map(([[a], [b]]) => `between ${a} and ${b}`),
      fc.integer({ min: 1, max: 1440 }).map((n) => `last ${n} minutes`),
      fc.constantFrom("yesterday", "since this morning", "this afternoon", "today", "last night"),
      fc.constantFrom(
        "last week",
        "this week",
        "last month",
        "this month",
        "over the weekend",
        "last weekend",
        "the day before yesterday",
        "on the 1st",
        "on the 31st",
        "on february 29",
        "friday night"
      ),
      fc
        .tuple(fc.constantFrom("", "last ", "since "), fc.constantFrom("monday", "wednesday", "sunday"))
        .map(([a, b]) => a + b),
      fc.integer({ min: 0, max: 40 }).map((n) => `${n} days ago`),
      fc
        .tuple(
          fc.integer({ min: 2019, max: 2031 }),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 31 })
        )
        .map(([y, mo, d]) => `on ${y}-${pad(mo)}-${pad(d)}`),
      fc
        .tuple(hhmm, fc.constantFrom("UTC", "CET", "+02:00", "-05:00", "PDT"))
        .map(([[h, m], z]) => `${h}:${pad(m)} ${z}`)
    )
    fc.assert(
      fc.property(phrase, nowArb, (p, now) => {
        const w = extractTimeWindow(`what happened ${p}?`, now)
        if (w === null) return
        expect(w.start).toBeLessThan(w.end)
        expect(w.end).toBeLessThanOrEqual(now)
      }),
      FC
    )
  })

  it("last N minutes is exactly N minutes ending now", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), nowArb, (n, now) => {
        const w = extractTimeWindow(`errors in the last ${n} minutes`, now)
        expect(w).toEqual({ phrase: `last ${n} minutes`, start: now - n * 60_000, end: now })
      }),
      FC
    )
  })

  it("a point in time is the most recent past one, within a day of now, and its window contains it", () => {
    fc.assert(
      fc.property(hhmm, nowArb, ([h, m], now) => {
        const w = extractTimeWindow(`spike at ${pad(h)}:${pad(m)} UTC`, now)!
        const point = w.start + 30 * 60_000
        expect(point).toBeLessThanOrEqual(now)
        expect(now - point).toBeLessThan(24 * 3_600_000)
        expect(new Date(point).getUTCHours() * 60 + new Date(point).getUTCMinutes()).toBe(h * 60 + m)
      }),
      FC
    )
  })
})

describe("resolveWindow", () => {
  const limits = { maxLookbackMinutes: 1440 }

  it("passes a window within reach unchanged, without a note", () => {
    const asked = extractTimeWindow("at 13:10", NOW)!
    expect(resolveWindow(asked, NOW, limits)).toEqual({
      asked,
      start: asked.start,
      end: asked.end,
      note: null
    })
  })

  it("clips a window reaching past the tools' reach (with a margin) and says so", () => {
    const asked = extractTimeWindow("yesterday", NOW)!
    const r = resolveWindow(asked, NOW, limits)
    expect(r.start).toBe(NOW - 1440 * 60_000 + REACH_MARGIN)
    expect(r.end).toBe(asked.end)
    expect(r.note).toContain('asks about "yesterday"')
    expect(r.note).toContain("reaches back only 1440 minutes")
  })

  it("a window entirely out of reach cannot be searched, and says so", () => {
    const asked = { phrase: "last week", start: NOW - 8 * 86_400_000, end: NOW - 7 * 86_400_000 }
    const r = resolveWindow(asked, NOW, limits)
    expect(r).toMatchObject({ start: null, end: null })
    expect(r.note).toContain("could not be searched")
    expect(timeWindowMessage(r)).toContain("cannot search")
    expect(parseTimeWindowMessage(timeWindowMessage(r))).toEqual({ start: null, end: null })
  })

  it("property: the resolved window is within [now - reach, now] and inside the asked one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5 * 1440, max: 0 }),
        fc.integer({ min: 1, max: 3 * 1440 }),
        fc.integer({ min: 10, max: 2880 }),
        (startMin, lengthMin, reach) => {
          const asked = {
            phrase: "x",
            start: NOW + startMin * 60_000,
            end: NOW + (startMin + lengthMin) * 60_000
          }
          const r = resolveWindow(asked, NOW, { maxLookbackMinutes: reach })
          if (r.start === null || r.end === null) {
            expect(r.note).not.toBeNull()
            return
          }
          expect(r.start).toBeGreaterThanOrEqual(NOW - reach * 60_000)
          expect(r.end).toBeLessThanOrEqual(NOW)
          expect(r.start).toBeGreaterThanOrEqual(asked.start)
          expect(r.end).toBeLessThanOrEqual(asked.end)
          expect(r.start).toBeLessThan(r.end)
          expect(r.note === null).toBe(r.start === asked.start)
          // the model is given exactly this window
          expect(parseTimeWindowMessage(timeWindowMessage(r))).toEqual({
            start: new Date(r.start).toISOString(),
            end: new Date(r.end).toISOString()
          })
        }
      ),
      FC
    )
  })
})
