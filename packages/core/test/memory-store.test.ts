import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import {
  encodeInvocation,
  InMemoryCanonicalStore,
  rememberedJsonText,
  rememberJsonText,
  utf8Bytes
} from "../src/index.js"
import { canonicalStoreConformance } from "../src/testing/conformance.js"
import { projectingRecord, readyRecord } from "../src/testing/fixtures.js"

canonicalStoreConformance({
  name: "in-memory (TestClock)",
  layer: () => InMemoryCanonicalStore.layer({ ttlMillis: 60_000, maxRecordBytes: 4096 }),
  ttlMillis: 60_000,
  maxRecordBytes: 4096,
  advance: (millis) => TestClock.adjust(millis),
  wrap: (program) => Effect.provide(program, TestClock.layer())
})

describe("encodeInvocation and utf8Bytes", () => {
  it("splices a remembered raw text; the result parses to the same record", () => {
    const base = projectingRecord()
    const raw = { hits: [{ id: "x", text: "é\u{1F600}" }] }
    const ready = { ...readyRecord(base), rawResponse: raw }
    expect(JSON.parse(encodeInvocation(ready))).toEqual(JSON.parse(JSON.stringify(ready)))
    rememberJsonText(raw, JSON.stringify(raw))
    const spliced = encodeInvocation(ready)
    expect(spliced).toContain(`"rawResponse":${JSON.stringify(raw)}`)
    expect(JSON.parse(spliced)).toEqual(JSON.parse(JSON.stringify(ready)))
    expect(rememberedJsonText(raw)).toBe(JSON.stringify(raw))
    expect(rememberedJsonText("text")).toBeUndefined()
    rememberJsonText("text", JSON.stringify("text"))
    expect(encodeInvocation(base)).toBe(JSON.stringify(base))
  })

  it("utf8Bytes counts as TextEncoder writes (lone surrogates as 3 bytes)", () => {
    for (const text of ["", "abc", "é", "\u{1F600}", "\ud800", "a\udc00b", "€".repeat(100)]) {
      expect(utf8Bytes(text)).toBe(new TextEncoder().encode(text).length)
    }
  })
})
