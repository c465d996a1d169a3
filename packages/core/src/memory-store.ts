import { Clock, Effect, Layer, Option, type Scope } from "effect"
import { InvocationAlreadyExists, InvocationNotFound, RecordTooLarge, StoreError } from "./errors.js"
import {
  type CanonicalInvocation,
  checkTransition,
  encodeInvocation,
  parseCanonicalInvocation
} from "./invocation.js"
import { utf8Bytes } from "./json.js"
import {
  type CanonicalInvocationStoreShape,
  CanonicalInvocationStore,
  type CanonicalStoreConfig,
  canonicalInvocationKey,
  defaultCanonicalStoreConfig,
  isValidKeyPrefix
} from "./store.js"

interface Entry {
  readonly json: string
  readonly bytes: number
  readonly expiresAt: number
}

/** Bounds of the in-memory store (a process must not grow without limit). */
export interface InMemoryStoreLimits {
  /** Most records held at once (default 100,000): one more is `StoreError` `FULL`. */
  readonly maxEntries: number
  /** Most UTF-8 bytes of records held at once (default 256 MiB): past it, `StoreError` `FULL`. */
  readonly maxBytes: number
  /** How often the scoped store sweeps expired records when idle (default 60 s). */
  readonly sweepIntervalMs: number
}

/** Default bounds of the in-memory store (entries, bytes, sweep interval). */
export const defaultInMemoryStoreLimits: InMemoryStoreLimits = {
  maxEntries: 100_000,
  maxBytes: 256 * 1024 * 1024,
  sweepIntervalMs: 60_000
}

/** Configuration of the in-memory store: the common store config plus its bounds. */
export type InMemoryCanonicalStoreConfig = CanonicalStoreConfig & InMemoryStoreLimits

/** Records and serialized bytes an in-memory store holds. */
export interface InMemoryStoreStats {
  readonly entries: number
  readonly bytes: number
}

/** The canonical invocation store operations plus in-memory stats and sweeping. */
export interface InMemoryCanonicalStoreShape extends CanonicalInvocationStoreShape {
  /** Records and bytes held now (expired records not yet swept included). */
  readonly stats: Effect.Effect<InMemoryStoreStats>
  /** Drops every expired record now; returns how many. */
  readonly sweep: Effect.Effect<number>
}

const full = (operation: "create" | "transition", record: { runId: string; toolCallId: string }) =>
  new StoreError({ operation, reason: "FULL", runId: record.runId, toolCallId: record.toolCallId })

/**
 * In-memory canonical store with the real semantics, driven by Effect's Clock (so
 * `TestClock` controls expiry): create-if-absent, TTL set at creation, reads never renew,
 * transitions keep the remaining TTL, legal transitions only, record size limit.
 * Records are kept serialized, like Redis does, so callers never share mutable state.
 * Expired records are swept on every operation (amortized: the TTL is fixed at creation, so
 * the map's insertion order is expiry order and the sweep stops at the first live record)
 * and, in the scoped variant, by a timer while idle. Bounded by `maxEntries` and `maxBytes`.
 */
