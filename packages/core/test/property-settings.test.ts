import fc from "fast-check"
import { afterEach, describe, expect, it } from "vitest"
import { configureFastCheck, propertyTestSettings, seedFromCommit, seedReport } from "../src/testing/index.js"

const noGit = () => undefined

describe("propertyTestSettings", () => {
  it("derives the seed from the commit under test (CI variables first, then git)", () => {
    const sha = "9fceb02d0ae598e95dc970b74767f19372d61af8"
    expect(propertyTestSettings({ GITHUB_SHA: sha }, noGit)).toEqual({
      seed: seedFromCommit(sha),
      source: "commit 9fceb02d0ae5",
      fuzz: false,
      runsFactor: 1
    })
    expect(propertyTestSettings({ CI_COMMIT_SHA: sha }, noGit).seed).toBe(seedFromCommit(sha))
    expect(propertyTestSettings({}, () => sha).seed).toBe(seedFromCommit(sha))
    expect(seedFromCommit(sha)).toBe(0x9fceb02d | 0)
  })

  it("is the same for the same commit and differs between commits", () => {
    const a = propertyTestSettings({}, () => "0123456789abcdef0123456789abcdef01234567")
    const b = propertyTestSettings({}, () => "0123456789abcdef0123456789abcdef01234567")
    const c = propertyTestSettings({}, () => "fedcba9876543210fedcba9876543210fedcba98")
    expect(a.seed).toBe(b.seed)
    expect(a.seed).not.toBe(c.seed)
  })

  it("falls back to a constant without git or with a non-hex head", () => {
    expect(propertyTestSettings({}, noGit)).toMatchObject({ seed: 0x5eed, source: "default" })
    expect(propertyTestSettings({}, () => "not-a-sha")).toMatchObject({ seed: 0x5eed, source: "default" })
    expect(seedFromCommit("zz")).toBe(0x5eed)
  })

  it("replays FC_SEED, and rejects one that is not a 32-bit integer", () => {
    expect(propertyTestSettings({ FC_SEED: "-1234", GITHUB_SHA: "abcdef0123" }, noGit)).toMatchObject({
      seed: -1234,
      source: "FC_SEED"
    })
    expect(() => propertyTestSettings({ FC_SEED: "12ab" }, noGit)).toThrow(RangeError)
    expect(() => propertyTestSettings({ FC_SEED: "99999999999" }, noGit)).toThrow(/32-bit integer/)
  })

  it("uses a random seed and more runs in fuzz runs", () => {
    const fuzz = propertyTestSettings({ FC_FUZZ: "1" }, noGit)
    expect(fuzz).toMatchObject({ source: "random", fuzz: true, runsFactor: 10 })
    expect(Number.isInteger(fuzz.seed)).toBe(true)
    expect(propertyTestSettings({ FC_FUZZ: "true", FC_RUNS_FACTOR: "3" }, noGit).runsFactor).toBe(3)
    expect(propertyTestSettings({ FC_FUZZ: "1", FC_RUNS_FACTOR: "-2" }, noGit).runsFactor).toBe(10)
    expect(propertyTestSettings({ FC_FUZZ: "1", FC_SEED: "7" }, noGit)).toMatchObject({ seed: 7, fuzz: true })
  })

  it("says how to replay a failing seed", () => {
    const settings = propertyTestSettings({ FC_SEED: "42" }, noGit)
    expect(seedReport(42, settings)).toContain("FC_SEED=42")
    expect(seedReport(42, settings)).toContain("table row")
  })
})

describe("configureFastCheck", () => {
  const before = fc.readConfigureGlobal()
  afterEach(() => fc.configureGlobal(before))

  it("runs properties with the settings' seed and puts the replay line in a failure", () => {
    const settings = propertyTestSettings({ FC_SEED: "12345" }, noGit)
    expect(configureFastCheck(fc, settings)).toBe(settings)
    expect(fc.readConfigureGlobal()).toMatchObject({ seed: 12345, numRuns: 100 })
    const failing = () => fc.assert(fc.property(fc.integer(), (n) => n < 10))
    expect(failing).toThrow(/fast-check seed 12345 \(FC_SEED\)\. Replay: FC_SEED=12345 pnpm test/)
  })
})
