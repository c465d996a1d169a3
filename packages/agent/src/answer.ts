/**
 * The released text's framing, decided by the harness (never the model): the note of a time
 * window that could not be honoured, and the bounded "no problem found in <scopes, windows>"
 * answer when every system observation of the run was a successful, empty search. Pure functions.
 */
import { type CheckedScope, isSystemObservationTool } from "@aiops-harness/guards"
import type { ResolvedWindow } from "./time-window.js"

/** Headline of the answer when every check of the system came back READY with `NO_EVIDENCE`. */
export const NO_PROBLEM_FOUND = "No problem found in the scopes checked"

/**
 * Whether the run checked the system and every check came back READY with `NO_EVIDENCE` (the
 * problem searches matched nothing): then "no problem found", bounded to those scopes, is
 * the honest answer, not "cannot conclude".
 */
export const nothingFound = (checked: ReadonlyArray<CheckedScope>): boolean => {
  const system = checked.filter((c) => isSystemObservationTool(c.tool))
  return (
    system.length > 0 &&
    checked.every((c) => c.errorCode === null && c.status === "READY") &&
    system.every((c) => c.evidenceStatus === "NO_EVIDENCE") &&
    // a search whose whole window lies before the oldest log held checked nothing
    !system.every(beforeRetention)
  )
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null)

/** The oldest log the backend holds, when the search's window started before it. */
const availableFrom = (c: CheckedScope): string | null => text(c.scope?.available_from)

/** The whole searched window lies before the oldest log held. */
const beforeRetention = (c: CheckedScope): boolean => {
  const from = availableFrom(c)
  const end = text(c.scope?.end_time)
  return from !== null && end !== null && Date.parse(end) <= Date.parse(from)
}

/** What the backend's retention cut from the searched windows, or null. */
export const retentionNote = (checked: ReadonlyArray<CheckedScope>): string | null => {
  const cut = checked.filter((c) => availableFrom(c) !== null)
  if (cut.length === 0) return null
  const from = cut.map((c) => availableFrom(c)!).sort()[0]!
  return cut.every(beforeRetention)
    ? `Retention: the logs start at ${from}; the searched window lies entirely before that, so nothing in it could be checked.`
    : `Retention: the logs start at ${from}; the part of the searched window before that holds no logs and could not be checked.`
}

/**
 * The bounded no-problem answer: the first line says no problem was found, the `Checked:`
 * list of the release content (tools, scopes, windows) follows, then what it does not cover.
 */
export const noProblemAnswer = (releaseContent: string): string => {
  const at = releaseContent.indexOf("\nChecked:")
  const end = releaseContent.indexOf("\n\nMissing:")
  const checked =
    at >= 0 ? releaseContent.slice(at + 1, end > at ? end : undefined).trim() : "Checked: (none listed)"
  return [
    `${NO_PROBLEM_FOUND}: the searches for errors and warnings below matched nothing.`,
    "",
    checked,
    "",
    "This covers only these scopes and time windows; other services, log streams and times were not checked."
  ].join("\n")
}

/**
 * The released content with the harness's framing: the no-problem answer when it applies, and
 * right after the first line the time-window note (asked window not honoured) and the retention
 * note (the searched window reaches before the oldest log held).
 */
export const frameReleasedContent = (input: {
  readonly content: string
  readonly released: boolean
  readonly checked: ReadonlyArray<CheckedScope>
  readonly window: ResolvedWindow | null
}): string => {
  const body = !input.released && nothingFound(input.checked) ? noProblemAnswer(input.content) : input.content
  const notes = [
    ...(input.window?.note ? [`Time window: ${input.window.note}`] : []),
    ...[retentionNote(input.checked)].filter((n): n is string => n !== null)
  ]
  if (notes.length === 0) return body
  const nl = body.indexOf("\n")
  return nl < 0
    ? `${body}\n\n${notes.join("\n")}`
    : `${body.slice(0, nl)}\n${notes.join("\n")}${body.slice(nl)}`
}
