import { encodeInvocation, rememberJsonText } from "@aiops-harness/core"
import { errorRecord, projectingRecord, readyRecord } from "@aiops-harness/core/testing"
import { describe, expect, it } from "vitest"
import { COMPRESSED_MAGIC, decodeStored, encodeStored } from "../src/redis/encoding.js"
import { evaluateEvictionPolicy } from "../src/redis/eviction.js"
import { PROJECTING_SUFFIX } from "../src/redis/transition-script.js"

describe("stored record encoding", () => {
  const json = JSON.stringify({ status: "READY", rawResponse: { lines: Array(500).fill("timeout to db") } })

  it("terminal records above the threshold are compressed behind a header with their status", () => {
    const stored = encodeStored(json, { status: "READY", compressAboveBytes: 100 })
    expect(Buffer.isBuffer(stored)).toBe(true)
    const bytes = stored as Buffer
    expect(bytes.subarray(0, 10).toString("latin1")).toBe(`${COMPRESSED_MAGIC}READY\n`)
    expect(bytes.length).toBeLessThan(json.length / 5)
    expect(decodeStored(bytes)).toBe(json)
    expect(decodeStored(encodeStored(json, { status: "ERROR", compressAboveBytes: 100 }) as Buffer)).toBe(
      json
    )
  })

  it("small records, and PROJECTING records of any size, are stored as JSON text", () => {
    expect(encodeStored(json, { status: "READY", compressAboveBytes: json.length })).toBe(json)
    expect(encodeStored(json, { status: "PROJECTING", compressAboveBytes: 1 })).toBe(json)
    expect(decodeStored(Buffer.from(json))).toBe(json)
    expect(decodeStored(Buffer.alloc(0))).toBe("")
  })

  it("a damaged compressed value decodes to null", () => {
    const good = encodeStored(json, { status: "READY", compressAboveBytes: 1 }) as Buffer
    expect(decodeStored(good.subarray(0, good.length - 10))).toBeNull()
    expect(decodeStored(Buffer.from("\u0000Z2:READY\nxx", "latin1"))).toBeNull()
    expect(decodeStored(Buffer.from("\u0000Z1:READY", "latin1"))).toBeNull()
    expect(decodeStored(Buffer.from("\u0000", "latin1"))).toBeNull()
  })
})

describe("evaluateEvictionPolicy", () => {
  it("noeviction refuses writes (with or without maxmemory); evicting policies are fine", () => {
    expect(evaluateEvictionPolicy("noeviction", 1 << 30)).toMatchObject({ refusesWrites: true })
    expect(evaluateEvictionPolicy("noeviction", 1 << 30).warning).toContain("OOM")
    expect(evaluateEvictionPolicy("noeviction", 0).warning).toContain("no maxmemory")
    expect(evaluateEvictionPolicy("volatile-ttl", 1 << 30)).toEqual({
      policy: "volatile-ttl",
      maxmemoryBytes: 1 << 30,
      refusesWrites: false,
      warning: null
    })
    expect(evaluateEvictionPolicy(null, null)).toMatchObject({ refusesWrites: false, policy: null })
  })
})

describe("PROJECTING_SUFFIX (the transition script's fast check)", () => {
  const projecting = projectingRecord()
  // A backend can return anything, even fields that look like a PROJECTING record's tail.
  const hostileRaw = { x: 1, status: "PROJECTING", evidenceStatus: null }

  it("ends every PROJECTING record the store writes", () => {
    expect(encodeInvocation(projecting).endsWith(PROJECTING_SUFFIX)).toBe(true)
    const other = projectingRecord({ request: { status: "PROJECTING", evidenceStatus: null } })
    expect(encodeInvocation(other).endsWith(PROJECTING_SUFFIX)).toBe(true)
  })

  it("ends no READY or ERROR record, even with a raw response that mimics it (spliced or not)", () => {
    const ready = { ...readyRecord(projecting), rawResponse: hostileRaw }
    const spliced = { ...readyRecord(projecting), rawResponse: { ...hostileRaw } }
    rememberJsonText(spliced.rawResponse, JSON.stringify(spliced.rawResponse))
    const texts = [
      encodeInvocation(ready),
      encodeInvocation(spliced),
      encodeInvocation(errorRecord(projecting))
    ]
    expect(texts[1]).toContain(`"rawResponse":${JSON.stringify(hostileRaw)}}`)
    for (const text of texts) expect(text.endsWith(PROJECTING_SUFFIX)).toBe(false)
  })
})
