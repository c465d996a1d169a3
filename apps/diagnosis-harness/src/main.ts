import { Cause, Effect, Exit } from "effect"
import { type AppConfig, ConfigError, describeBackends, loadConfig } from "./config.js"
import { type DiagnoseOutcome, diagnose, InvalidIdInput } from "./diagnose.js"
import { formatProgress, formatReport, formatTrace } from "./format.js"
import { type AppLayerOptions, type AppRuntime, makeAppRuntime, migrateAll, StartupError } from "./runtime.js"
import { startServer } from "./server.js"

export const USAGE = `usage: diagnosis-harness <command> [options]

commands:
  diagnose "<question>" [--scenario <id>] [--session <sessionId>]
      run one diagnosis on the configured backends, print progress, the report and the trace summary
  migrate
      apply the audit schema and the demo business schema to MYSQL_URL
  serve [--port <n>]
      serve the HTTP API (POST /api/chat, GET /api/trace, GET /healthz)

scenarios: db-pool-exhaustion (default), oom-killed, slow-query-orders, redis-timeouts, calm
env: REDIS_URL, MYSQL_URL, OPENAI_BASE_URL, OPENAI_API_KEY, MODEL, SCENARIO, PORT, HOST, MAX_STEPS`

export interface Io {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A command line that cannot be understood: exit code 2. */
export class UsageError extends Error {
  readonly _tag = "UsageError"
}

export interface ParsedArgs {
  readonly command: string | undefined
  readonly positional: ReadonlyArray<string>
  readonly options: Readonly<Record<string, string>>
}

const KNOWN_OPTIONS: Readonly<Record<string, ReadonlyArray<string>>> = {
  diagnose: ["scenario", "session"],
  migrate: [],
  serve: ["port", "scenario"]
}

/** Plain argv parsing: `--name value` and `--name=value`; everything else is positional. */
export const parseArgs = (argv: ReadonlyArray<string>): ParsedArgs => {
  const [command, ...rest] = argv
  const positional: string[] = []
  const options: Record<string, string> = {}
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === "--") {
      positional.push(...rest.slice(i + 1))
      break
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2)
      const value = eq > 0 ? arg.slice(eq + 1) : rest[++i]
      if (value === undefined || value === "") throw new UsageError(`option --${name} needs a value`)
      options[name] = value
    } else positional.push(arg)
  }
  if (command !== undefined && KNOWN_OPTIONS[command]) {
    for (const name of Object.keys(options)) {
      if (!KNOWN_OPTIONS[command]!.includes(name))
        throw new UsageError(`unknown option --${name} for ${command}`)
    }
  }
  return { command, positional, options }
}

const describeStartup = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof StartupError) return `cannot start: ${error.message}`
  if (error instanceof ConfigError) return `configuration: ${error.message}`
  if (error instanceof InvalidIdInput) return error.message
  return "unexpected error (see the server log for details)"
}

export interface DiagnoseCommand {
  readonly question: string
  readonly sessionId?: string
}

/**
 * `diagnose`: builds the runtime, runs one diagnosis with live progress, prints the report and
 * the trace summary, disposes the runtime. Exit code 0 when a run completed (whatever its
 * release result), 1 when it could not run or failed.
 */
export const runDiagnoseCommand = async (
  command: DiagnoseCommand,
  config: AppConfig,
  io: Io,
  options: AppLayerOptions & {
    /** Use this runtime (the caller keeps it and disposes it) instead of building one. */
    readonly runtime?: AppRuntime
  } = {}
): Promise<{ exitCode: number; outcome: DiagnoseOutcome | null }> => {
  const runtime = options.runtime ?? makeAppRuntime(config, options)
  try {
    const b = describeBackends(config)
    io.err(
      `diagnosis-harness: store=${b.canonical_store} audit=${b.audit} model=${b.model} mysql=${b.business_datasource} scenario=${b.scenario}`
    )
    const exit = await runtime.runPromiseExit(
      diagnose(
        { question: command.question, ...(command.sessionId ? { sessionId: command.sessionId } : {}) },
        { onProgress: (event) => io.err(formatProgress(event)) }
      )
    )
    if (Exit.isFailure(exit)) {
      io.err(`error: ${describeStartup(exit.cause)}`)
      return { exitCode: 1, outcome: null }
    }
    const outcome = exit.value
    io.out(formatReport(outcome.result))
    io.out("")
    io.out(formatTrace(outcome.result.sessionId, outcome.result.runId, outcome.trace))
    if (outcome.result.releaseResult === "RUN_FAILED") {
      io.err("error: the run failed (see the trace for the failing step)")
      return { exitCode: 1, outcome }
    }
    return { exitCode: 0, outcome }
  } finally {
    if (options.runtime === undefined) await runtime.dispose()
  }
}

