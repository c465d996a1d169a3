import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mysqlGate, mysqlUrl, redisGate, redisUrl, testId } from "@aiops-harness/core/testing"
import { Redis } from "ioredis"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { loadConfig } from "../src/config.js"
import { diagnose } from "../src/diagnose.js"
import { makeHttpApp } from "../src/http.js"
import { main } from "../src/main.js"
import { makeAppRuntime } from "../src/runtime.js"
import { captureIo } from "./helpers.js"
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js"

const redisUp = await redisGate()
const mysqlUp = await mysqlGate()

/**
 * The app configured with secrets everywhere (a Redis ACL user and a MariaDB user with passwords,
 * an API key, an OTLP header token) runs, serves /metrics, exports spans and writes audit rows;
 * none of the secrets appears in any of them, nor in a log line or an error message.
 */
describe.skipIf(!redisUp || !mysqlUp)("secrets never leave their Redacted wrapper", () => {
  const id = testId("sec")
    .replace(/[^A-Za-z0-9]/g, "_")
    .slice(0, 24)
  const REDIS_PASSWORD = `redis-pw-${id}`
  const MYSQL_PASSWORD = `mysql-pw-${id}`
  const API_KEY = `sk-secret-${id}`
  const OTLP_TOKEN = `otlp-token-${id}`
  const SECRETS = [REDIS_PASSWORD, MYSQL_PASSWORD, API_KEY, OTLP_TOKEN]
  const redisUser = `aiops_sec_${id}`.slice(0, 32)
  const mysqlUser = `aiops_sec_${id}`.slice(0, 32)
  const database = `aiops_sec_${id}`.slice(0, 64)

  let admin: mysql.Connection
  let redis: Redis
  let model: Server
  let receiver: OtlpReceiver
  const authorizations: string[] = []
  let env: Record<string, string>

  const expectNoSecret = (what: string, text: string) => {
    for (const secret of SECRETS) expect(text.includes(secret), `${what} contains ${secret}`).toBe(false)
  }

  /** Everything written to stderr / console while `f` runs (the JSON logs go there). */
  const captureLogs = async <A>(f: () => Promise<A>): Promise<{ value: A; logs: string }> => {
    const lines: string[] = []
    const error = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : (JSON.stringify(a) ?? String(a)))).join(" "))
    })
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "))
    })
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      lines.push(String(chunk))
      return true
    })
    try {
      return { value: await f(), logs: lines.join("\n") }
    } finally {
      error.mockRestore()
      log.mockRestore()
      write.mockRestore()
    }
  }

  beforeAll(async () => {
    const r = new URL(redisUrl())
    redis = new Redis(redisUrl())
    await redis.call("ACL", "SETUSER", redisUser, "on", `>${REDIS_PASSWORD}`, "~*", "&*", "+@all")
    const m = new URL(mysqlUrl())
    admin = await mysql.createConnection({ uri: mysqlUrl() })
    await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``)
    await admin.query(`CREATE USER IF NOT EXISTS '${mysqlUser}'@'%' IDENTIFIED BY '${MYSQL_PASSWORD}'`)
    await admin.query(`GRANT ALL PRIVILEGES ON \`${database}\`.* TO '${mysqlUser}'@'%'`)
    // A fake OpenAI-compatible endpoint: always asks for the knowledge tool (the step budget ends the run).
    model = createServer((req, res) => {
      authorizations.push(String(req.headers.authorization ?? ""))
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify({
            id: "x",
            model: "fake",
            choices: [
              {
                index: 0,
                finish_reason: "tool_calls",
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [
                    {
                      id: `call_${authorizations.length}`,
                      type: "function",
                      function: { name: "lookup_knowledge", arguments: '{"query":"checkout pool"}' }
                    }
                  ]
                }
              }
            ],
            usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }
          })
        )
      })
    })
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve))
    receiver = await startOtlpReceiver()
    env = {
      REDIS_URL: `redis://${redisUser}:${REDIS_PASSWORD}@${r.hostname}:${r.port || 6379}`,
      MYSQL_URL: `mysql://${mysqlUser}:${MYSQL_PASSWORD}@${m.hostname}:${m.port || 3306}/${database}`,
      OPENAI_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
      OPENAI_API_KEY: API_KEY,
      MODEL: "fake-model",
      MAX_STEPS: "2",
      LOG_LEVEL: "debug",
      CANONICAL_STORE_KEY_PREFIX: `aiops_sec_${id}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${OTLP_TOKEN}`,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true"
    }
  }, 60_000)

  afterAll(async () => {
    await redis?.call("ACL", "DELUSER", redisUser).catch(() => undefined)
    const keys = await redis?.keys(`aiops_sec_${id}*`)
    if (keys && keys.length > 0) await redis.del(...keys)
    redis?.disconnect()
    await admin?.query(`DROP USER IF EXISTS '${mysqlUser}'@'%'`)
    await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``)
    await admin?.end()
    await new Promise((resolve) => model?.close(resolve))
    await receiver?.close()
  })

  it("the config holds them Redacted: its JSON and its inspection show none", () => {
    const config = loadConfig(env)
    expectNoSecret("JSON of the config", JSON.stringify(config))
    expectNoSecret("String of the config", String(Object.values(config)))
  })

  it("a run (Redis + MariaDB with passwords, API key, OTLP token): no log line, /metrics, /healthz, trace, span or audit row holds one", async () => {
    const migrate = captureIo(env)
    const migrated = await captureLogs(() => main(["migrate"], migrate.io))
    expect(migrated.value, migrate.err.join("\n")).toBe(0)
    expectNoSecret("migrate output", [...migrate.out, ...migrate.err, migrated.logs].join("\n"))

    const config = loadConfig(env)
    const runtime = makeAppRuntime(config)
    const { value, logs } = await captureLogs(async () => {
      try {
        const outcome = await runtime.runPromise(diagnose({ question: "why is checkout failing?" }))
        const app = makeHttpApp(runtime, config)
        const metrics = await (await app.request("/metrics")).text()
        const health = await (await app.request("/healthz")).text()
        const ready = await (await app.request("/readyz")).text()
        return { outcome, metrics, health, ready }
      } finally {
        await runtime.dispose()
      }
    })
    // The secrets were used: the key reached the model server, the run wrote to both backends.
    expect(authorizations.length).toBeGreaterThan(0)
    expect(authorizations.every((a) => a === `Bearer ${API_KEY}`)).toBe(true)
    expect(value.outcome.trace.found).toBe(true)
    expect(await redis.keys(`aiops_sec_${id}*`)).not.toEqual([])
    expect(value.metrics).toContain("aiops_")

    // JSON log lines were written (debug level), and hold no secret.
    expect(logs).toMatch(/"level"|"message"/)
    expectNoSecret("log lines", logs)
    expectNoSecret("/metrics", value.metrics)
    expectNoSecret("/healthz", value.health)
    expectNoSecret("/readyz", value.ready)
    expectNoSecret("the run's result and trace", JSON.stringify(value.outcome))
    // Spans reached the collector (with the token in its request header, as configured) and
    // none of their content holds a secret.
    expect(receiver.requests.length).toBeGreaterThan(0)
    expectNoSecret("exported spans", receiver.requests.map((r) => r.body.toString("utf8")).join("\n"))
    // Every audit row of every table.
    const [tables] = await admin.query<mysql.RowDataPacket[]>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ?",
      [database]
    )
    expect(tables.length).toBeGreaterThan(0)
    let rows = 0
    for (const { t } of tables) {
      const [all] = await admin.query<mysql.RowDataPacket[]>(`SELECT * FROM \`${database}\`.\`${t}\``)
      rows += all.length
      expectNoSecret(`audit table ${t}`, JSON.stringify(all))
    }
    expect(rows).toBeGreaterThan(0)
  }, 120_000)

  it("error messages: a wrong password, an unreachable server and a malformed URL never show one", async () => {
    const failures: ReadonlyArray<[string, Record<string, string>, string]> = [
      [
        "wrong MySQL password",
        { MYSQL_URL: env.MYSQL_URL!.replace(MYSQL_PASSWORD, `${MYSQL_PASSWORD}x`) },
        "access denied"
      ],
      [
        "wrong Redis password",
        { REDIS_URL: env.REDIS_URL!.replace(REDIS_PASSWORD, `${REDIS_PASSWORD}x`) },
        "cannot start: canonical store: Redis at"
      ],
      [
        "unreachable Redis",
        { REDIS_URL: `redis://${redisUser}:${REDIS_PASSWORD}@127.0.0.1:1` },
        "127.0.0.1:1 is unreachable"
      ]
    ]
    for (const [what, change, said] of failures) {
      const io = captureIo({ ...env, ...change })
      const { value, logs } = await captureLogs(() => main(["diagnose", "why?"], io.io))
      expect(value, what).toBe(1)
      expect(io.err.join("\n"), what).toContain(said)
      expectNoSecret(what, [...io.err, ...io.out, logs].join("\n"))
    }

    for (const bad of [
      { REDIS_URL: `http://${redisUser}:${REDIS_PASSWORD}@h:1` },
      { MYSQL_URL: `mysql://${mysqlUser}:${MYSQL_PASSWORD}@h:1` },
      { OTEL_EXPORTER_OTLP_HEADERS: `${OTLP_TOKEN}` },
      { OPENAI_BASE_URL: "" }
    ]) {
      const io = captureIo({ ...env, ...bad })
      expect(await main(["diagnose", "why?"], io.io)).toBe(1)
      expect(io.err.join("\n")).toMatch(/^configuration error: [A-Z_]+: expected /)
      expectNoSecret(`InvalidConfig for ${Object.keys(bad)[0]}`, io.err.join("\n"))
    }
  }, 120_000)
})
