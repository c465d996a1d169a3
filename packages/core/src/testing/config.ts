import type { Config } from "effect"
import { InvalidConfig, readEnvConfigSync } from "../config.js"

/**
 * The `InvalidConfig` reading `config` from `env` fails with; throws when it reads fine or fails
 * with anything else (a test of a configuration error path cannot pass by accident).
 */
export const invalidConfigOf = <A>(
  config: Config.Config<A>,
  env: Readonly<Record<string, string | undefined>>
): InvalidConfig => {
  let read: A
  try {
    read = readEnvConfigSync(config, env)
  } catch (error) {
    if (error instanceof InvalidConfig) return error
    throw error
  }
  throw new Error(`expected InvalidConfig, read ${JSON.stringify(read)}`)
}
