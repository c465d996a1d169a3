/**
 * Days, weeks and months named in a question ("last tuesday", "on 2026-03-12", "march 3rd",
 * "the day before yesterday", "two days ago", "last week", "over the weekend"), for
 * time-window.ts. Pure functions over a lower-cased question; all times are epoch ms and day
 * boundaries are midnights in the question's zone.
 */

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** Number words people write before a unit ("two hours", "a couple of days"). */
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  "a couple of": 2,
  "couple of": 2,
  "a few": 3,
  few: 3
}

/** A count written in digits or words; `undefined` (no count written) is 1. */
export const countOf = (text: string | undefined): number | null =>
  text === undefined ? 1 : /^\d+$/.test(text) ? Number(text) : (NUMBER_WORDS[text.trim()] ?? null)

/** Matches a count before a unit: digits or one of {@link NUMBER_WORDS}. */
export const COUNT = String.raw`(\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a )?couple of|(?:a )?few)`

const UNITS: ReadonlyArray<[RegExp, number]> = [
  [/^(?:m|min|mins|minute|minutes)$/, MINUTE],
  [/^(?:h|hr|hrs|hour|hours)$/, HOUR],
  [/^(?:d|day|days)$/, DAY],
  [/^(?:w|wk|wks|week|weeks)$/, 7 * DAY],
  [/^fortnights?$/, 14 * DAY],
  [/^months?$/, 30 * DAY]
]

/** Matches a unit {@link unitMs} knows. */
export const UNIT = "(m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|fortnights?|months?)"

export const unitMs = (unit: string): number | null => UNITS.find(([re]) => re.test(unit))?.[1] ?? null

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
const ORDINAL = String.raw`(\d{1,2})(?:st|nd|rd|th)?`

/** The calendar of one question: its zone's midnights around the run's clock. */
export interface Calendar {
  readonly now: number
  /** Midnight (in the question's zone) of the day `now` falls in. */
  readonly today: number
  /** The zone's offset, minutes east of UTC. */
  readonly offset: number
}

/** Day of the week (0 = Sunday) of the zone-local day starting at `midnight`. */
const weekdayOf = (cal: Calendar, midnight: number): number =>
  new Date(midnight + cal.offset * MINUTE).getUTCDay()

/** Midnight (zone) of year-month-day, or null when that date does not exist. */
const dateMidnight = (cal: Calendar, year: number, month: number, day: number): number | null => {
  const t = Date.UTC(year, month, day)
  const d = new Date(t)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return null
  return t - cal.offset * MINUTE
}

/** The zone-local calendar fields of `now`. */
const localNow = (cal: Calendar): Date => new Date(cal.now + cal.offset * MINUTE)

/** A day the question names, as the midnight it starts at, with the words that named it. */
export interface NamedDay {
  readonly start: number
  readonly phrase: string
  /** Where the phrase starts in the question (to read a `since` before it). */
  readonly index: number
}

/** The most recent past (or current) date with this month and day: this year's, else last year's. */
const recentDate = (cal: Calendar, month: number, day: number, year?: number): number | null => {
  const local = localNow(cal)
  if (year !== undefined) return dateMidnight(cal, year, month, day)
  const thisYear = dateMidnight(cal, local.getUTCFullYear(), month, day)
  if (thisYear !== null && thisYear <= cal.today) return thisYear
  return dateMidnight(cal, local.getUTCFullYear() - 1, month, day)
}

const named = (start: number | null, m: RegExpExecArray): NamedDay | null =>
  start === null ? null : { start, phrase: m[0].trim(), index: m.index }

/**
 * The single day a question names, if any: "yesterday", "the day before yesterday", a weekday
 * ("tuesday" is the most recent one, today included; "last tuesday" is before today), "N days
 * ago", an ISO date, a month and day ("march 3rd", "3 mar", "the 3rd of march") or "the 3rd"
 * (this month's, else last month's). Dates still to come are read as last year's.
 */
