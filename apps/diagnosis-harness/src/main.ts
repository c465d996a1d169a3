import { ID_PATTERN } from "@aiops-harness/core"
import { Cause, Effect, Exit } from "effect"
import {
  type AppConfig,
  describeBackends,
  describeInvalidConfig,
  InvalidConfig,
  loadConfig
} from "./config.js"
import { type DiagnoseOutcome, diagnose, InvalidIdInput } from "./diagnose.js"
import { formatProgress, formatReport, formatTrace, runPageLink } from "./format.js"
import { serveMcpStdio } from "./mcp.js"
import { type AppLayerOptions, type AppRuntime, makeAppRuntime, migrateAll, StartupError } from "./runtime.js"
import { QUESTION_MAX_CHARS, QUESTION_TOO_LONG } from "./http.js"
import { type RunningServer, type ShutdownReport, startServer } from "./server.js"

export const USAGE = `usage: diagnosis-harness <command> [options]

commands:
  diagnose "<question>" [--scenario <id>] [--session <sessionId>]
      run one diagnosis on the configured backends, print progress, the report and the trace summary
      (one question of at most 2000 characters: quote it)
  migrate
      apply the audit schema and the demo business schema to MYSQL_URL, and create the
      SELECT-only user of MYSQL_QUERY_URL (query_mysql runs as that user)
  serve [--port <n>] [--scenario <id>]
      serve the HTTP API (POST /api/chat, GET /api/trace, GET /healthz, GET /readyz,
      GET /metrics, /mcp) until SIGINT/SIGTERM; a second signal forces the exit
  mcp [--scenario <id>]
      serve the read-only tools over MCP on stdio (one MCP session = one run) until stdin closes
  help, --help, -h
      print this text

scenarios: db-pool-exhaustion (default), oom-killed, slow-query-orders, redis-timeouts, calm
env: REDIS_URL, REDIS_CLUSTER_NODES, REDIS_COMMAND_TIMEOUT_MS, REDIS_CONNECT_TIMEOUT_MS,
     REDIS_RECONNECT_MAX_DELAY_MS, CANONICAL_STORE_KEY_PREFIX, CANONICAL_STORE_TTL_MS,
     CANONICAL_STORE_MAX_RECORD_BYTES, MYSQL_URL, MYSQL_QUERY_URL, AUDIT_MYSQL_CONNECTION_LIMIT,
     AUDIT_MYSQL_CONNECT_TIMEOUT_MS, AUDIT_MYSQL_QUERY_TIMEOUT_MS, AUDIT_MYSQL_WRITE_TIMEOUT_MS,
     AUDIT_MYSQL_QUEUE_LIMIT, AUDIT_BREAKER_FAILURES, AUDIT_BREAKER_RESET_MS, AUDIT_STALE_RUN_MS,
     OPENAI_BASE_URL, OPENAI_API_KEY, MODEL, MODEL_TIMEOUT_MS,
     MODEL_MAX_RETRIES, MODEL_STREAM, MODEL_API_KEY_HEADER, MODEL_QUERY, SCENARIO,
     DEMO_LOG_MINUTES, DEMO_SEED, MAX_STEPS, PORT, HOST, SHUTDOWN_GRACE_MS, HTTP_MAX_BODY_BYTES, LOG_LEVEL,
     MCP_SERVERS_CONFIG, MCP_MAX_TOOL_CALLS`

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
  /** `help` also for `--help` / `-h` anywhere before `--`. */
  readonly command: string | undefined
  readonly positional: ReadonlyArray<string>
  readonly options: Readonly<Record<string, string>>
}

const KNOWN_OPTIONS: Readonly<Record<string, ReadonlyArray<string>>> = {
  diagnose: ["scenario", "session"],
  migrate: [],
  serve: ["port", "scenario"],
  mcp: ["scenario"],
  help: []
}

const isHelpFlag = (arg: string) => arg === "--help" || arg === "-h"

/**
 * Plain argv parsing: `--name value` and `--name=value`; `-x` is an (unknown) option; after
 * `--` everything is positional. `--help` / `-h` anywhere make the command `help`. Throws
 * `UsageError` for an unknown command, an unknown option (with or without a value) and an
 * option without a value.
 */
