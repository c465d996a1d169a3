/**
 * Time windows named in a question ("at 13:10", "since this morning", "between 9 and 10",
 * "yesterday", "last 30 minutes", "13:10 CET", "+02:00"), turned into a tool time window
 * deterministically, relative to the run's clock, before the model plans. Pure functions.
 */

import {
  type Calendar,
  COUNT,
  calendarRange,
  countOf,
  DAY,
  HOUR,
  MINUTE,
  type NamedDay,
  namedDay,
  UNIT,
  unitMs
} from "./time-calendar.js"

/** How far back the log tool reaches (`query_logs`: 1440 minutes). */
export const DEFAULT_MAX_LOOKBACK_MINUTES = 1440

/** What the question asked for, before any limit. Epoch milliseconds, `start < end`. */
export interface AskedWindow {
  /** The words of the question that named the window (for the report). */
  readonly phrase: string
  readonly start: number
  readonly end: number
}

/** The window the tools will search, and what (if anything) of the asked one could not be honoured. */
export interface ResolvedWindow {
  readonly asked: AskedWindow
  /** `null` when nothing of the asked window can be searched. */
  readonly start: number | null
  readonly end: number | null
  /** Set when the searched window differs from the asked one: said in the report. */
  readonly note: string | null
}

/** How times in a question are read: default zone and width of the window around a point in time. */
export interface TimeWindowOptions {
  /** Offset of the zone for times without one, in minutes east of UTC. Default 0 (UTC). */
  readonly defaultOffsetMinutes?: number
  /** Half-width of the window around a point in time ("at 13:10"). Default 30 minutes. */
  readonly aroundMinutes?: number
}

/** Limits a resolved time window must respect. */
export interface WindowLimits {
  /** How far back the tools reach (the log tool: 1440 minutes). */
  readonly maxLookbackMinutes: number
}

/** Zone abbreviations people write after a time, in minutes east of UTC. */
const ZONES: Readonly<Record<string, number>> = {
  utc: 0,
  gmt: 0,
  bst: 60,
  cet: 60,
  cest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  ist: 330,
  sgt: 480,
  cst: 480,
  hkt: 480,
  jst: 540,
  kst: 540,
  aest: 600,
  est: -300,
  edt: -240,
  pst: -480,
  pdt: -420
}
/* `cst` is China Standard Time here (US Central is written CT/CDT less often in ops chats). */

const ZONE_RE = new RegExp(
  `(?:\\b(${Object.keys(ZONES).join("|")})\\b(?:\\s*([+-])\\s*(\\d{1,2})(?::?(\\d{2}))?)?|(?<![\\d:])([+-])(\\d{2}):?(\\d{2})\\b)`,
  "i"
)

/** The zone the question names (`UTC`, `CET`, `+02:00`, `UTC+8`), in minutes east of UTC. */
export const zoneOffsetOf = (question: string): number | null => {
  const m = ZONE_RE.exec(question)
  if (!m) return null
  if (m[1]) {
    const base = ZONES[m[1].toLowerCase()] ?? 0
    if (!m[2]) return base
    const delta = Number(m[3]) * 60 + Number(m[4] ?? 0)
    return base + (m[2] === "-" ? -delta : delta)
  }
  const delta = Number(m[6]) * 60 + Number(m[7])
  return m[5] === "-" ? -delta : delta
}

/** A clock time in the text: `13:10`, `9`, `9am`, `9:30 pm`, `noon`, `midnight`. Minutes since midnight. */
const CLOCK = String.raw`(noon|midnight|(\d{1,2})(?:[:h.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?)`

const clockMinutes = (m: ReadonlyArray<string | undefined>, i: number): number | null => {
  const word = m[i]?.toLowerCase()
  if (word === "noon") return 12 * 60
  if (word === "midnight") return 0
  let h = Number(m[i + 1])
  const min = m[i + 2] === undefined ? 0 : Number(m[i + 2])
  const ampm = m[i + 3]?.toLowerCase()
  if (!Number.isInteger(h) || min > 59) return null
  if (ampm) {
    if (h < 1 || h > 12) return null
    if (ampm.startsWith("p") && h !== 12) h += 12
    if (ampm.startsWith("a") && h === 12) h = 0
  }
  if (h > 23) return null
  return h * 60 + min
}

