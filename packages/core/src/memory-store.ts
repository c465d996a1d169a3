import { Clock, Effect, Layer, Option } from "effect"
import { InvocationAlreadyExists, InvocationNotFound, RecordTooLarge, StoreError } from "./errors.js"
import {
  type CanonicalInvocation,
  CanonicalInvocationSchema,
  checkTransition,
  encodeInvocation
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
  readonly expiresAt: number
}

/**
 * In-memory canonical store with the real semantics, driven by Effect's Clock (so
 * `TestClock` controls expiry): create-if-absent, TTL set at creation, reads never renew,
 * transitions keep the remaining TTL, legal transitions only, record size limit.
 * Records are kept serialized, like Redis does, so callers never share mutable state.
 */
export const makeInMemoryCanonicalStore = (
  config: Partial<CanonicalStoreConfig> = {}
): Effect.Effect<CanonicalInvocationStoreShape> =>
  Effect.sync(() => {
    const { ttlMillis, maxRecordBytes, keyPrefix } = validateStoreConfig(config)
    const entries = new Map<string, Entry>()
    const live = (key: string, now: number): Entry | undefined => {
      const entry = entries.get(key)
      if (entry && entry.expiresAt <= now) {
        entries.delete(key)
        return undefined
      }
      return entry
    }
    const decode = (json: string) => {
      const parsed = CanonicalInvocationSchema.safeParse(JSON.parse(json))
      return parsed.success
        ? Effect.succeed(parsed.data)
        : Effect.fail(new StoreError({ operation: "get", reason: "CORRUPT_RECORD" }))
    }

    const store: CanonicalInvocationStoreShape = {
      create: (record) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now): Effect.Effect<void, InvocationAlreadyExists | RecordTooLarge> => {
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
            entries.set(key, { json, expiresAt: now + ttlMillis })
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
          // Same expiresAt: a transition keeps the remaining TTL.
          entries.set(key, { json, expiresAt: entry.expiresAt })
        }),
      get: (runId, toolCallId) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const entry = live(canonicalInvocationKey(keyPrefix, runId, toolCallId), now)
          if (!entry) return Option.none()
          return Option.some(yield* decode(entry.json))
        })
    }
    return store
  })

/** Checks a store configuration eagerly: a bad one is a programming error (`TypeError`/`RangeError`). */
export const validateStoreConfig = (config: Partial<CanonicalStoreConfig>): CanonicalStoreConfig => {
  const merged = { ...defaultCanonicalStoreConfig, ...config }
  if (!isValidKeyPrefix(merged.keyPrefix)) {
    throw new TypeError("canonical store: keyPrefix must match [A-Za-z0-9_.:-]{1,64} (no hash-tag braces)")
  }
  if (!(merged.ttlMillis > 0) || !(merged.maxRecordBytes > 0)) {
    throw new RangeError("canonical store: ttlMillis and maxRecordBytes must be positive")
  }
  return merged
}

export const InMemoryCanonicalStore = {
  make: makeInMemoryCanonicalStore,
  layer: (config: Partial<CanonicalStoreConfig> = {}) => {
    validateStoreConfig(config)
    return Layer.effect(CanonicalInvocationStore, makeInMemoryCanonicalStore(config))
  }
}