export const namedDay = (q: string, cal: Calendar): NamedDay | null => {
  let m = /\b(?:the )?day before yesterday\b/.exec(q)
  if (m) return named(cal.today - 2 * DAY, m)
  m = /\byesterday\b/.exec(q)
  if (m) return named(cal.today - DAY, m)
  m = new RegExp(String.raw`\b${COUNT}\s*(d|days?|w|wks?|weeks?)\s+ago\b`).exec(q)
  if (m) {
    const n = countOf(m[1])
    const unit = unitMs(m[2]!)
    if (n !== null && unit !== null) return named(cal.today - n * unit, m)
  }
  m = new RegExp(String.raw`\b(last |past |this past )?(${WEEKDAYS.join("|")})\b`).exec(q)
  if (m) {
    const back = (weekdayOf(cal, cal.today) - WEEKDAYS.indexOf(m[2]!) + 7) % 7
    return named(cal.today - (back === 0 && m[1] ? 7 : back) * DAY, m)
  }
  m = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(q)
  if (m) return named(dateMidnight(cal, Number(m[1]), Number(m[2]) - 1, Number(m[3])), m)
  const year = String.raw`(?:,?\s*(\d{4}))?`
  m = new RegExp(String.raw`\b${MONTH}\.?\s+${ORDINAL}\b${year}(?![:\d])`).exec(q)
  if (m) {
    const y = m[3] === undefined ? undefined : Number(m[3])
    return named(recentDate(cal, MONTHS.indexOf(m[1]!.slice(0, 3)), Number(m[2]), y), m)
  }
  m = new RegExp(String.raw`\b(?:the\s+)?${ORDINAL}\s+(?:of\s+)?${MONTH}\b${year}`).exec(q)
  if (m) {
    const y = m[3] === undefined ? undefined : Number(m[3])
    return named(recentDate(cal, MONTHS.indexOf(m[2]!.slice(0, 3)), Number(m[1]), y), m)
  }
  m = /\bon the (\d{1,2})(?:st|nd|rd|th)\b/.exec(q)
  if (m) {
    const local = localNow(cal)
    const day = Number(m[1])
    const thisMonth = dateMidnight(cal, local.getUTCFullYear(), local.getUTCMonth(), day)
    if (thisMonth !== null && thisMonth <= cal.today) return named(thisMonth, m)
    const prev = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - 1, 1))
    return named(dateMidnight(cal, prev.getUTCFullYear(), prev.getUTCMonth(), day), m)
  }
  return null
}

/** A window of whole days: this/last week (weeks start on Monday), this/last month, a weekend. */
export interface DaysWindow {
  readonly phrase: string
  readonly start: number
  readonly end: number
}

/** Midnight of the Monday of the week `midnight` falls in. */
const mondayOf = (cal: Calendar, midnight: number): number =>
  midnight - ((weekdayOf(cal, midnight) + 6) % 7) * DAY

const monthStart = (cal: Calendar, monthsBack: number): number => {
  const local = localNow(cal)
  const first = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - monthsBack, 1))
  return first.getTime() - cal.offset * MINUTE
}

/**
 * Calendar weeks, months and weekends: "this week" / "earlier this week" (Monday to now), "last
 * week" / "previous week" (the Monday-to-Monday week before this one), the same for months, and
 * "the weekend" (the most recent Saturday and Sunday; "last weekend" is the one before when
 * today is in a weekend). "the past week" is a rolling 7 days, read by the caller.
 */
export const calendarRange = (q: string, cal: Calendar): DaysWindow | null => {
  const thisMonday = mondayOf(cal, cal.today)
  let m = /\b(?:earlier |so far )?this week\b/.exec(q)
  if (m) return { phrase: m[0], start: thisMonday, end: cal.now }
  m = /\b(?:last|previous) week\b/.exec(q)
  if (m) return { phrase: m[0], start: thisMonday - 7 * DAY, end: thisMonday }
  m = /\b(?:earlier |so far )?this month\b/.exec(q)
  if (m) return { phrase: m[0], start: monthStart(cal, 0), end: cal.now }
  m = /\b(?:last|previous) month\b/.exec(q)
  if (m) return { phrase: m[0], start: monthStart(cal, 1), end: monthStart(cal, 0) }
  m = /\b(last |previous |this past |this )?weekend\b/.exec(q)
  if (m) {
    const weekday = weekdayOf(cal, cal.today)
    const inWeekend = weekday === 0 || weekday === 6
    let saturday = thisMonday - 2 * DAY
    if (inWeekend) saturday = weekday === 6 ? cal.today : cal.today - DAY
    if (inWeekend && (m[1] === "last " || m[1] === "previous ")) saturday -= 7 * DAY
    return { phrase: m[0], start: saturday, end: saturday + 2 * DAY }
  }
  return null
}
