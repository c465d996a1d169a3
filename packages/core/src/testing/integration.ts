import { connect } from "node:net"

/** Default server URLs of the integration suites. */
export const defaultRedisUrl = "redis://127.0.0.1:6379"
export const defaultMysqlUrl = "mysql://root@127.0.0.1:3306/test"

export const redisUrl = (): string => process.env.REDIS_URL || defaultRedisUrl
export const mysqlUrl = (): string => process.env.MYSQL_URL || defaultMysqlUrl

/** TCP reachability of a URL's host and port, within `timeoutMs`. */
export const isReachable = (url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> =>
  new Promise((resolve) => {
    const u = new URL(url)
    const socket = connect({ host: u.hostname || "127.0.0.1", port: Number(u.port || defaultPort) })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

/**
 * Decides whether an integration suite runs. With `CI=true` a missing server is an error
 * (the suite must run, never skip); elsewhere the suite is skipped with a loud message that
 * says what to start.
 */
export const integrationGate = async (options: {
  readonly service: "Redis" | "MySQL"
  readonly url: string
  readonly defaultPort: number
  readonly startHint: string
}): Promise<boolean> => {
  if (await isReachable(options.url, options.defaultPort)) return true
  const where = new URL(options.url).host
  if (process.env.CI === "true") {
    throw new Error(
      `${options.service} is required with CI=true but ${where} does not answer. ${options.startHint}`
    )
  }
  const line = "!".repeat(78)
  console.warn(
    `\n${line}\n!! SKIPPING ${options.service} integration tests: nothing answers at ${where}.\n!! ${options.startHint}\n${line}\n`
  )
  return false
}

export const redisGate = () =>
  integrationGate({
    service: "Redis",
    url: redisUrl(),
    defaultPort: 6379,
    startHint: "Start one with: redis-server --daemonize yes --port 6379 --save '' (or set REDIS_URL)."
  })

export const mysqlGate = () =>
  integrationGate({
    service: "MySQL",
    url: mysqlUrl(),
    defaultPort: 3306,
    startHint: "Start MySQL or MariaDB on 127.0.0.1:3306 (user root, database test) or set MYSQL_URL."
  })
