/** A TTL test attempt's outcome: {@link JUDGED}, or why the attempt could not judge. */
export type TtlVerdict = typeof JUDGED | string

/** The attempt saw every bound it needed: its assertions decided the test. */
export const JUDGED: unique symbol = Symbol("judged")

/**
 * Runs `attempt` at `ttls` in order (growing TTLs) until one attempt is {@link JUDGED}. An
 * attempt that could not judge (a command finished too late on a loaded machine to tell
 * expiry from renewal) is retried at the next TTL; a failed assertion fails at once. When no
 * TTL gives a verdict, fails with every attempt's reason: never a silent pass.
 */
export const judgeAtGrowingTtls = async (
  ttls: ReadonlyArray<number>,
  attempt: (ttlMillis: number) => Promise<TtlVerdict>
): Promise<void> => {
  const unjudged: string[] = []
  for (const ttl of ttls) {
    const verdict = await attempt(ttl)
    if (verdict === JUDGED) return
    unjudged.push(`TTL ${ttl} ms: ${verdict}`)
  }
  throw new Error(`TTL behaviour not judged at any TTL (machine too slow): ${unjudged.join("; ")}`)
}

/** `base`, `2 base`, `4 base`, ...: `count` TTLs. */
export const doublingTtls = (base: number, count: number): ReadonlyArray<number> =>
  Array.from({ length: count }, (_, i) => base * 2 ** i)
