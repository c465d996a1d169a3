import { jsonBytes, ProjectionError, utf8Bytes } from "@aiops-harness/core"

/** Bounds of one projection (every projector shares them; each uses the ones it needs). */
export interface ToolProjectionLimits {
  /** Evidence blocks kept by the knowledge projector. */
  readonly maxItems: number
  /** Characters of one evidence excerpt. */
  readonly maxExcerptChars: number
  /** Characters of one log message (timeline event, pattern example and template). */
  readonly maxMessageChars: number
  /** Log patterns kept. */
  readonly maxPatterns: number
  /** Timeline events kept. */
  readonly maxEvents: number
  /** MySQL rows kept. */
  readonly maxRows: number
  /** Characters of one MySQL string cell. */
  readonly maxCellChars: number
  /** UTF-8 bytes of the serialized observation (also bounded by the caller's `maxBytes`). */
  readonly maxBytes: number
}

/** Default item, text and byte bounds of the tool projectors. */
export const DEFAULT_TOOL_PROJECTION_LIMITS: ToolProjectionLimits = {
  maxItems: 8,
  maxExcerptChars: 1200,
  maxMessageChars: 400,
  maxPatterns: 20,
  maxEvents: 30,
  maxRows: 50,
  maxCellChars: 256,
  maxBytes: 16 * 1024
}

const KEYS = Object.keys(DEFAULT_TOOL_PROJECTION_LIMITS) as ReadonlyArray<keyof ToolProjectionLimits>

/**
 * Defaults overridden by `overrides`. Every limit must be a non-negative integer (character and
 * byte limits), throws `RangeError` otherwise: a misconfiguration, found when the projector is made.
 */
export const resolveLimits = (overrides: Partial<ToolProjectionLimits> = {}): ToolProjectionLimits => {
  const limits = { ...DEFAULT_TOOL_PROJECTION_LIMITS, ...overrides }
  for (const key of KEYS) {
    const value = limits[key]
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`ToolProjectionLimits.${key} must be a non-negative integer`)
    }
  }
  return limits
}

/**
 * UTF-8 byte length of a string (a lone surrogate counts 3).
 * @deprecated Use `utf8Bytes` from `@aiops-harness/core` (the one byte counter).
 */
export const utf8Length: (text: string) => number = utf8Bytes

/**
 * UTF-8 bytes of `JSON.stringify(value)`.
 * @deprecated Use `jsonBytes` from `@aiops-harness/core` (the one byte counter).
 */
export const serializedBytes: (value: unknown) => number = jsonBytes

/**
 * Cut `text` to at most `max` UTF-16 code units without splitting a surrogate pair.
 * Returns the text unchanged when it fits.
 */
export const cutText = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = max
  const last = text.charCodeAt(end - 1)
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--
  return text.slice(0, end)
}

/** A list inside an observation that the byte bound may shorten from its end. */
export interface DroppableList {
  readonly items: ReadonlyArray<unknown>
  /** Items that must stay for the observation to be valid (usually 0). */
  readonly min?: number
}

/** How much of each droppable list fits the byte bound. */
export interface Bounded {
  /** How many items of each droppable list fit, in the order given. */
  readonly counts: ReadonlyArray<number>
  /** True when the byte bound dropped at least one item. */
  readonly dropped: boolean
  readonly bytes: number
}

/**
 * The byte-exact bounding step shared by every projector. `build(counts)` makes the observation
 * keeping the first `counts[i]` items of `lists[i]`. Items are dropped from the end of the first
 * list first (then the next list, ...) until `JSON.stringify(observation)` is at most `budget`
 * UTF-8 bytes. Fails with `ProjectionError` `NOTHING_FITS` when even the smallest valid
 * observation (every list at its `min`, and at least one item overall when `needsOne`) does not fit.
 *
 * Item sizes are measured once, so bounding costs O(items), not O(items^2) serializations; the
 * result is then checked with one real serialization.
 */
export const boundToBytes = (
  lists: ReadonlyArray<DroppableList>,
  build: (counts: ReadonlyArray<number>) => unknown,
  budget: number,
  needsOne: boolean
): Bounded | ProjectionError => {
  const counts = lists.map((list) => list.items.length)
  const full = jsonBytes(build(counts))
  if (full <= budget) return { counts, dropped: false, bytes: full }

  // Size arithmetic: an array of k items serializes to `[` + items joined by `,` + `]`.
  const sizes = lists.map((list) => list.items.map((item) => jsonBytes(item)))
  let total = full
  for (let l = 0; l < lists.length && total > budget; l++) {
    const min = lists[l]!.min ?? 0
    const itemSizes = sizes[l]!
    while (counts[l]! > min && total > budget) {
      const k = counts[l]!
      total -= itemSizes[k - 1]! + (k > 1 ? 1 : 0)
      counts[l] = k - 1
    }
  }
  // Verify with the real serialization; keep dropping if the arithmetic was off.
  let bytes = jsonBytes(build(counts))
  for (let l = 0; l < lists.length && bytes > budget; l++) {
    const min = lists[l]!.min ?? 0
    while (counts[l]! > min && bytes > budget) {
      counts[l] = counts[l]! - 1
      bytes = jsonBytes(build(counts))
    }
  }
  const kept = counts.reduce((a, b) => a + b, 0)
  if (bytes > budget || (needsOne && kept === 0)) {
    return new ProjectionError({ reason: "NOTHING_FITS", detail: `budget ${budget} bytes` })
  }
  return { counts, dropped: true, bytes }
}