/** Midnight (in the zone) of the day `now` falls in, as epoch ms. */
const midnightOf = (now: number, offsetMinutes: number): number => {
  const local = now + offsetMinutes * MINUTE
  return local - (((local % DAY) + DAY) % DAY) - offsetMinutes * MINUTE
}

const PARTS_OF_DAY: Readonly<Record<string, [number, number]>> = {
  morning: [6, 12],
  afternoon: [12, 18],
  evening: [18, 24],
  tonight: [18, 24]
}

/**
 * The window a question names, or `null` when it names none ("right now", no time at all: the
 * tools' default window applies). Times without a day are the most recent past occurrence
 * (`at 13:10` asked at 09:00 is yesterday's 13:10); times without a zone use
 * `defaultOffsetMinutes`. A point in time becomes `± aroundMinutes`, clipped at `now`.
 */
export const extractTimeWindow = (
  question: string,
  now: number,
  options: TimeWindowOptions = {}
): AskedWindow | null => {
  const w = extractRaw(question, now, options)
  // the phrase names the zone the question gave, so the report's note is unambiguous
  const zone = ZONE_RE.exec(question)?.[0]?.trim()
  return w && zone && !w.phrase.includes(zone.toLowerCase()) ? { ...w, phrase: `${w.phrase} ${zone}` } : w
}

/** What every window rule reads: the question, the clock, the named day and two helpers. */
interface WindowContext {
  /** The question, lower case, typographic apostrophes made plain. */
  readonly q: string
  readonly now: number
  readonly today: number
  readonly cal: Calendar
  /** Half-width of a point in time's window, ms. */
  readonly around: number
  /** A day the question names ("yesterday", "last tuesday", "on 2026-03-12"): clock times are on it. */
  readonly named: NamedDay | null
  /** Midnight of the named day, else today's. */
  readonly day: number
  /** The window clipped at `now`; null when nothing of it is past. */
  readonly clip: (start: number, end: number, phrase: string) => AskedWindow | null
  /** A clock time on `day`, moved a day back when it is still to come (no day named). */
  readonly pastAt: (minutes: number) => number
}

/** A rule's answer: a window (or null: the phrase names nothing past), `undefined` to go on. */
type WindowRule = (c: WindowContext) => AskedWindow | null | undefined

/**
 * Last / past N units, the last hour, the past couple of days; a bare "last week" or "last
 * month" is the calendar one (calendarRange), "the past week" a rolling 7 days.
 */
const rollingWindow: WindowRule = ({ q, now }) => {
  let m = /\b(?:last|past|previous)\s+half(?: an)?[ -]hour\b/.exec(q)
  if (m) return { phrase: m[0], start: now - 30 * MINUTE, end: now }
  m = new RegExp(String.raw`\b(last|past|previous)\s+${COUNT}?\s*${UNIT}\b`).exec(q)
  if (m && !(m[2] === undefined && m[1] !== "past" && /^(?:w|wks?|weeks?|months?)$/.test(m[3]!))) {
    const n = countOf(m[2])
    const unit = unitMs(m[3]!)
    if (unit && n !== null && n > 0) return { phrase: m[0], start: now - n * unit, end: now }
  }
  return undefined
}

/** N minutes / hours ago: a point; "since (about) an hour ago" starts there. */
const agoWindow: WindowRule = ({ q, now, around, clip }) => {
  const m = new RegExp(
    String.raw`\b(?:${COUNT}\s*(m|mins?|minutes?|h|hrs?|hours?)|(half an hour))\s+ago\b`
  ).exec(q)
  if (!m) return undefined
  const n = m[3] ? 0.5 : countOf(m[1])
  const unit = m[3] ? HOUR : unitMs(m[2]!)
  if (!unit || n === null) return undefined
  const t = now - n * unit
  const since = /\bsince\s+(?:about\s+|around\s+|roughly\s+|~\s*)?$/.exec(q.slice(0, m.index))
  return since ? clip(t, now, since[0] + m[0]) : clip(t - around, t + around, m[0])
}

