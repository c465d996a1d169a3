import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { InvalidConfig, DEFAULT_MAX_BODY_BYTES, loadConfig } from "../src/config.js"
import { boundedKeyList, MAX_KEYS_LISTED, makeHttpApp } from "../src/http.js"
import { type RunningServer, startServer } from "../src/server.js"
import { makeTestWorld, type TestWorld } from "./helpers.js"

const TOO_LARGE = (limit: number) => ({
  error: "PAYLOAD_TOO_LARGE",
  message: `the body is limited to ${limit} bytes`
})

interface RawAnswer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
  /** Body bytes the client had handed to the socket when the answer arrived. */
  readonly written: number
}

/**
 * POSTs to a real socket, writing `chunk` up to `total` bytes (chunked unless `contentLength`
 * is given) and stopping as soon as the server answers: a server that reads the body whole
 * would make the client write all of it first.
 */
const rawPost = (
  port: number,
  options: { readonly total: number; readonly chunk: Buffer; readonly contentLength?: number }
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    let written = 0
    let answered = false
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/chat",
      headers: {
        "content-type": "application/json",
        ...(options.contentLength !== undefined ? { "content-length": String(options.contentLength) } : {})
      }
    })
    req.on("response", (res) => {
      answered = true
      const parts: Buffer[] = []
      res.on("data", (d: Buffer) => parts.push(d))
      res.on("end", () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts).toString("utf8"),
          written
        })
        req.destroy()
      })
    })
    // The server may close the socket mid-upload after answering: that is the point.
    req.on("error", (error) => {
      if (!answered) reject(error)
    })
    const pump = () => {
      while (!answered && written < options.total) {
        const n = Math.min(options.chunk.length, options.total - written)
        written += n
        if (!req.write(n === options.chunk.length ? options.chunk : options.chunk.subarray(0, n))) {
          req.once("drain", pump)
          return
        }
      }
      if (!answered && written >= options.total) req.end()
    }
    pump()
  })

describe("HTTP body limit (real socket)", () => {
  let world: TestWorld
  let server: RunningServer
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion" })
    server = await startServer(world.runtime, { ...world.config, port: 0, host: "127.0.0.1" })
  })
  afterAll(async () => {
    await server.close()
  })

  it("refuses a declared 10 MB body with 413 before reading it (only 64 KB are ever sent)", async () => {
    const answer = await rawPost(server.port, {
      total: 64 * 1024,
      chunk: Buffer.alloc(16 * 1024, 0x20),
      contentLength: 10 * 1024 * 1024
    })
    expect(answer.status).toBe(413)
    expect(answer.headers.connection).toBe("close")
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE(DEFAULT_MAX_BODY_BYTES))
  })

  it("refuses a chunked 50 MB body without content-length while it streams", async () => {
    const total = 50 * 1024 * 1024
    const answer = await rawPost(server.port, { total, chunk: Buffer.alloc(64 * 1024, 0x20) })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body)).toEqual(TOO_LARGE(DEFAULT_MAX_BODY_BYTES))
    // Answered long before the client could send it all: the server stopped reading.
    expect(answer.written).toBeLessThan(total)
  })

  it("still serves a body within the limit on the same server", async () => {
    const body = Buffer.from(JSON.stringify({ question: "" }))
    const answer = await rawPost(server.port, { total: body.length, chunk: body })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: "INVALID_REQUEST", message: "question is required" })
  })

  it("reads a small chunked body (no content-length) once it is counted", async () => {
    const body = Buffer.from(JSON.stringify({ question: "", sessionId: "s-chunked" }))
    const answer = await rawPost(server.port, { total: body.length, chunk: body })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: "INVALID_REQUEST", message: "question is required" })
  })

  it("answers a deeply nested body within the limit with a small 400", async () => {
    const depth = 30_000
    const nested = Buffer.from(`{"question":"why?","x":${"[".repeat(depth)}${"]".repeat(depth)}}`)
    expect(nested.length).toBeLessThan(DEFAULT_MAX_BODY_BYTES)
    const answer = await rawPost(server.port, {
      total: nested.length,
      chunk: nested,
      contentLength: nested.length
    })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: "INVALID_REQUEST", message: 'unknown field(s): "x"' })
  })

  it("lists at most a few unknown keys, cut, in a small 400 (10k keys within the limit)", async () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`)
    const body = Buffer.from(
      JSON.stringify(Object.fromEntries([["question", "why?"], ...keys.map((k) => [k, 1])]))
    )
    expect(body.length).toBeLessThan(DEFAULT_MAX_BODY_BYTES)
    const answer = await rawPost(server.port, { total: body.length, chunk: body })
    expect(answer.status).toBe(400)
    expect(answer.body.length).toBeLessThan(400)
    expect(JSON.parse(answer.body)).toEqual({
      error: "INVALID_REQUEST",
      message: 'unknown field(s): "k0", "k1", "k2", "k3", "k4" and 4995 more'
    })
  })
})

describe("HTTP body limit (in-process)", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion", HTTP_MAX_BODY_BYTES: "1024" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("honours the configured limit for a declared length", async () => {
    const app = makeHttpApp(world.runtime, world.config)
    const body = JSON.stringify({ question: "x".repeat(1100) })
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(body.length) },
      body
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual(TOO_LARGE(1024))
  })

  it("counts a streamed body without content-length", async () => {
    const app = makeHttpApp(world.runtime, world.config)
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        if (pulled > 1000) controller.close()
        else controller.enqueue(new Uint8Array(256).fill(0x20))
      }
    })
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual(TOO_LARGE(1024))
    // It stopped pulling right after the limit (1024 bytes = 4 chunks), not after 1000 chunks.
    expect(pulled).toBeLessThan(10)
  })

  it("refuses an oversized body whatever its content type or route", async () => {
    const app = makeHttpApp(world.runtime, world.config)
    const big = "x".repeat(2000)
    for (const [path, type] of [
      ["/api/chat", "text/plain"],
      ["/healthz", "application/json"]
    ] as const) {
      const response = await app.request(path, {
        method: "POST",
        headers: { "content-type": type, "content-length": String(big.length) },
        body: big
      })
      expect(response.status).toBe(413)
    }
  })

  it("cuts long unknown keys and names at most a few", async () => {
    expect(boundedKeyList(["a".repeat(100)])).toBe(`"${"a".repeat(39)}…"`)
    expect(boundedKeyList(["a", "b"])).toBe('"a", "b"')
    const many = Array.from({ length: MAX_KEYS_LISTED + 3 }, (_, i) => `k${i}`)
    expect(boundedKeyList(many)).toBe('"k0", "k1", "k2", "k3", "k4" and 3 more')
    // A key cannot break out of its quotes.
    expect(boundedKeyList(['a", "b'])).toBe('"a\\", \\"b"')
  })
})

describe("HTTP_MAX_BODY_BYTES", () => {
  it("defaults to 64 KB and accepts 256..16 MiB", () => {
    expect(loadConfig({}).maxBodyBytes).toBe(65536)
    expect(loadConfig({ HTTP_MAX_BODY_BYTES: "256" }).maxBodyBytes).toBe(256)
    expect(() => loadConfig({ HTTP_MAX_BODY_BYTES: "255" })).toThrow(InvalidConfig)
    expect(() => loadConfig({ HTTP_MAX_BODY_BYTES: "64kb" })).toThrow(/HTTP_MAX_BODY_BYTES/)
    expect(() => loadConfig({ HTTP_MAX_BODY_BYTES: String(16 * 1024 * 1024 + 1) })).toThrow(InvalidConfig)
  })
})
