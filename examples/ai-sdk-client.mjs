// Consumes POST /api/ai-sdk/chat with the AI SDK's own transport and reader (`ai` package):
// what `useChat({ transport: new DefaultChatTransport({ api }) })` does in a React app.
// Prints the UI message parts the reader assembled, then the metadata (run id, usage).
//
//   pnpm start                                   # the harness on http://127.0.0.1:8787
//   node examples/ai-sdk-client.mjs "why is checkout returning 500s?"
import { randomUUID } from "node:crypto"
import { DefaultChatTransport, readUIMessageStream } from "ai"

const base = process.env.HARNESS_URL ?? "http://127.0.0.1:8787"
const question = process.argv[2] ?? "why is checkout returning 500s?"

const transport = new DefaultChatTransport({ api: `${base}/api/ai-sdk/chat` })
const stream = await transport.sendMessages({
  chatId: `chat-${randomUUID()}`, // the harness's sessionId
  trigger: "submit-message",
  messageId: undefined,
  abortSignal: undefined,
  messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text: question }] }]
})

let message
for await (const snapshot of readUIMessageStream({ stream })) message = snapshot

for (const part of message?.parts ?? []) {
  if (part.type === "step-start") console.log("-- step")
  else if (part.type.startsWith("tool-")) {
    console.log(`   ${part.type} [${part.toolCallId}] ${part.state} ${part.output?.evidence_status ?? ""}`)
  } else if (part.type.startsWith("data-")) console.log(`   ${part.type} ${JSON.stringify(part.data)}`)
  else if (part.type === "text") console.log(`\n${part.text}\n`)
}
console.log("metadata:", JSON.stringify(message?.metadata))
