// Consumes the harness's own SSE format on POST /api/chat with nothing but fetch: events
// `metadata`, `progress`, `answer` (or `error`), each with an `id:`, plus `: heartbeat` comments.
//
//   pnpm start                                   # the harness on http://127.0.0.1:8787
//   node examples/chat-sse-client.mjs "why is checkout returning 500s?"
const base = process.env.HARNESS_URL ?? "http://127.0.0.1:8787"
const question = process.argv[2] ?? "why is checkout returning 500s?"

const response = await fetch(`${base}/api/chat`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ question })
})
if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`)

const decoder = new TextDecoder()
let buffer = ""
for await (const chunk of response.body) {
  buffer += decoder.decode(chunk, { stream: true })
  for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
    const block = buffer.slice(0, end)
    buffer = buffer.slice(end + 2)
    if (block.startsWith(":")) continue // heartbeat comment
    const field = (name) =>
      block
        .split("\n")
        .filter((l) => l.startsWith(`${name}: `))
        .map((l) => l.slice(name.length + 2))
        .join("\n")
    const data = JSON.parse(field("data"))
    const event = field("event")
    if (event === "answer") console.log(`\n[${field("id")}] ${data.releaseResult}\n${data.content}`)
    else console.log(`[${field("id")}] ${event} ${JSON.stringify(data)}`)
  }
}