export const parseArgs = (argv: ReadonlyArray<string>): ParsedArgs => {
  const end = argv.indexOf("--")
  if ((end < 0 ? argv : argv.slice(0, end)).some(isHelpFlag)) {
    return { command: "help", positional: [], options: {} }
  }
  const [command, ...rest] = argv
  if (command === undefined) return { command, positional: [], options: {} }
  const known = KNOWN_OPTIONS[command]
  if (!known) throw new UsageError(`unknown command "${command}"`)
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
      if (!known.includes(name)) throw new UsageError(`unknown option --${name} for ${command}`)
      const next = rest[i + 1]
      const value =
        eq > 0 ? arg.slice(eq + 1) : next !== undefined && !next.startsWith("--") ? rest[++i] : undefined
      if (value === undefined || value === "") throw new UsageError(`option --${name} needs a value`)
      options[name] = value
    } else if (/^-[A-Za-z]/.test(arg)) {
      throw new UsageError(`unknown option ${arg.split("=")[0]} for ${command}`)
    } else positional.push(arg)
  }
  return { command, positional, options }
}

const describeStartup = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof StartupError) return `cannot start: ${error.message}`
  if (error instanceof InvalidConfig) return describeInvalidConfig(error)
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
    const { sessionId, runId } = outcome.result
    io.out(formatTrace(sessionId, runId, outcome.trace, runPageLink(config, sessionId, runId)))
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
  const exit = await Effect.runPromiseExit(migrateAll(config.mysqlUrl, config.mysqlQueryUrl))
  if (Exit.isFailure(exit)) {
    const error = Cause.squash(exit.cause)
    io.err(`error: ${error instanceof StartupError ? error.message : describeStartup(exit.cause)}`)
    return 1
  }
  const { audit, business, queryUser } = exit.value
  io.out(
    `audit schema: applied [${audit.applied.join(", ")}], already applied [${audit.alreadyApplied.join(", ")}]`
  )
  io.out(
    `demo business schema: applied [${business.applied.join(", ")}], already applied [${business.alreadyApplied.join(", ")}]`
  )
  io.out(
    queryUser === null
      ? "query user: MYSQL_QUERY_URL is not set (query_mysql disabled)"
      : `query user: ${queryUser.user} has SELECT on ${queryUser.database} only`
  )
  return 0
}

/** Where `serve` listens for SIGINT/SIGTERM (default: `process`). */
export interface SignalSource {
  readonly on: (signal: "SIGINT" | "SIGTERM", listener: () => void) => unknown
  readonly off: (signal: "SIGINT" | "SIGTERM", listener: () => void) => unknown
}

export interface ServeOptions extends AppLayerOptions {
  /** Default: `process`. */
  readonly signals?: SignalSource
  /** Called on a second signal with 128 + the signal number. Default: `process.exit`. */
  readonly forceExit?: (code: number) => void
  /** Called once the server listens (tests learn the port). */
  readonly onListening?: (server: RunningServer) => void
}

const SIGNAL_NUMBER = { SIGINT: 2, SIGTERM: 15 } as const

/**
 * `serve`: runs until SIGINT/SIGTERM, then stops accepting, interrupts the running diagnoses
 * (each ends `RUN_FINISHED` CANCELLED, its stream with a final `event: error`), waits up to
 * `SHUTDOWN_GRACE_MS` for the streams to close, closes what is left, disposes the runtime and
 * returns 0. A second signal forces the exit at once.
 */
export const runServeCommand = async (
  config: AppConfig,
  io: Io,
  options: ServeOptions = {}
): Promise<number> => {
  const signals: SignalSource = options.signals ?? process
  const forceExit = options.forceExit ?? ((code: number) => process.exit(code))
  const runtime = makeAppRuntime(config, options)
  let server: RunningServer
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
  options.onListening?.(server)
  let onInt = () => {}
  let onTerm = () => {}
  const report = await new Promise<ShutdownReport | null>((resolve) => {
    let stopping = false
    const onSignal = (signal: keyof typeof SIGNAL_NUMBER) => {
      if (stopping) {
        io.err("second signal: forcing exit")
        forceExit(128 + SIGNAL_NUMBER[signal])
        return
      }
      stopping = true
      io.err(
        `${signal}: shutting down (cancelling ${server.inFlight()} open run(s), grace ${config.shutdownGraceMs} ms); press Ctrl-C again to force`
      )
      server.shutdown().then(resolve, () => resolve(null))
    }
    onInt = () => onSignal("SIGINT")
    onTerm = () => onSignal("SIGTERM")
    signals.on("SIGINT", onInt)
    signals.on("SIGTERM", onTerm)
  })
  signals.off("SIGINT", onInt)
  signals.off("SIGTERM", onTerm)
  if (report === null) {
    io.err("error: the shutdown failed")
    return 1
  }
  if (!report.drained) {
    io.err(`grace period of ${config.shutdownGraceMs} ms over: closed the remaining connections`)
  }
  if (!report.disposed) {
    io.err(
      `error: releasing the backends did not finish within ${report.disposeTimeoutMs} ms (a run ignored its cancellation); exiting anyway`
    )
    return 1
  }
  io.err("stopped")
  return 0
}

