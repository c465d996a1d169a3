/**
 * The diagnosis eval (`pnpm eval:diagnosis`): a question set over the demo scenarios, each with
 * the outcome an on-call engineer expects, run through the whole app (router, agent, guards,
 * release) with the configured model, graded and summed up as `accuracy=`.
 */
import type { DiagnosisResult } from "@aiops-harness/agent"
import { z } from "zod"
import { loadConfig } from "./config.js"
import { SCENARIO_IDS, type ScenarioId } from "./demo/index.js"
import { diagnose } from "./diagnose.js"
import { makeAppRuntime } from "./runtime.js"

export const EvalQuestionSchema = z.discriminatedUnion("expect", [
  z.strictObject({
    scenario: z.enum(SCENARIO_IDS),
    question: z.string().min(1).max(2000),
    expect: z.literal("report"),
    /** Regular expression (case-insensitive) the report's summary must match: the cause. */
    cause: z.string().min(1),
    /** Services the released report must name. */
    services: z.array(z.string().min(1)).min(1)
  }),
  z.strictObject({
    scenario: z.enum(SCENARIO_IDS),
    question: z.string().min(1).max(2000),
    expect: z.enum(["no_problem", "window_unsearchable", "refusal"])
  })
])
export type EvalQuestion = z.output<typeof EvalQuestionSchema>

export const EvalSetSchema = z.strictObject({
  description: z.string(),
  /** The run's clock (ISO 8601): the demo logs cover the 60 minutes before it. */
  now: z.iso.datetime({ offset: true }),
  questions: z.array(EvalQuestionSchema).min(1)
})
export type EvalSet = z.output<typeof EvalSetSchema>

/** Parses a question-set file's JSON; throws a readable error naming the bad entry. */
export const parseEvalSet = (json: unknown): EvalSet => {
  const parsed = EvalSetSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`invalid question set at ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? "?"}`)
  }
  for (const q of parsed.data.questions) if (q.expect === "report") new RegExp(q.cause, "i")
  return parsed.data
}

/** The prefix of the bounded no-problem answer (see `@aiops-harness/agent` `noProblemAnswer`). */
export const NO_PROBLEM_PREFIX = "No problem found"

export type EvalOutcome =
  | "report"
  | "no_problem"
  | "window_unsearchable"
  | "cannot_conclude"
  | "refusal"
  | "failed"

/** The notes of a window the tools could not search at all (out of reach, or before retention). */
const UNSEARCHABLE = /that window could not be searched|nothing in it could be checked/

export const evalOutcomeOf = (result: Pick<DiagnosisResult, "releaseResult" | "content">): EvalOutcome =>
  result.releaseResult === "DIAGNOSIS_REPORT"
    ? "report"
    : result.releaseResult === "NOT_A_DIAGNOSIS"
      ? "refusal"
      : result.releaseResult === "RUN_FAILED"
        ? "failed"
        : result.content.startsWith(NO_PROBLEM_PREFIX)
          ? "no_problem"
          : UNSEARCHABLE.test(result.content)
            ? "window_unsearchable"
            : "cannot_conclude"

export interface Grade {
  readonly pass: boolean
  readonly outcome: EvalOutcome
  /** Why it missed (empty when it passed). */
  readonly why: string
}

/** Grades one result: the expected outcome, and for a report its cause and every named service. */
export const grade = (
  q: EvalQuestion,
  result: Pick<DiagnosisResult, "releaseResult" | "content"> & {
    readonly report: { readonly summary: string } | null
  }
): Grade => {
  const outcome = evalOutcomeOf(result)
  if (outcome !== q.expect) return { pass: false, outcome, why: `expected ${q.expect}, got ${outcome}` }
  if (q.expect !== "report") return { pass: true, outcome, why: "" }
  const summary = result.report?.summary ?? ""
  if (!new RegExp(q.cause, "i").test(summary))
    return { pass: false, outcome, why: `summary does not name the cause /${q.cause}/` }
  const missing = q.services.filter((s) => !result.content.toLowerCase().includes(s.toLowerCase()))
  if (missing.length > 0) return { pass: false, outcome, why: `report does not name ${missing.join(", ")}` }
  return { pass: true, outcome, why: "" }
}

export interface EvalRow {
  readonly question: EvalQuestion
  readonly grade: Grade
  readonly summary: string
}

/**
 * Runs every question of a set on a fresh demo world per scenario (clock at the set's `now`),
 * with the model `env` configures (offline by default).
 */
export const runEval = async (
  set: EvalSet,
  env: Readonly<Record<string, string | undefined>> = {}
): Promise<{ readonly rows: ReadonlyArray<EvalRow>; readonly accuracy: number }> => {
  const now = Date.parse(set.now)
  const rows: EvalRow[] = []
  const scenarios = [...new Set(set.questions.map((q) => q.scenario))] as ScenarioId[]
  for (const scenario of scenarios) {
    const runtime = makeAppRuntime(loadConfig({ ...env, SCENARIO: scenario }), { now })
    try {
      for (const q of set.questions.filter((x) => x.scenario === scenario)) {
        const { result } = await runtime.runPromise(diagnose({ question: q.question }))
        rows.push({
          question: q,
          grade: grade(q, result),
          summary: (result.report?.summary ?? result.content).split("\n")[0]!.slice(0, 240)
        })
      }
    } finally {
      await runtime.dispose()
    }
  }
  const passed = rows.filter((r) => r.grade.pass).length
  return { rows, accuracy: rows.length === 0 ? 0 : passed / rows.length }
}
