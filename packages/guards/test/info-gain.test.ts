import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type GainObservation,
  InformationGainTracker,
  initialInformationGainState,
  stepInformationGain
} from "../src/index.js"

const found = (id: string): GainObservation => ({ evidenceStatus: "EVIDENCE_FOUND", duplicateIdentity: id })
const empty = (id: string): GainObservation => ({ evidenceStatus: "NO_EVIDENCE", duplicateIdentity: id })
const error: GainObservation = { evidenceStatus: "ERROR", duplicateIdentity: null }

describe("InformationGainTracker", () => {
  it("requires a stop on a repeated duplicate identity", () => {
    const t = new InformationGainTracker()
    expect(t.observe(found("logs:a")).stopRequired).toBe(false)
    const d = t.observe(found("logs:a"))
    expect(d).toEqual({ stopRequired: true, reason: "DUPLICATE_REQUEST", duplicate: true, noGain: true })
  })

  it("allows a configured number of duplicates", () => {
    const t = new InformationGainTracker({ duplicateLimit: 2, noGainLimit: 10 })
    t.observe(found("a"))
    expect(t.observe(found("a")).stopRequired).toBe(false)
    expect(t.observe(found("a")).reason).toBe("DUPLICATE_REQUEST")
  })

  it("requires a stop after N consecutive no-gain observations (NO_EVIDENCE or ERROR)", () => {
    const t = new InformationGainTracker({ noGainLimit: 3 })
    expect(t.observe(empty("a")).stopRequired).toBe(false)
    expect(t.observe(error).stopRequired).toBe(false)
    const d = t.observe(empty("b"))
    expect(d.reason).toBe("NO_GAIN")
    // sticky
    expect(t.observe(found("c")).stopRequired).toBe(true)
  })

  it("resets the no-gain count on new evidence", () => {
    const t = new InformationGainTracker({ noGainLimit: 2 })
    t.observe(empty("a"))
    t.observe(found("b"))
    expect(t.observe(empty("c")).stopRequired).toBe(false)
    expect(t.observe(error).reason).toBe("NO_GAIN")
    expect(t.state.consecutiveNoGain).toBe(2)
  })

  it("rejects invalid thresholds", () => {
    expect(() => new InformationGainTracker({ noGainLimit: 0 })).toThrow(RangeError)
    expect(() => new InformationGainTracker({ duplicateLimit: 1.5 })).toThrow(RangeError)
  })

  it("property: without duplicates it stops exactly when N consecutive no-gain observations occurred", () => {
    const status = fc.constantFrom("EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR") as fc.Arbitrary<
      GainObservation["evidenceStatus"]
    >
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(status, { maxLength: 40 }), (n, statuses) => {
        let state = initialInformationGainState
        let run = 0
        let stoppedAt: number | null = null
        statuses.forEach((s, i) => {
          const step = stepInformationGain(
            state,
            { evidenceStatus: s, duplicateIdentity: s === "ERROR" ? null : `id-${i}` },
            { noGainLimit: n, duplicateLimit: 1 }
          )
          state = step.state
          run = s === "EVIDENCE_FOUND" ? 0 : run + 1
          if (stoppedAt === null) {
            // never before N consecutive no-gain observations
            expect(step.decision.stopRequired).toBe(run >= n)
            if (step.decision.stopRequired) stoppedAt = i
          } else expect(step.decision.stopRequired).toBe(true)
          if (i < n - 1) expect(step.decision.stopRequired).toBe(false)
        })
      })
    )
  })
})
