import { describe, expect, it } from "vitest"
import { doublingTtls, JUDGED, judgeAtGrowingTtls } from "../src/testing/ttl-attempts.js"

describe("judgeAtGrowingTtls (the conformance suite's TTL retries)", () => {
  it("stops at the first judged attempt; TTLs double", async () => {
    const tried: number[] = []
    await judgeAtGrowingTtls(doublingTtls(250, 5), async (ttl) => {
      tried.push(ttl)
      return ttl < 1_000 ? "too slow" : JUDGED
    })
    expect(tried).toEqual([250, 500, 1_000])
  })

  it("fails with every reason when no TTL gives a verdict (never a silent pass)", async () => {
    await expect(judgeAtGrowingTtls([10, 20], async (ttl) => `late at ${ttl}`)).rejects.toThrow(
      "TTL 10 ms: late at 10; TTL 20 ms: late at 20"
    )
  })

  it("a failed assertion fails at once, without a retry", async () => {
    const tried: number[] = []
    const failing = judgeAtGrowingTtls([10, 20], async (ttl) => {
      tried.push(ttl)
      throw new Error("record still there")
    })
    await expect(failing).rejects.toThrow("record still there")
    expect(tried).toEqual([10])
  })
})
