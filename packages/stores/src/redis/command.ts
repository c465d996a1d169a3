import { StoreError } from "@aiops-harness/core"
import { Effect } from "effect"
import { storeError } from "./client.js"
import { type Deadlines, Expiring } from "./deadlines.js"

type Operation = StoreError["operation"]

/** What one store operation sends, and what its reply becomes. */
export interface Command<A, B, E> {
  readonly operation: Operation
  readonly send: () => Promise<A>
  /** Sent instead, once, when `send` fails with `NOSCRIPT` (EVALSHA of a script the server lost). */
  readonly onNoScript?: () => Promise<A>
  readonly reply: (value: A) => Effect.Effect<B, E>
}

const isNoScript = (cause: unknown): boolean => cause instanceof Error && cause.message.startsWith("NOSCRIPT")

/** One command in flight: settles once, by its reply, its failure or its deadline. */
class PendingCommand<A, B, E> extends Expiring {
  private settled = false
  private retried = false

  constructor(
    private readonly command: Command<A, B, E>,
    private readonly resume: (effect: Effect.Effect<B, E | StoreError>) => void,
    private readonly deadlines: Deadlines
  ) {
    super()
  }

  /** Sends `send` with a full deadline of its own (the EVAL after NOSCRIPT gets one too). */
  sendWith(send: () => Promise<A>): void {
    this.deadlines.add(this)
    let reply: Promise<A>
    try {
      reply = send()
    } catch (cause) {
      this.failed(cause)
      return
    }
    reply.then(this.ok, this.failed)
  }

  private settle(effect: Effect.Effect<B, E | StoreError>): void {
    if (this.settled) return
    this.settled = true
    this.deadlines.delete(this)
    this.resume(effect)
  }

  private readonly ok = (value: A): void => {
    if (this.settled) return
    let outcome: Effect.Effect<B, E | StoreError>
    try {
      outcome = this.command.reply(value)
    } catch (defect) {
      // A bug in a reply mapping is a defect of this call, not an unhandled rejection and a hang.
      outcome = Effect.die(defect)
    }
    this.settle(outcome)
  }

  private readonly failed = (cause: unknown): void => {
    if (this.settled) return
    const { onNoScript } = this.command
    if (onNoScript !== undefined && !this.retried && isNoScript(cause)) {
      this.retried = true
      this.sendWith(onNoScript)
      return
    }
    this.settle(Effect.fail(storeError(this.command.operation, cause)))
  }

  expire(): void {
    this.settle(Effect.fail(new StoreError({ operation: this.command.operation, reason: "TIMEOUT" })))
  }
}

/**
 * Sends `command` and resumes with its outcome: its reply, a `StoreError`, or TIMEOUT at its
 * deadline (ioredis' own command timeout is off, see client.ts). Called from an
 * `Effect.callback`: no racing fiber or promise per command, those cost about a third of a
 * local round trip.
 */
export const startCommand = <A, B, E>(
  deadlines: Deadlines,
  command: Command<A, B, E>,
  resume: (effect: Effect.Effect<B, E | StoreError>) => void
): void => {
  new PendingCommand(command, resume, deadlines).sendWith(command.send)
}