export const makeInMemoryCanonicalStore = (
  config: Partial<InMemoryCanonicalStoreConfig> = {}
): Effect.Effect<InMemoryCanonicalStoreShape> =>
  Effect.sync(() => {
    const { ttlMillis, maxRecordBytes, keyPrefix, maxEntries, maxBytes } = validateStoreConfig(config)
    const entries = new Map<string, Entry>()
    let bytesHeld = 0
    const remove = (key: string, entry: Entry) => {
      entries.delete(key)
      bytesHeld -= entry.bytes
    }
    const sweepAt = (now: number): number => {
      let dropped = 0
      for (const [key, entry] of entries) {
        if (entry.expiresAt > now) break
        remove(key, entry)
        dropped++
      }
      return dropped
    }
    const live = (key: string, now: number): Entry | undefined => {
      sweepAt(now)
      const entry = entries.get(key)
      if (entry && entry.expiresAt <= now) {
        remove(key, entry)
        return undefined
      }
      return entry
    }
    const decode = (json: string) => {
      const record = parseCanonicalInvocation(JSON.parse(json))
      return record !== undefined
        ? Effect.succeed(record)
        : Effect.fail(new StoreError({ operation: "get", reason: "CORRUPT_RECORD" }))
    }

    const store: InMemoryCanonicalStoreShape = {
      create: (record) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now): Effect.Effect<void, InvocationAlreadyExists | RecordTooLarge | StoreError> => {
            const key = canonicalInvocationKey(keyPrefix, record.runId, record.toolCallId)
            const json = JSON.stringify(record)
            const bytes = utf8Bytes(json)
            if (bytes > maxRecordBytes)
              return Effect.fail(new RecordTooLarge({ bytes, limit: maxRecordBytes }))
            if (live(key, now)) {
              return Effect.fail(
                new InvocationAlreadyExists({ runId: record.runId, toolCallId: record.toolCallId })
              )
            }
            if (entries.size >= maxEntries || bytesHeld + bytes > maxBytes) {
              return Effect.fail(full("create", record))
            }
            entries.set(key, { json, bytes, expiresAt: now + ttlMillis })
            bytesHeld += bytes
            return Effect.void
          }
        ),
      transition: (next) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const key = canonicalInvocationKey(keyPrefix, next.runId, next.toolCallId)
          const entry = live(key, now)
          if (!entry) return yield* new InvocationNotFound({ runId: next.runId, toolCallId: next.toolCallId })
          const current: CanonicalInvocation = yield* decode(entry.json)
          yield* checkTransition(current, next)
          const json = encodeInvocation(next)
          const bytes = utf8Bytes(json)
          if (bytes > maxRecordBytes) return yield* new RecordTooLarge({ bytes, limit: maxRecordBytes })
          if (bytesHeld - entry.bytes + bytes > maxBytes) return yield* full("transition", next)
          // Same expiresAt (and map position): a transition keeps the remaining TTL.
          entries.set(key, { json, bytes, expiresAt: entry.expiresAt })
          bytesHeld += bytes - entry.bytes
        }),
      get: (runId, toolCallId) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const entry = live(canonicalInvocationKey(keyPrefix, runId, toolCallId), now)
          if (!entry) return Option.none()
          return Option.some(yield* decode(entry.json))
        }),
      stats: Effect.sync(() => ({ entries: entries.size, bytes: bytesHeld })),
      sweep: Effect.map(Clock.currentTimeMillis, sweepAt)
    }
    return store
  })

/** The store plus a timer (in the current scope) that sweeps it every `sweepIntervalMs` while idle. */
export const makeScopedInMemoryCanonicalStore = (
  config: Partial<InMemoryCanonicalStoreConfig> = {}
): Effect.Effect<InMemoryCanonicalStoreShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { sweepIntervalMs } = validateStoreConfig(config)
    const store = yield* makeInMemoryCanonicalStore(config)
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(sweepIntervalMs), store.sweep)))
    return store
  })

/** Checks a store configuration eagerly: a bad one is a programming error (`TypeError`/`RangeError`). */
export const validateStoreConfig = (
  config: Partial<InMemoryCanonicalStoreConfig>
): InMemoryCanonicalStoreConfig => {
  const merged = { ...defaultCanonicalStoreConfig, ...defaultInMemoryStoreLimits, ...config }
  if (!isValidKeyPrefix(merged.keyPrefix)) {
    throw new TypeError("canonical store: keyPrefix must match [A-Za-z0-9_.:-]{1,64} (no hash-tag braces)")
  }
  if (!(merged.ttlMillis > 0) || !(merged.maxRecordBytes > 0)) {
    throw new RangeError("canonical store: ttlMillis and maxRecordBytes must be positive")
  }
  if (!(merged.maxEntries > 0) || !(merged.maxBytes > 0) || !(merged.sweepIntervalMs > 0)) {
    throw new RangeError("canonical store: maxEntries, maxBytes and sweepIntervalMs must be positive")
  }
  return merged
}

/** In-memory, bounded canonical invocation store: constructors and layer. */
export const InMemoryCanonicalStore = {
  /** Makes the store without a sweep timer (see `makeInMemoryCanonicalStore`). */
  make: makeInMemoryCanonicalStore,
  /** Makes the store with a sweep timer in the current scope (see `makeScopedInMemoryCanonicalStore`). */
  scoped: makeScopedInMemoryCanonicalStore,
  /** The scoped store (sweep timer included) as the `CanonicalInvocationStore`. */
  layer: (config: Partial<InMemoryCanonicalStoreConfig> = {}) => {
    validateStoreConfig(config)
    return Layer.effect(CanonicalInvocationStore, makeScopedInMemoryCanonicalStore(config))
  }
}
