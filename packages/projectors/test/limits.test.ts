import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  boundToBytes,
  cutText,
  DEFAULT_TOOL_PROJECTION_LIMITS,
  resolveLimits,
  serializedBytes,
  utf8Length
} from "../src/index.js"

describe("limits", () => {
  it("defaults and overrides", () => {
    expect(resolveLimits()).toEqual(DEFAULT_TOOL_PROJECTION_LIMITS)
    expect(resolveLimits({ maxRows: 3 }).maxRows).toBe(3)
  })

  it.each([-1, 1.5, Number.NaN])("rejects a limit of %s", (value) => {
    expect(() => resolveLimits({ maxBytes: value })).toThrow(RangeError)
  })

  it("utf8Length matches TextEncoder", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length)
      })
    )
  })

  it("cutText never splits a surrogate pair", () => {
    expect(cutText("ab😀cd", 3)).toBe("ab")
    expect(cutText("abc", 5)).toBe("abc")
  })

  it("boundToBytes drops from the end of the first list first and is byte-exact", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 30 }), { maxLength: 20 }),
        fc.array(fc.string({ maxLength: 30 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 800 }),
        (a, b, budget) => {
          const build = (counts: ReadonlyArray<number>) => ({
            head: "x",
            a: a.slice(0, counts[0]),
            b: b.slice(0, counts[1])
          })
          const out = boundToBytes([{ items: a }, { items: b }], build, budget, a.length + b.length > 0)
          if ("counts" in out) {
            expect(serializedBytes(build(out.counts))).toBeLessThanOrEqual(budget)
            expect(out.bytes).toBe(serializedBytes(build(out.counts)))
            expect(out.dropped).toBe(out.counts[0]! < a.length || out.counts[1]! < b.length)
            if (out.counts[1]! < b.length) expect(out.counts[0]).toBe(0)
            // Maximal: one more item of the list being cut would not fit.
            if (out.counts[0]! < a.length && out.counts[1] === b.length) {
              expect(serializedBytes(build([out.counts[0]! + 1, out.counts[1]!]))).toBeGreaterThan(budget)
            }
          } else {
            expect(out.reason).toBe("NOTHING_FITS")
          }
        }
      )
    )
  })
})