/** `migrate`: audit schema + demo business schema on MYSQL_URL. */
export const runMigrateCommand = async (config: AppConfig, io: Io): Promise<number> => {
  if (config.mysqlUrl === null) {
    io.err("error: MYSQL_URL is not set (e.g. MYSQL_URL=mysql://root@127.0.0.1:3306/test)")
    return 1
  }
  const exit = await Effect.runPromiseExit(migrateAll(config.mysqlUrl))
  if (Exit.isFailure(exit)) {
    io.err(`error: ${describeStartup(exit.cause)}`)
    return 1
  }
  const { audit, business } = exit.value
  io.out(
    `audit schema: applied [${audit.applied.join(", ")}], already applied [${audit.alreadyApplied.join(", ")}]`
  )
  io.out(
    `demo business schema: applied [${business.applied.join(", ")}], already applied [${business.alreadyApplied.join(", ")}]`
  )
  return 0
}

/** `serve`: runs until SIGINT/SIGTERM, then closes the server and disposes the runtime. */
export const runServeCommand = async (config: AppConfig, io: Io): Promise<number> => {
  const runtime = makeAppRuntime(config)
  let server: Awaited<ReturnType<typeof startServer>>
  try {
    server = await startServer(runtime, config)
  } catch (error) {
    await runtime.dispose().catch(() => undefined)
    const message =
      error instanceof Error && "code" in error && error.code === "EADDRINUSE"
        ? `port ${config.port} is already in use`
        : describeStartup(Cause.fail(error))
    io.err(`error: ${message}`)
    return 1
  }
  const b = describeBackends(config)
  io.err(
    `diagnosis-harness listening on http://${server.host}:${server.port} (store=${b.canonical_store} audit=${b.audit} model=${b.model} mysql=${b.business_datasource} scenario=${b.scenario})`
  )
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      io.err(`${signal}: shutting down`)
      process.off("SIGINT", onInt)
      process.off("SIGTERM", onTerm)
      server.close().then(resolve, resolve)
    }
    const onInt = () => stop("SIGINT")
    const onTerm = () => stop("SIGTERM")
    process.on("SIGINT", onInt)
    process.on("SIGTERM", onTerm)
  })
  io.err("stopped")
  return 0
}

/** The CLI: returns the process exit code (0 success, 1 error, 2 usage error). */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  let args: ParsedArgs
  try {
    args = parseArgs(argv)
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (args.command === undefined || args.command === "help" || args.command === "--help") {
    ;(args.command === undefined ? io.err : io.out)(USAGE)
    return args.command === undefined ? 2 : 0
  }
  if (!KNOWN_OPTIONS[args.command]) {
    io.err(`unknown command "${args.command}"\n\n${USAGE}`)
    return 2
  }
  let config: AppConfig
  try {
    config = loadConfig(io.env, {
      ...(args.options.scenario !== undefined ? { scenario: args.options.scenario } : {}),
      ...(args.options.port !== undefined ? { port: args.options.port } : {})
    })
  } catch (error) {
    if (error instanceof ConfigError) {
      const usage = error.field.startsWith("--")
      io.err(`${usage ? "" : "configuration error: "}${error.message}${usage ? `\n\n${USAGE}` : ""}`)
      return usage ? 2 : 1
    }
    throw error
  }
  switch (args.command) {
    case "diagnose": {
      const question = args.positional.join(" ").trim()
      if (question === "") {
        io.err(`diagnose needs a question\n\n${USAGE}`)
        return 2
      }
      const session = args.options.session
      if (session !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(session)) {
        io.err("--session: expected 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit")
        return 2
      }
      const { exitCode } = await runDiagnoseCommand(
        { question, ...(session !== undefined ? { sessionId: session } : {}) },
        config,
        io
      )
      return exitCode
    }
    case "migrate":
      if (args.positional.length > 0) {
        io.err(`migrate takes no arguments\n\n${USAGE}`)
        return 2
      }
      return runMigrateCommand(config, io)
    case "serve":
      if (args.positional.length > 0) {
        io.err(`serve takes no arguments\n\n${USAGE}`)
        return 2
      }
      return runServeCommand(config, io)
    default:
      return 2
  }
}