/** Between A and B / from A to B, on the named day or the most recent past one. */
const betweenWindow: WindowRule = ({ q, now, day, named, clip }) => {
  const m = new RegExp(String.raw`\b(?:between|from)\s+${CLOCK}\s*(?:and|to|until|till|-|–)\s*${CLOCK}`).exec(
    q
  )
  if (!m) return undefined
  const a = clockMinutes(m, 1)
  const b = clockMinutes(m, 5)
  if (a === null || b === null) return undefined
  // "between 9 and 5pm": an am/pm on the end only applies to a start that would come after it
  let start = day + a * MINUTE
  let end = day + b * MINUTE
  if (end <= start) end += DAY
  if (named === null && start > now) {
    start -= DAY
    end -= DAY
  }
  return clip(start, end, m[0])
}

/** Since <this morning | today | a named day | a clock time>. */
const sinceWindow: WindowRule = ({ q, now, today, named, clip, pastAt }) => {
  let m = /\bsince\s+(?:this\s+)?(morning|afternoon|evening|today)\b/.exec(q)
  if (m) {
    const what = m[1]!
    const start = what === "today" ? today : today + PARTS_OF_DAY[what]![0] * HOUR
    return clip(start > now ? start - DAY : start, now, m[0])
  }
  if (named && /\bsince\s+(?:the\s+|on\s+)?$/.test(q.slice(0, named.index))) {
    return clip(named.start, now, `since ${named.phrase}`)
  }
  m = new RegExp(String.raw`\bsince\s+${CLOCK}`).exec(q)
  const t = m ? clockMinutes(m, 1) : null
  return m && t !== null ? clip(pastAt(t), now, m[0]) : undefined
}

/** At / around <time>, or a bare clock time with minutes ("13:10 CET", "2026-03-12 13:10"). */
const pointWindow: WindowRule = ({ q, around, named, clip, pastAt }) => {
  const point = (minutes: number, words: string) => {
    const at = pastAt(minutes)
    return clip(at - around, at + around, named ? `${named.phrase} ${words}` : words)
  }
  let m = new RegExp(String.raw`\b(?:at|around|about|near|~)\s*${CLOCK}`).exec(q)
  if (m && (m[3] !== undefined || m[4] !== undefined || m[1] === "noon" || m[1] === "midnight")) {
    const t = clockMinutes(m, 1)
    if (t !== null) return point(t, m[0])
  }
  // A bare hour with a part of the day ("this morning around 8", "at 7 in the evening")
  const part = m && m[2] !== undefined ? /\b(morning|afternoon|evening|tonight|night)\b/.exec(q) : null
  if (m && part) {
    const h = Number(m[2])
    const pm = part[1] !== "morning" && h < 12
    if (h >= 1 && h <= 12) return point(((pm ? h + 12 : h) % 24) * 60, m[0])
  }
  m = /(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])/.exec(q)
  return m ? point(Number(m[1]) * 60 + Number(m[2]), m[0]) : undefined
}

/** Last night, this morning / afternoon / evening, tonight; a named day's morning or night. */
const partOfDayWindow: WindowRule = ({ q, today, day, named, clip }) => {
  if (/\blast\s+night\b/.test(q)) return clip(today - 6 * HOUR, today + 6 * HOUR, "last night")
  let m = /\b(?:this\s+(morning|afternoon|evening)|(tonight))\b/.exec(q)
  if (m) {
    const [from, to] = PARTS_OF_DAY[(m[1] ?? m[2])!]!
    return clip(day + from * HOUR, day + to * HOUR, m[0])
  }
  if (!named) return undefined
  m = /\b(morning|afternoon|evening|night)\b/.exec(q)
  if (!m) return undefined
  const [from, to] = m[1] === "night" ? [18, 30] : PARTS_OF_DAY[m[1]!]!
  return clip(day + from * HOUR, day + to * HOUR, `${named.phrase} ${m[1]}`)
}

