/**
 * Differential check of the validator: a fixed-seed stream of inputs (corpora, spliced attack
 * fragments, generated and mutated SELECTs) and everything the validator returns for each
 * (the whole plan, or the rejection reason and detail). By default the digest of those outputs
 * must equal the recorded one: any change of verdict, code, detail or rendered SQL fails.
 *
 * Comparing two implementations over many inputs (issue 18: the refactor is byte-for-byte), in
 * one process that parses each statement once for both (node-sql-parser is the same module):
 *   MYSQL_DIFF_AGAINST=<dist/index.js of the old build> MYSQL_DIFF_RUNS=120000 [MYSQL_DIFF_SHARD=0/3] \
 *     vitest run test/mysql-validator-differential.test.ts
 * MYSQL_DIFF_UPDATE=1 rewrites the recorded digest (only with a changeset that records the change).
 */
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { Effect } from "effect"
import NodeSqlParser from "node-sql-parser/build/mysql.js"
import { describe, expect, it } from "vitest"
import * as current from "../src/mysql/index.js"
import type { MysqlAllowlist } from "../src/mysql/index.js"
import { demoAllowlistJson } from "./fixtures/mysql-corpus.js"
import { type GeneratedInput, generateInputs } from "./fixtures/mysql-generated.js"

type Validator = Pick<typeof current, "parseMysqlAllowlist" | "validateMysqlQuery">

const SEED = 18
const RUNS = Number(process.env.MYSQL_DIFF_RUNS ?? 600)
const GOLDEN = new URL("./fixtures/mysql-differential.golden.json", import.meta.url)

const outputOf = (impl: Validator, allowlist: MysqlAllowlist, input: GeneratedInput, i: number): string => {
  const options = input.maxRows === undefined ? undefined : { maxRows: input.maxRows }
  let out: unknown
  try {
    const r = Effect.runSync(
      Effect.result(impl.validateMysqlQuery({ datasource: "shop", sql: input.sql }, allowlist, options))
    )
    out = r._tag === "Success" ? { plan: r.success } : { reason: r.failure.reason, detail: r.failure.detail }
  } catch (e) {
    out = { defect: String(e) }
  }
  return JSON.stringify([i, input.sql, input.maxRows ?? null, out])
}

const outputsOf = (runs: number): Array<string> => {
  const allowlist = Effect.runSync(current.parseMysqlAllowlist(demoAllowlistJson))
  return generateInputs(SEED, runs).map((input, i) => outputOf(current, allowlist, input, i))
}

/** Parses each distinct statement once until `clear` (a copy per call: validators may keep it). */
const memoizeParser = () => {
  const proto = NodeSqlParser.Parser.prototype
  const astify = proto.astify
  const cache = new Map<string, { ast?: unknown; error?: unknown }>()
  proto.astify = function (this: InstanceType<typeof NodeSqlParser.Parser>, sql, opt) {
    const key = `${JSON.stringify(opt)}\u0000${sql}`
    let hit = cache.get(key)
    if (hit === undefined) {
      try {
        hit = { ast: structuredClone(astify.call(this, sql, opt)) }
      } catch (error) {
        hit = { error }
      }
      cache.set(key, hit)
    }
    if (hit.error !== undefined) throw hit.error
    return structuredClone(hit.ast) as ReturnType<typeof astify>
  }
  const restore = () => {
    proto.astify = astify
  }
  return { clear: () => cache.clear(), restore }
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

describe(`validator differential (seed ${SEED}, ${RUNS} inputs)`, () => {
  it("returns exactly the recorded outputs", { timeout: 24 * 3600_000 }, async () => {
    if (process.env.MYSQL_DIFF_AGAINST) {
      const old = (await import(process.env.MYSQL_DIFF_AGAINST)) as Validator
      const [shard = 0, shards = 1] = (process.env.MYSQL_DIFF_SHARD ?? "0/1").split("/").map(Number)
      const oldAllowlist = Effect.runSync(old.parseMysqlAllowlist(demoAllowlistJson))
      const allowlist = Effect.runSync(current.parseMysqlAllowlist(demoAllowlistJson))
      const parser = memoizeParser()
      let compared = 0
      const differing: Array<string> = []
      const seen: Array<string> = []
      try {
        generateInputs(SEED, RUNS).forEach((input, i) => {
          if (i % shards !== shard) return
          const before = outputOf(old, oldAllowlist, input, i)
          const after = outputOf(current, allowlist, input, i)
          parser.clear()
          compared++
          seen.push(after)
          if (before !== after) differing.push(`old ${before}\nnew ${after}`)
        })
      } finally {
        parser.restore()
      }
      console.log(
        `differential shard ${shard}/${shards}: ${compared - differing.length}/${compared} identical`
      )
      console.log(JSON.stringify(verdicts(seen)))
      expect(differing.slice(0, 5)).toEqual([])
      return
    }
    const lines = outputsOf(RUNS)
    const summary = { seed: SEED, runs: RUNS, digest: digest(lines), verdicts: verdicts(lines) }
    if (process.env.MYSQL_DIFF_UPDATE) writeFileSync(GOLDEN, `${JSON.stringify(summary, null, 2)}\n`)
    expect(summary).toEqual(JSON.parse(readFileSync(GOLDEN, "utf8")))
  })
})
