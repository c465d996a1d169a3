// HTTP input bounds of the reference app (printed, never asserted): server RSS and answer sizes
// for a declared 10 MB body, a chunked 50 MB body, 200k unknown keys (2.2 MB) and 5k keys (48 KB).
// Usage: pnpm --filter @aiops-harness/diagnosis-harness... build && node scripts/bench/app-http-body.mjs [cli.js]
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { request } from "node:http"
import { fileURLToPath } from "node:url"

const cli =
  process.argv[2] ?? fileURLToPath(new URL("../../apps/diagnosis-harness/dist/cli.js", import.meta.url))
const server = spawn(process.execPath, [cli, "serve", "--port", "0"], {
  stdio: ["ignore", "pipe", "pipe"],
  env: { PATH: process.env.PATH ?? "" }
})
const port = await new Promise((resolve, reject) => {
  let text = ""
  const onData = (d) => {
    text += d
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(text)
    if (m) resolve(Number(m[1]))
  }
  server.stdout.on("data", onData)
  server.stderr.on("data", onData)
  server.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${text}`)))
})
const rssMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024)

/** Writes up to `total` bytes (chunked unless `declared`), stopping as soon as the server answers. */
const post = (total, { declared, body } = {}) =>
  new Promise((resolve) => {
    let written = 0
    let done = false
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/chat",
      headers: {
        "content-type": "application/json",
        ...(declared ? { "content-length": String(total) } : {})
      }
    })
    req.on("response", (res) => {
      let bytes = 0
      res.on("data", (d) => {
        bytes += d.length
      })
      res.on("end", () => {
        done = true
        resolve({ status: res.statusCode, answerBytes: bytes, clientWrote: written })
        req.destroy()
      })
    })
    req.on("error", () => {
      if (!done) resolve({ status: "socket closed", clientWrote: written })
    })
    const chunk = body ?? Buffer.alloc(64 * 1024, 0x20)
    const pump = () => {
      while (!done && written < total) {
        const n = Math.min(chunk.length, total - written)
        written += n
        if (!req.write(chunk.subarray(0, n))) return req.once("drain", pump)
      }
      if (!done) req.end()
    }
    pump()
  })

const keysBody = (n) =>
  Buffer.from(
    JSON.stringify(
      Object.fromEntries([["question", "why?"], ...Array.from({ length: n }, (_, i) => [`k${i}`, 1])])
    )
  )

console.log(`rss at start: ${rssMb()} MB`)
const report = (name, r) => console.log(`${name}: ${JSON.stringify(r)}, rss ${rssMb()} MB`)
report("declared 10 MB", await post(10 * 1024 * 1024, { declared: true }))
report("chunked 50 MB", await post(50 * 1024 * 1024))
const many = keysBody(200_000)
report(`200k unknown keys (${many.length} bytes)`, await post(many.length, { declared: true, body: many }))
const some = keysBody(5_000)
report(`5k unknown keys (${some.length} bytes)`, await post(some.length, { declared: true, body: some }))
server.kill("SIGTERM")