/** Whole days: a calendar week, month or weekend, the named day, today. */
const daysWindow: WindowRule = ({ q, now, today, cal, named, clip }) => {
  const range = calendarRange(q, cal)
  if (range) return clip(range.start, range.end, range.phrase)
  if (named) return clip(named.start, named.start + DAY, named.phrase)
  const m = /\btoday\b/.exec(q)
  return m ? clip(today, now, m[0]) : undefined
}

/** The rules in the order they are tried: the most specific phrases first. */
const WINDOW_RULES: ReadonlyArray<WindowRule> = [
  rollingWindow,
  agoWindow,
  betweenWindow,
  sinceWindow,
  pointWindow,
  partOfDayWindow,
  daysWindow
]

const extractRaw = (question: string, now: number, options: TimeWindowOptions): AskedWindow | null => {
  const q = question.toLowerCase().replace(/[’]/g, "'")
  const offset = zoneOffsetOf(q) ?? options.defaultOffsetMinutes ?? 0
  const today = midnightOf(now, offset)
  const cal: Calendar = { now, today, offset }
  const named = namedDay(q, cal)
  const day = named?.start ?? today
  const context: WindowContext = {
    q,
    now,
    today,
    cal,
    around: (options.aroundMinutes ?? 30) * MINUTE,
    named,
    day,
    clip: (start, end, phrase) => {
      const e = Math.min(end, now)
      return start < e ? { phrase: phrase.trim(), start, end: e } : null
    },
    pastAt: (minutes) => {
      const t = day + minutes * MINUTE
      return named === null && t > now ? t - DAY : t
    }
  }
  for (const rule of WINDOW_RULES) {
    const window = rule(context)
    if (window !== undefined) return window
  }
  return null
}

const iso = (t: number) => new Date(t).toISOString()

/** Margin kept from the tools' reach when a window is clipped to it (a long run must not outlive it). */
export const REACH_MARGIN = 15 * MINUTE

/**
 * The asked window within what the tools can search (`now - maxLookbackMinutes .. now`), with a
 * note when they differ, so the report never answers a different window silently.
 */
export const resolveWindow = (asked: AskedWindow, now: number, limits: WindowLimits): ResolvedWindow => {
  // The run's clock moves on while the model plans: keep a margin so the start stays in reach.
  const floor =
    now -
    limits.maxLookbackMinutes * MINUTE +
    Math.min(REACH_MARGIN, (limits.maxLookbackMinutes * MINUTE) / 4)
  const start = Math.max(asked.start, floor)
  const end = Math.min(asked.end, now)
  const what = `"${asked.phrase}" (${iso(asked.start)} to ${iso(asked.end)})`
  const reach = `the log tool reaches back only ${limits.maxLookbackMinutes} minutes`
  if (end <= start) {
    return {
      asked,
      start: null,
      end: null,
      note: `The question asks about ${what}, but ${reach}: that window could not be searched.`
    }
  }
  const note =
    start > asked.start
      ? `The question asks about ${what}, but ${reach}: only ${iso(start)} to ${iso(end)} was searched.`
      : null
  return { asked, start, end, note }
}

/** The prefix of the control message that gives the model the question's window. */
export const TIME_WINDOW_PREFIX = "TIME_WINDOW:"

/** The control message for the model: the window to pass to time-scoped tools. */
export const timeWindowMessage = (w: ResolvedWindow): string =>
  w.start !== null && w.end !== null
    ? `${TIME_WINDOW_PREFIX} the question asks about "${w.asked.phrase}": search start_time=${iso(w.start)} end_time=${iso(w.end)} (pass both to query_logs).${w.note ? ` ${w.note}` : ""}`
    : `${TIME_WINDOW_PREFIX} the question asks about "${w.asked.phrase}", which the tools cannot search. ${w.note ?? ""}`.trim()

/** Parses a {@link timeWindowMessage} back (the offline model reads it): `null` when absent. */
export const parseTimeWindowMessage = (
  text: string
): { readonly start: string | null; readonly end: string | null } | null => {
  if (!text.startsWith(TIME_WINDOW_PREFIX)) return null
  const m = /start_time=(\S+) end_time=(\S+?)\s/.exec(text)
  return { start: m?.[1] ?? null, end: m?.[2] ?? null }
}
