import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CanonicalInvocationSchema, parseCanonicalInvocation, TOOL_ERROR_CODES } from "../src/index.js"

// The seed is fixed per commit by the setup file (configureFastCheck).

const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,20}$/)
// Mostly valid: the mutations below make near-records out of them.
const count = fc.oneof(
  { arbitrary: fc.nat(), weight: 20 },
  fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 53, -1, 1.5, -0)
)
const json = fc.jsonValue({ maxDepth: 2 })
const identity = fc.record({
  runId: id,
  sessionId: id,
  toolCallId: id,
  toolName: fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 8 }), weight: 10 },
    fc.string({ minLength: 127, maxLength: 129 })
  ),
  stepId: fc.option(id, { nil: null }),
  request: json,
  requestBytes: count,
  createdAt: count,
  updatedAt: count
})
const projecting = identity.map((i) => ({ ...i, status: "PROJECTING", evidenceStatus: null }))
const ready = fc
  .tuple(
    identity,
    fc.record({
      evidenceStatus: fc.constantFrom("EVIDENCE_FOUND", "NO_EVIDENCE"),
      rawResponse: json,
      rawBytes: count,
      agentResult: fc.dictionary(fc.string(), json),
      projectionBytes: count,
      truncated: fc.boolean()
    })
  )
  .map(([i, r]) => ({ ...i, status: "READY", ...r }))
const errored = fc
  .tuple(identity, fc.constantFrom(...TOOL_ERROR_CODES))
  .map(([i, errorCode]) => ({ ...i, status: "ERROR", evidenceStatus: "ERROR", errorCode }))
const record = fc.oneof(projecting, ready, errored)

const FIELDS = [
  "runId",
  "sessionId",
  "toolCallId",
  "toolName",
  "stepId",
  "request",
  "requestBytes",
  "createdAt",
  "updatedAt",
  "status",
  "evidenceStatus",
  "rawResponse",
  "rawBytes",
  "agentResult",
  "projectionBytes",
  "truncated",
  "errorCode"
] as const

/** A record with one field (of any status) removed or set to another value, or an extra field. */
const mutated = fc
  .tuple(
    record,
    fc.constantFrom(...FIELDS),
    fc.constantFrom("drop", "replace", "add"),
    fc.oneof(json, fc.constantFrom(null, "", "x", 0, -1, 1.5, true, false, [], {})),
    fc.string()
  )
  .map(([r, key, how, value, extra]) => {
    const copy: Record<string, unknown> = { ...r }
    if (how === "drop") delete copy[key]
    else if (how === "replace") copy[key] = value
    else copy[extra] = value
    return copy
  })

/** The schema's own answer: what the fast path must agree with. */
const bySchema = (value: unknown) => {
  const parsed = CanonicalInvocationSchema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}

describe("parseCanonicalInvocation (zod-free fast path) agrees with CanonicalInvocationSchema", () => {
  it("on generated records, near-records and any JSON (fast-check)", () => {
    fc.assert(
      fc.property(fc.oneof(record, { arbitrary: mutated, weight: 5 }, json), (value) => {
        const roundTripped = JSON.parse(JSON.stringify(value)) as unknown
        expect(parseCanonicalInvocation(roundTripped)).toEqual(bySchema(roundTripped))
      }),
      { numRuns: 800 }
    )
  })

  it("takes the fast path for a well-formed record (the value itself, not a copy)", () => {
    fc.assert(
      fc.property(record, (r) => {
        const value = JSON.parse(JSON.stringify(r)) as unknown
        if (bySchema(value) !== undefined) expect(parseCanonicalInvocation(value)).toBe(value)
      })
    )
  })

  it("keeps a __proto__ key of the agent result as data, on both paths (found by the seeded property)", () => {
    const text =
      '{"runId":"r1","sessionId":"s1","toolCallId":"c1","toolName":"t","stepId":null,"request":[],' +
      '"requestBytes":0,"createdAt":0,"updatedAt":0,"status":"READY","evidenceStatus":"EVIDENCE_FOUND",' +
      '"rawResponse":{},"rawBytes":0,"agentResult":{"__proto__":{"admin":true}},"projectionBytes":0,"truncated":false}'
    for (const record of [parseCanonicalInvocation(JSON.parse(text)), bySchema(JSON.parse(text))]) {
      const result = (record as { agentResult: Record<string, unknown> }).agentResult
      expect(Object.hasOwn(result, "__proto__")).toBe(true)
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
      expect((result as { admin?: unknown }).admin).toBeUndefined()
      expect(JSON.stringify(record)).toBe(text)
    }
  })

  it.each([
    ["an array", []],
    ["null", null],
    ["a __proto__ key", JSON.parse('{"__proto__":1}')],
    ["a status of another type", { status: 1 }]
  ])("rejects %s", (_, value) => {
    expect(parseCanonicalInvocation(value)).toBeUndefined()
  })
})
