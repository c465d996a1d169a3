import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { type EvalQuestion, type EvalSet, grade, evalOutcomeOf, parseEvalSet, runEval } from "../src/eval.js"

const read = (name: string): EvalSet =>
  parseEvalSet(
    JSON.parse(readFileSync(fileURLToPath(new URL(`../../../scripts/eval/${name}`, import.meta.url)), "utf8"))
  )

describe("the eval:diagnosis question sets", () => {
  const own = read("diagnosis-questions.json")
  const heldOut = read("diagnosis-heldout.json")

  it("parse, and cover every outcome and scenario", () => {
    expect(own.questions.length).toBeGreaterThanOrEqual(40)
    expect(heldOut.questions.length).toBeGreaterThanOrEqual(15)
    for (const set of [own, heldOut]) {
      const outcomes = new Set(set.questions.map((q) => q.expect))
      for (const o of ["report", "no_problem", "window_unsearchable", "refusal"])
        expect(outcomes).toContain(o)
    }
    expect(new Set(own.questions.map((q) => q.scenario)).size).toBe(5)
  })

  it("never share a question (the held-out set stays unseen)", () => {
    const seen = new Set(own.questions.map((q) => `${q.scenario}|${q.question.toLowerCase()}`))
    expect(heldOut.questions.filter((q) => seen.has(`${q.scenario}|${q.question.toLowerCase()}`))).toEqual([])
  })

  it("a malformed set is an error naming the entry", () => {
    expect(() => parseEvalSet({ description: "", now: "2026-03-15T13:30:00Z", questions: [{}] })).toThrow(
      /questions\.0/
    )
    expect(() =>
      parseEvalSet({
        description: "",
        now: "2026-03-15T13:30:00Z",
        questions: [{ scenario: "calm", question: "q", expect: "report", cause: "(", services: ["a"] }]
      })
    ).toThrow(SyntaxError)
  })

  it("runs a handful of cases end to end with the offline model", async () => {
    const pick = (set: EvalSet, texts: ReadonlyArray<string>): EvalSet => ({
      ...set,
      questions: set.questions.filter((q) => texts.includes(q.question))
    })
    const subset = pick(own, [
      "why is the cart timing out on redis?",
      "is payments healthy?",
      "why did checkout fail at 13:20 CET?",
      "why did latency spike on orders at 13:10?",
      "write a python function that reverses a string"
    ])
    expect(subset.questions).toHaveLength(5)
    const { rows, accuracy } = await runEval(subset)
    expect(rows.map((r) => [r.question.question, r.grade.outcome, r.grade.why])).toEqual([
      ["why did checkout fail at 13:20 CET?", "no_problem", ""],
      ["why did latency spike on orders at 13:10?", "report", ""],
      ["why is the cart timing out on redis?", "report", ""],
      ["is payments healthy?", "no_problem", ""],
      ["write a python function that reverses a string", "refusal", ""]
    ])
    expect(accuracy).toBe(1)
  })
})

describe("grading", () => {
  const report: EvalQuestion = {
    scenario: "calm",
    question: "q",
    expect: "report",
    cause: "redis",
    services: ["a-service"]
  }
  it.each([
    [{ releaseResult: "DIAGNOSIS_REPORT", content: "x a-service", report: { summary: "Redis" } }, true, ""],
    [
      { releaseResult: "DIAGNOSIS_REPORT", content: "x", report: { summary: "Redis" } },
      false,
      "report does not name a-service"
    ],
    [
      { releaseResult: "DIAGNOSIS_REPORT", content: "a-service", report: { summary: "pool" } },
      false,
      "summary does not name the cause /redis/"
    ],
    [
      { releaseResult: "CANNOT_CONCLUDE", content: "Cannot conclude", report: null },
      false,
      "expected report, got cannot_conclude"
    ]
  ] as const)("%j -> %s", (result, pass, why) => {
    expect(grade(report, result)).toMatchObject({ pass, why })
  })

  it("tells the bounded no-problem answer from cannot-conclude, and failed runs apart", () => {
    expect(
      evalOutcomeOf({
        releaseResult: "CANNOT_CONCLUDE",
        content: "No problem found in the scopes checked: …"
      })
    ).toBe("no_problem")
    expect(evalOutcomeOf({ releaseResult: "CANNOT_CONCLUDE", content: "Cannot conclude: …" })).toBe(
      "cannot_conclude"
    )
    expect(
      evalOutcomeOf({
        releaseResult: "CANNOT_CONCLUDE",
        content:
          "Cannot conclude: …\nRetention: the logs start at X; the searched window lies entirely before that, so nothing in it could be checked."
      })
    ).toBe("window_unsearchable")
    expect(evalOutcomeOf({ releaseResult: "RUN_FAILED", content: "" })).toBe("failed")
    expect(evalOutcomeOf({ releaseResult: "NOT_A_DIAGNOSIS", content: "" })).toBe("refusal")
  })
})
