import { execFileSync } from "node:child_process"
import { randomInt } from "node:crypto"
import type FastCheck from "fast-check"

/**
 * How property tests (fast-check) pick their seed, so that CI never fails by chance:
 * - `FC_SEED=<int>`: that seed (to replay a printed failure);
 * - `FC_FUZZ=1` (`pnpm test:fuzz`): a fresh random seed and `FC_RUNS_FACTOR` (default 10) times
 *   the runs;
 * - otherwise a seed derived from the commit under test (`GITHUB_SHA`, `CI_COMMIT_SHA`,
 *   `GIT_COMMIT`, else `git rev-parse HEAD`), fixed for that commit; a constant without git.
 * A failure prints the seed; the counterexample then becomes a table row in the suite.
 */
export interface PropertyTestSettings {
  readonly seed: number
  /** Where the seed came from: `FC_SEED`, `commit <sha>`, `random` or `default`. */
  readonly source: string
  readonly fuzz: boolean
  /** Multiplies the default number of runs (1 outside fuzz runs). */
  readonly runsFactor: number
}

/** A 32-bit seed from a commit hash (its first 8 hex digits). */
export const seedFromCommit = (sha: string): number => {
  const head = /^[0-9a-f]{8}/i.exec(sha.trim())
  return head === null ? DEFAULT_SEED : Number.parseInt(head[0], 16) | 0
}

const DEFAULT_SEED = 0x5eed

const gitHead = (): string | undefined => {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000
    }).trim()
  } catch {
    return undefined
  }
}

export const propertyTestSettings = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  head: () => string | undefined = gitHead
): PropertyTestSettings => {
  const fuzz = env.FC_FUZZ === "1" || env.FC_FUZZ === "true"
  const factor = Number(env.FC_RUNS_FACTOR ?? "")
  const runsFactor = fuzz ? (Number.isInteger(factor) && factor > 0 ? factor : 10) : 1
  const fixed = env.FC_SEED?.trim()
  if (fixed !== undefined && fixed !== "") {
    if (!/^-?\d{1,10}$/.test(fixed)) throw new RangeError(`FC_SEED must be a 32-bit integer, got "${fixed}"`)
    return { seed: Number(fixed) | 0, source: "FC_SEED", fuzz, runsFactor }
  }
  if (fuzz) return { seed: randomInt(-(2 ** 31), 2 ** 31 - 1), source: "random", fuzz, runsFactor }
  const sha = env.GITHUB_SHA || env.CI_COMMIT_SHA || env.GIT_COMMIT || head()
  if (sha === undefined || !/^[0-9a-f]{8}/i.test(sha))
    return { seed: DEFAULT_SEED, source: "default", fuzz, runsFactor }
  return { seed: seedFromCommit(sha), source: `commit ${sha.slice(0, 12)}`, fuzz, runsFactor }
}

/** The line a failing property prints: the seed, where it came from, how to replay it. */
export const seedReport = (seed: number, settings: PropertyTestSettings): string =>
  `fast-check seed ${seed} (${settings.source}). Replay: FC_SEED=${seed} pnpm test; then add the counterexample as a table row.`

/**
 * Applies {@link propertyTestSettings} to fast-check's global configuration and makes a failure
 * print its seed and replay command: call it from each package's vitest setup file. fast-check is
 * passed in (core does not depend on it).
 */
export const configureFastCheck = (
  fc: typeof FastCheck,
  settings = propertyTestSettings()
): PropertyTestSettings => {
  if (settings.fuzz) console.log(`fast-check fuzz run: seed ${settings.seed}, runs x${settings.runsFactor}`)
  fc.configureGlobal({
    seed: settings.seed,
    numRuns: 100 * settings.runsFactor,
    reporter: (details) => {
      if (details.failed)
        throw new Error(`${fc.defaultReportMessage(details)}\n${seedReport(details.seed, settings)}`, {
          cause: details.errorInstance
        })
    }
  })
  return settings
}