/**
 * `mcp`: one MCP session over stdio on the app's services (stdout is the protocol: messages go
 * to stderr). Ends when the client closes stdin: the run finishes, the runtime is disposed.
 */
export const runMcpCommand = async (
  config: AppConfig,
  io: Io,
  options: AppLayerOptions & {
    readonly stdio?: Parameters<typeof serveMcpStdio>[1]
    /** Default: `process`. */
    readonly signals?: SignalSource
  } = {}
): Promise<number> => {
  const runtime = makeAppRuntime(config, options)
  try {
    const b = describeBackends(config)
    io.err(
      `diagnosis-harness mcp on stdio (store=${b.canonical_store} audit=${b.audit} mysql=${b.business_datasource} scenario=${b.scenario})`
    )
    // A signal ends the session like a closed stdin: the run is FINISHED, not left ACTIVE.
    const stop = new AbortController()
    const signals: SignalSource = options.signals ?? process
    const onSignal = () => stop.abort()
    signals.on("SIGINT", onSignal)
    signals.on("SIGTERM", onSignal)
    const { sessionId, runId } = await serveMcpStdio(runtime, config, {
      ...options.stdio,
      signal: stop.signal
    }).finally(() => {
      signals.off("SIGINT", onSignal)
      signals.off("SIGTERM", onSignal)
    })
    io.err(`mcp session closed: trace ${runPageLink(config, sessionId, runId)}`)
    return 0
  } catch (error) {
    io.err(`error: ${describeStartup(Cause.fail(error))}`)
    return 1
  } finally {
    await runtime.dispose().catch(() => undefined)
  }
}

const usageError = (io: Io, message: string): number => {
  io.err(`${message}\n\n${USAGE}`)
  return 2
}

/** The CLI: returns the process exit code (0 success, 1 error, 2 usage error). */
export const main = async (
  argv: ReadonlyArray<string>,
  io: Io,
  options: ServeOptions = {}
): Promise<number> => {
  let args: ParsedArgs
  try {
    args = parseArgs(argv)
  } catch (error) {
    return usageError(io, (error as Error).message)
  }
  if (args.command === undefined) return usageError(io, "missing command")
  if (args.command === "help") {
    io.out(USAGE)
    return 0
  }
  let question = ""
  const session = args.options.session
  if (args.command === "diagnose") {
    if (args.positional.length > 1) return usageError(io, "diagnose takes one question; quote it")
    question = (args.positional[0] ?? "").trim()
    if (question === "") return usageError(io, "diagnose needs a question")
    if (question.length > QUESTION_MAX_CHARS) return usageError(io, QUESTION_TOO_LONG)
    if (session !== undefined && !ID_PATTERN.test(session)) {
      return usageError(
        io,
        "--session: expected 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit"
      )
    }
  } else if (args.positional.length > 0) {
    return usageError(io, `${args.command} takes no arguments`)
  }
  let config: AppConfig
  try {
    config = loadConfig(io.env, {
      ...(args.options.scenario !== undefined ? { scenario: args.options.scenario } : {}),
      ...(args.options.port !== undefined ? { port: args.options.port } : {})
    })
  } catch (error) {
    if (error instanceof InvalidConfig) {
      if (error.variable.startsWith("--")) return usageError(io, error.message)
      io.err(describeInvalidConfig(error))
      return 1
    }
    throw error
  }
  switch (args.command) {
    case "diagnose": {
      const { exitCode } = await runDiagnoseCommand(
        { question, ...(session !== undefined ? { sessionId: session } : {}) },
        config,
        io,
        options
      )
      return exitCode
    }
    case "migrate":
      return runMigrateCommand(config, io)
    case "serve":
      return runServeCommand(config, io, options)
    case "mcp":
      return runMcpCommand(config, io, options)
    default:
      return 2
  }
}
