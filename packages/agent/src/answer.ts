/**
 * The released text's framing, decided by the harness (never the model): the note of a time
 * window that could not be honoured, and the bounded "no problem found in <scopes, windows>"
 * answer when every system observation of the run was a successful, empty search. Pure functions.
 */
import { type CheckedScope, isSystemObservationTool } from "@aiops-harness/guards"
import type { ResolvedWindow } from "./time-window.js"

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
    system.every((c) => c.evidenceStatus === "NO_EVIDENCE")
  )
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
 * the time-window note (asked window not honoured) right after the first line.
 */
export const frameReleasedContent = (input: {
  readonly content: string
  readonly released: boolean
  readonly checked: ReadonlyArray<CheckedScope>
  readonly window: ResolvedWindow | null
}): string => {
  const body = !input.released && nothingFound(input.checked) ? noProblemAnswer(input.content) : input.content
  const note = input.window?.note
  if (!note) return body
  const nl = body.indexOf("\n")
  return nl < 0
    ? `${body}\n\nTime window: ${note}`
    : `${body.slice(0, nl)}\nTime window: ${note}${body.slice(nl)}`
}
