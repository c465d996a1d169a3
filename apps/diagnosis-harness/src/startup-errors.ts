import { connect } from "node:net"
import { revealed } from "@aiops-harness/core"
import { Cause, Effect, type Redacted } from "effect"

/** The backends a startup failure can name. */
export type BackendKind = "Redis" | "MySQL"

const DEFAULT_PORT: Record<BackendKind, number> = { Redis: 6379, MySQL: 3306 }

/**
 * `host:port` of a backend URL, never its user or password (`127.0.0.1:3306` for
 * `mysql://root:pw@127.0.0.1/test`); `unknown host` when the URL does not parse.
 */
export const backendAddress = (kind: BackendKind, url: string | Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(revealed(url))
    return `${parsed.hostname || "localhost"}:${parsed.port || DEFAULT_PORT[kind]}`
  } catch {
    return "unknown host"
  }
}

/** Error codes whose meaning is "the backend cannot be reached", as a short phrase. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ETIMEDOUT: "connection timed out",
  PROTOCOL_SEQUENCE_TIMEOUT: "connection timed out",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset"
}

const ACCESS_DENIED = new Set(["ER_ACCESS_DENIED_ERROR", "ER_DBACCESS_DENIED_ERROR", "WRONGPASS", "NOAUTH"])

interface Found {
  /** A string `code` (errno name, MySQL error name, Redis error prefix). */
  readonly code: string | null
  /** The outermost tagged error (`StoreError`, `MigrationError`, ...). */
  readonly tag: string | null
  readonly reason: string | null
  /** A failed migration's version. */
  readonly version: number | null
}

/**
 * Walks an error's `cause` chain (Effect causes, `AggregateError.errors` included) for the
 * first code it knows; the text of the errors is never used (it may carry a user name).
 */
export const inspectCause = (root: unknown): Found => {
  let code: string | null = null
  let tag: string | null = null
  let reason: string | null = null
  let version: number | null = null
  const seen = new Set<unknown>()
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== "object" || seen.has(value) || depth > 8) return
    seen.add(value)
    if (Cause.isCause(value)) {
      for (const r of value.reasons) {
        if (Cause.isFailReason(r)) visit(r.error, depth + 1)
        else if (Cause.isDieReason(r)) visit(r.defect, depth + 1)
      }
      return
    }
    const v = value as {
      _tag?: unknown
      reason?: unknown
      code?: unknown
      message?: unknown
      version?: unknown
    }
    if (tag === null && typeof v._tag === "string") {
      tag = v._tag
      if (typeof v.reason === "string") reason = v.reason
      if (typeof v.version === "number") version = v.version
    }
    if (
      code === null &&
      typeof v.code === "string" &&
      (UNREACHABLE[v.code] || ACCESS_DENIED.has(v.code) || /^ER_/.test(v.code))
    )
      code = v.code
    // Redis reports authentication failures as reply errors: "WRONGPASS ...", "NOAUTH ...".
    if (code === null && typeof v.message === "string") {
      const prefix = /^(WRONGPASS|NOAUTH)\b/.exec(v.message)
      if (prefix) code = prefix[1]!
    }
    if (Array.isArray((value as { errors?: unknown }).errors))
      for (const e of (value as { errors: unknown[] }).errors) visit(e, depth + 1)
    visit((value as { cause?: unknown }).cause, depth + 1)
  }
  visit(root, 0)
  return { code, tag, reason, version }
}

/**
 * Opens (and closes) one TCP connection to learn why a client library gave no reason
 * (ioredis reports only "Connection is closed"). `null`: the port answers.
 */
export const probeTcp = (address: string, timeoutMs: number): Promise<string | null> =>
  new Promise((resolve) => {
    const at = address.lastIndexOf(":")
    const host = address.slice(0, at).replace(/^\[(.*)\]$/, "$1")
    const port = Number(address.slice(at + 1))
    if (at <= 0 || !Number.isInteger(port)) return resolve(null)
    const socket = connect({ host, port })
    const done = (code: string | null) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(code)
    }
    const timer = setTimeout(() => done("ETIMEDOUT"), timeoutMs)
    socket.once("connect", () => done(null))
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? "ECONNRESET"))
  })

export interface BackendFailure {
  readonly kind: BackendKind
  /** The backend URL (only its host and port are shown). */
  readonly url: string | Redacted.Redacted<string>
  /** Shown instead of the URL's address (Redis Cluster nodes: `host:port,host:port`). */
  readonly address?: string
  /** The error the backend's layer failed with. */
  readonly cause: unknown
  /** Probe the address when the error carries no code (Redis); default false. */
  readonly probe?: boolean
}

/**
 * One line saying what failed and where, without credentials or error text:
 * `Redis at 127.0.0.1:1 is unreachable (connection refused)`,
 * `MySQL at 127.0.0.1:3306: unknown database 'x'`,
 * `MySQL at 127.0.0.1:3306: access denied for the configured user`.
 */
export const describeBackendFailure = (failure: BackendFailure): Effect.Effect<string> =>
  Effect.gen(function* () {
    const where = `${failure.kind} at ${failure.address ?? backendAddress(failure.kind, failure.url)}`
    const found = inspectCause(failure.cause)
    let code = found.code
    if (code === null && found.reason === "TIMEOUT") code = "ETIMEDOUT"
    let portAnswers = false
    if (code === null && failure.probe === true && found.reason === "UNAVAILABLE") {
      const address = (failure.address ?? backendAddress(failure.kind, failure.url)).split(",")[0]!
      code = yield* Effect.promise(() => probeTcp(address, 2000))
      portAnswers = code === null
    }
    if (code !== null && UNREACHABLE[code]) return `${where} is unreachable (${UNREACHABLE[code]})`
    if (code !== null && ACCESS_DENIED.has(code)) return `${where}: access denied for the configured user`
    if (code === "ER_BAD_DB_ERROR") return `${where}: unknown database '${databaseOf(failure.url)}'`
    if (portAnswers) return `${where}: the connection closed before ${failure.kind} answered`
    const detail = [
      found.tag,
      found.reason,
      code,
      found.version !== null ? `(version ${found.version})` : null
    ]
      .filter((p) => p !== null)
      .join(" ")
    return `${where}: ${detail || "failed"}`
  })

const databaseOf = (url: string | Redacted.Redacted<string>): string => {
  try {
    return decodeURIComponent(new URL(revealed(url)).pathname.replace(/^\//, ""))
  } catch {
    return "?"
  }
}
