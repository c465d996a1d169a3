import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { InMemoryCanonicalStore } from "../src/index.js"
import { canonicalStoreConformance } from "../src/testing/conformance.js"

canonicalStoreConformance({
  name: "in-memory (TestClock)",
  layer: () => InMemoryCanonicalStore.layer({ ttlMillis: 60_000, maxRecordBytes: 4096 }),
  ttlMillis: 60_000,
  maxRecordBytes: 4096,
  advance: (millis) => TestClock.adjust(millis),
  wrap: (program) => Effect.provide(program, TestClock.layer())
})
