import { Data } from "effect"
import type { TimelineEventBody, TimelineEventOf } from "./events.js"
import { TIMELINE_PAYLOAD_SCHEMAS, type TimelineEventType } from "./schemas.js"

/** A Timeline event that does not match its type's schema (or has no known type): a defect of the writer. */
export class InvalidTimelineEvent extends Data.TaggedError("InvalidTimelineEvent")<{
  readonly type: string
  /** The first schema issue, as `path: message`. */
  readonly issue: string
}> {}

/** Result of `parseTimelinePayload`. */
export type TimelineParseResult =
  | { readonly ok: true; readonly event: TimelineEventBody }
  | { readonly ok: false; readonly error: InvalidTimelineEvent }

const isEventType = (type: string): type is TimelineEventType => Object.hasOwn(TIMELINE_PAYLOAD_SCHEMAS, type)

/**
 * Parses a (type, payload) pair with its type's schema: what the recorder writes and what a trace
 * reads use the same check. Unknown keys are dropped from the parsed payload.
 */
export const parseTimelinePayload = (type: string, payload: unknown): TimelineParseResult => {
  if (!isEventType(type)) {
    return { ok: false, error: new InvalidTimelineEvent({ type, issue: "unknown event type" }) }
  }
  const parsed = TIMELINE_PAYLOAD_SCHEMAS[type].safeParse(payload)
  if (parsed.success) return { ok: true, event: { type, payload: parsed.data } as TimelineEventBody }
  const first = parsed.error.issues[0]
  const path = first && first.path.length > 0 ? first.path.join(".") : "payload"
  return {
    ok: false,
    error: new InvalidTimelineEvent({ type, issue: `${path}: ${first?.message ?? "invalid"}` })
  }
}

/**
 * Narrows an event (a recorded one, or a trace entry, whose payload was parsed) to one type, so
 * its payload reads by typed field instead of by key name.
 */
export const hasEventType = <E extends { readonly type: string }, T extends TimelineEventType>(
  event: E | null | undefined,
  type: T
): event is E & TimelineEventOf<T> => event?.type === type
