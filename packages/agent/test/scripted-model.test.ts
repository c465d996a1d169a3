import { Cause, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { ChatModel, type ChatRequest, ModelError } from "../src/index.js"
import { ScriptedChatModel, ScriptedTurn, ScriptViolation } from "../src/testing/index.js"

const ask = (purpose: ChatRequest["purpose"], content = "why is checkout returning 500s?"): ChatRequest => ({
  purpose,
  messages: [{ role: "user", content }]
})

const chat = (request: ChatRequest) =>
  Effect.gen(function* () {
    return yield* (yield* ChatModel).chat(request)
  })

/** The message of the `ScriptViolation` an exit died with. */
const violationOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a defect, got a success")
  const defect = exit.cause.reasons.find(Cause.isDieReason)?.defect
  expect(defect).toBeInstanceOf(ScriptViolation)
  return (defect as ScriptViolation).message
}

describe("ScriptedChatModel", () => {
  it("answers with its turns in order and remembers every request", async () => {
    const model = new ScriptedChatModel([
      ScriptedTurn.json({ intent: "DIAGNOSIS" }, { purpose: "router" }),
      ScriptedTurn.toolCall("c1", "lookup_knowledge", { query: "pool" }, { tokens: 7 }),
      ScriptedTurn.toolCalls([{ id: "c2", name: "query_logs", args: '{"topic":"application"}' }]),
      ScriptedTurn.text("done", { tokens: null, model: "m-1" })
    ])
    const answers = await Effect.runPromise(
      Effect.all([chat(ask("router")), chat(ask("agent")), chat(ask("agent")), chat(ask("agent"))]).pipe(
        Effect.provide(model.layer)
      )
    )
    expect(answers.map((a) => a.message.content)).toEqual(['{"intent":"DIAGNOSIS"}', null, null, "done"])
    expect(answers[1]?.message.toolCalls).toEqual([
      { id: "c1", name: "lookup_knowledge", arguments: '{"query":"pool"}' }
    ])
    expect(answers[2]?.message.toolCalls[0]?.arguments).toBe('{"topic":"application"}')
    expect(answers.map((a) => a.usage?.totalTokens ?? null)).toEqual([20, 14, 20, null])
    expect(answers[3]?.model).toBe("m-1")
    expect(model.requests.map((r) => r.purpose)).toEqual(["router", "agent", "agent", "agent"])
    expect(() => model.verify()).not.toThrow()
  })

  it("an extra call is a defect that names the call, not a ModelError", async () => {
    const model = new ScriptedChatModel([ScriptedTurn.text("only")])
    const exit = await Effect.runPromiseExit(
      Effect.andThen(chat(ask("agent")), chat(ask("semantic_guard", "judge this"))).pipe(
        Effect.catchTag("ModelError", () => Effect.succeed("handled")),
        Effect.provide(model.layer)
      )
    )
    expect(violationOf(exit)).toBe(
      'ScriptedChatModel: unexpected call 2 (purpose "semantic_guard", last message "user: judge this"): the script has 1 turn(s)'
    )
    expect(() => model.verify()).toThrow(/unexpected call 2/)
  })

  it("a call a turn's expectation rejects is a defect that says why", async () => {
    const byPurpose = new ScriptedChatModel([ScriptedTurn.text("x", { purpose: "router", label: "routing" })])
    const purposeExit = await Effect.runPromiseExit(chat(ask("agent")).pipe(Effect.provide(byPurpose.layer)))
    expect(violationOf(purposeExit)).toMatch(
      /turn 1 \(routing\) rejected the call .*expected purpose "router", got "agent"/
    )

    const reasons: ReadonlyArray<[ScriptedTurn["expect"], RegExp]> = [
      [() => false, /its expectation returned false/],
      [() => "no tools offered", /: no tools offered$/],
      [
        (r) => {
          expect(r.tools).toBeDefined()
        },
        /expected undefined to be defined/
      ]
    ]
    for (const [check, message] of reasons) {
      const model = new ScriptedChatModel([ScriptedTurn.text("x", { expect: check })])
      expect(
        violationOf(await Effect.runPromiseExit(chat(ask("agent")).pipe(Effect.provide(model.layer))))
      ).toMatch(message)
    }
    const accepted = new ScriptedChatModel([ScriptedTurn.text("x", { expect: (r) => r.purpose === "agent" })])
    await Effect.runPromise(chat(ask("agent")).pipe(Effect.provide(accepted.layer)))
  })

  it("unused turns: verify() throws, and the layer's scope close turns a success into a defect", async () => {
    const model = new ScriptedChatModel([ScriptedTurn.text("a"), ScriptedTurn.text("b", { label: "final" })])
    const exit = await Effect.runPromiseExit(chat(ask("agent")).pipe(Effect.provide(model.layer)))
    expect(violationOf(exit)).toBe("ScriptedChatModel: 1 of 2 turn(s) never used: turn 2 (final)")
    expect(model.unused).toHaveLength(1)
    expect(() => model.verify()).toThrow(ScriptViolation)
    // A failing test keeps its own failure: the close check does not pile on.
    const failing = new ScriptedChatModel([ScriptedTurn.text("a")])
    const failed = await Effect.runPromiseExit(Effect.fail("assertion").pipe(Effect.provide(failing.layer)))
    expect(failed).toEqual(Exit.fail("assertion"))
  })

  it("scripted failures and hangs", async () => {
    const error = new ModelError({ reason: "HTTP_STATUS", status: 500, attempts: 2 })
    const model = new ScriptedChatModel(
      [ScriptedTurn.fail("TIMEOUT"), ScriptedTurn.fail(error), ScriptedTurn.hang()],
      { info: { provider: "openai", model: "gpt-test" } }
    )
    const program = Effect.gen(function* () {
      const first = yield* Effect.flip(chat(ask("router")))
      const second = yield* Effect.flip(chat(ask("router")))
      const third = yield* Effect.timeoutOption(chat(ask("agent")), "1 millis")
      const info = (yield* ChatModel).info
      return { first, second, third, info }
    })
    const result = await Effect.runPromise(program.pipe(Effect.provide(model.layer)))
    expect(result.first).toEqual(new ModelError({ reason: "TIMEOUT", attempts: 1 }))
    expect(result.second).toBe(error)
    expect(result.third._tag).toBe("None")
    expect(result.info).toEqual({ provider: "openai", model: "gpt-test" })
  })
})
