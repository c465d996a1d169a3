/**
 * Differential check of the validator: a fixed-seed stream of inputs (corpora, spliced attack
 * fragments, generated and mutated SELECTs) and everything the validator returns for each
 * (the whole plan, or the rejection reason and detail). By default the digest of those outputs
 * must equal the recorded one: any change of verdict, code, detail or rendered SQL fails.
 *
 * Comparing two implementations over many inputs (issue 18: the refactor is byte-for-byte):
 *   MYSQL_DIFF_IMPL=<dist/index.js of the old build> MYSQL_DIFF_RUNS=120000 \
 *     MYSQL_DIFF_RECORD=/tmp/old.jsonl vitest run test/mysql-validator-differential.test.ts
 *   MYSQL_DIFF_RUNS=120000 MYSQL_DIFF_COMPARE=/tmp/old.jsonl vitest run test/mysql-validator-differential.test.ts
 * MYSQL_DIFF_UPDATE=1 rewrites the recorded digest (only with a changeset that records the change).
 */
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as current from "../src/mysql/index.js"
import { demoAllowlistJson } from "./fixtures/mysql-corpus.js"
import { generateInputs } from "./fixtures/mysql-generated.js"

type Validator = Pick<typeof current, "parseMysqlAllowlist" | "validateMysqlQuery">

const SEED = 18
const RUNS = Number(process.env.MYSQL_DIFF_RUNS ?? 600)
const GOLDEN = new URL("./fixtures/mysql-differential.golden.json", import.meta.url)

const outputsOf = (impl: Validator, runs: number): Array<string> => {
  const allowlist = Effect.runSync(impl.parseMysqlAllowlist(demoAllowlistJson))
  return generateInputs(SEED, runs).map((input, i) => {
    const options = input.maxRows === undefined ? undefined : { maxRows: input.maxRows }
    let out: unknown
    try {
      const r = Effect.runSync(
        Effect.result(impl.validateMysqlQuery({ datasource: "shop", sql: input.sql }, allowlist, options))
      )
      out =
        r._tag === "Success" ? { plan: r.success } : { reason: r.failure.reason, detail: r.failure.detail }
    } catch (e) {
      out = { defect: String(e) }
    }
    return JSON.stringify([i, input.sql, input.maxRows ?? null, out])
  })
}

const digest = (lines: ReadonlyArray<string>) => {
  const h = createHash("sha256")
  for (const l of lines) h.update(l).update("\n")
  return h.digest("hex")
}

const verdicts = (lines: ReadonlyArray<string>) => {
  const counts: Record<string, number> = {}
  for (const l of lines) {
    const out = JSON.parse(l)[3] as { plan?: unknown; reason?: string }
    const key = out.plan ? "ACCEPTED" : (out.reason ?? "DEFECT")
    counts[key] = (counts[key] ?? 0) + 1
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)))
}

const implementation = async (): Promise<Validator> =>
  process.env.MYSQL_DIFF_IMPL ? ((await import(process.env.MYSQL_DIFF_IMPL)) as Validator) : current

describe(`validator differential (seed ${SEED}, ${RUNS} inputs)`, () => {
  it("returns exactly the recorded outputs", { timeout: 24 * 3600_000 }, async () => {
    const lines = outputsOf(await implementation(), RUNS)
    if (process.env.MYSQL_DIFF_RECORD) {
      writeFileSync(process.env.MYSQL_DIFF_RECORD, `${lines.join("\n")}\n`)
      expect(lines).toHaveLength(RUNS)
      return
    }
    if (process.env.MYSQL_DIFF_COMPARE) {
      const old = readFileSync(process.env.MYSQL_DIFF_COMPARE, "utf8").split("\n").slice(0, RUNS)
      const differing = lines.filter((l, i) => l !== old[i])
      console.log(
        `differential: ${lines.length - differing.length}/${lines.length} identical`,
        verdicts(lines)
      )
      expect(differing.slice(0, 5)).toEqual([])
      return
    }
    const summary = { seed: SEED, runs: RUNS, digest: digest(lines), verdicts: verdicts(lines) }
    if (process.env.MYSQL_DIFF_UPDATE) writeFileSync(GOLDEN, `${JSON.stringify(summary, null, 2)}\n`)
    expect(summary).toEqual(JSON.parse(readFileSync(GOLDEN, "utf8")))
  })
})
