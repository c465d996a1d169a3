// Consumes POST /api/ag-ui with AG-UI's own client (@ag-ui/client HttpAgent): the same code
// a CopilotKit runtime or any AG-UI frontend runs. Prints each event as it arrives, then the
// assistant message the client assembled.
//
//   pnpm start                                   # the harness on http://127.0.0.1:8787
//   node examples/ag-ui-client.mjs "why is checkout returning 500s?"
import { randomUUID } from "node:crypto"
import { HttpAgent } from "@ag-ui/client"

const base = process.env.HARNESS_URL ?? "http://127.0.0.1:8787"
const question = process.argv[2] ?? "why is checkout returning 500s?"

const agent = new HttpAgent({
  url: `${base}/api/ag-ui`,
  threadId: `thread-${randomUUID()}`, // the harness's sessionId
  initialMessages: [{ id: randomUUID(), role: "user", content: question }]
})

const { newMessages } = await agent.runAgent(
  { runId: randomUUID() },
  {
    onEvent: ({ event }) => {
      switch (event.type) {
        case "STEP_STARTED":
          console.log(`-- ${event.stepName}`)
          break
        case "TOOL_CALL_START":
          console.log(`   tool ${event.toolCallName} [${event.toolCallId}]`)
          break
        case "TOOL_CALL_RESULT": {
          const observation = JSON.parse(event.content)
          console.log(`   -> ${observation.status ?? "READY"} ${observation.evidence_status ?? ""}`)
          break
        }
        case "CUSTOM":
          console.log(`   ${event.name} ${JSON.stringify(event.value)}`)
          break
        case "RUN_FINISHED":
          console.log(`RUN_FINISHED ${JSON.stringify(event.result)} usage ${JSON.stringify(event.usage)}`)
          break
        case "RUN_ERROR":
          console.log(`RUN_ERROR ${event.code}: ${event.message}`)
          break
      }
    }
  }
)
// Tool calls arrive as assistant messages with `toolCalls`; the report is the last one with text.
const answer = newMessages
  .filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content)
  .at(-1)
console.log(`\n${answer?.content ?? "(no answer)"}`)
