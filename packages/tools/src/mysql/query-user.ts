import { Effect, Redacted } from "effect"
import { make as makeMysqlClient } from "@aiops-harness/mysql"
import { MysqlExecutionError } from "./errors.js"

/** Options of `ensureMysqlQueryUser`: admin connection and the query user to create. */
export interface EnsureMysqlQueryUserOptions {
  /** An administrator connection (creates the user and grants SELECT). */
  readonly adminUrl: string | Redacted.Redacted<string>
  /** `mysql://user:password@host:port[/db]` the executor will use: its user and password are created. */
  readonly queryUrl: string | Redacted.Redacted<string>
  /** Databases the user may read (SELECT only). */
  readonly databases: ReadonlyArray<string>
  /** Account hosts to create, default `%` and `localhost`. */
  readonly hosts?: ReadonlyArray<string>
  readonly connectTimeoutMs?: number
}

const userOf = (url: string | Redacted.Redacted<string>): { user: string; password: string } | undefined => {
  try {
    const u = new URL(Redacted.isRedacted(url) ? Redacted.value(url) : url)
    return { user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) }
  } catch {
    return undefined
  }
}

/**
 * Creates (idempotently) the SELECT-only user of `queryUrl` with `SELECT` on `databases` and
 * nothing else, and resets its password to the URL's. Privileges the account already had are not
 * revoked: the executor's startup check (`SHOW GRANTS`) refuses such an account.
 */
export const ensureMysqlQueryUser = (
  options: EnsureMysqlQueryUserOptions
): Effect.Effect<{ readonly user: string }, MysqlExecutionError> =>
  Effect.gen(function* () {
    const invalid = (message: string) =>
      Effect.fail(new MysqlExecutionError({ code: "INVALID_CONFIG", internalMessage: message }))
    const query = userOf(options.queryUrl)
    const admin = userOf(options.adminUrl)
    if (query === undefined || admin === undefined) return yield* invalid("query or admin URL does not parse")
    if (query.user === "") return yield* invalid("the query URL must name a user")
    if (query.user === admin.user)
      return yield* invalid("the query user must differ from the administrator user")
    if (options.databases.length === 0) return yield* invalid("no database to grant")
    const hosts = options.hosts ?? ["%", "localhost"]
    yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* makeMysqlClient({
          url: options.adminUrl,
          name: "query-user-admin",
          connectionLimit: 1,
          connectTimeoutMs: options.connectTimeoutMs ?? 5000
        })
        yield* client.withConnection((conn) =>
          Effect.forEach(
            hosts,
            (host) =>
              Effect.gen(function* () {
                // Values are escaped by the driver (`?` strings, `??` identifiers).
                yield* conn.query("CREATE USER IF NOT EXISTS ?@? IDENTIFIED BY ?", [
                  query.user,
                  host,
                  query.password
                ])
                yield* conn.query("ALTER USER ?@? IDENTIFIED BY ?", [query.user, host, query.password])
                for (const db of options.databases)
                  yield* conn.query("GRANT SELECT ON ??.* TO ?@?", [db, query.user, host])
              }),
            { discard: true }
          )
        )
      })
    ).pipe(
      Effect.mapError(
        (e) =>
          new MysqlExecutionError({
            code: "CONNECTION_FAILED",
            serverCode: e.code,
            internalMessage: e.message
          })
      )
    )
    return { user: query.user }
  })
