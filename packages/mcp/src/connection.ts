import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { revealed } from "@aiops-harness/core"
import type { ExternalServerConfig } from "./config.js"

/** Default connect and call timeout of an external server, in milliseconds. */
export const DEFAULT_EXTERNAL_TIMEOUT_MS = 10_000

/** A lazily (re)connected client of one external server: a server that died is respawned on the next call. */
export interface ExternalConnection {
  readonly server: string
  /** The connected client, (re)connecting first when needed. */
  readonly client: () => Promise<Client>
  /** Closes the connection; no reconnect after it. */
  readonly close: () => Promise<void>
}

/** Default largest message accepted from an external server, in bytes. */
export const DEFAULT_MAX_MESSAGE_BYTES = 20 * 1024 * 1024

/** Thrown into the transport when a server's message is over `maxMessageBytes`. */
export class MessageTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`message over ${limit} bytes`)
  }
}

/**
 * `fetch` whose response bodies error past `maxBytes`: an HTTP server's oversized answer is
 * cut while streaming, never buffered whole.
 */
export const boundedFetch =
  (maxBytes: number, base: typeof fetch = fetch): typeof fetch =>
  async (input, init) => {
    const response = await base(input, init)
    if (response.body === null) return response
    let seen = 0
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength
        if (seen > maxBytes) controller.error(new MessageTooLarge(maxBytes))
        else controller.enqueue(chunk)
      }
    })
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
  }

const transportOf = (config: ExternalServerConfig): Transport => {
  const maxBytes = config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  return "command" in config
    ? new StdioClientTransport({
        command: config.command,
        args: [...config.args],
        env: { ...getDefaultEnvironment(), ...(config.env ? revealed(config.env) : {}) },
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: "inherit",
        // The SDK's read buffer errors (and closes the transport) past this size.
        maxBufferSize: maxBytes
      })
    : new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers ? { requestInit: { headers: { ...revealed(config.headers) } } } : {}),
        fetch: boundedFetch(maxBytes)
      })
}

/** Rejects after `ms` (and runs `onTimeout`), so that a server that never answers cannot hang startup. */
const withTimeout = <A>(promise: Promise<A>, ms: number, onTimeout: () => void): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout()
      reject(new Error("timeout"))
    }, ms)
    promise.then(
      (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      (e) => {
        clearTimeout(timer)
        reject(e)
      }
    )
  })

/** Makes a lazily connected `ExternalConnection` to one configured server. */
export const makeExternalConnection = (server: string, config: ExternalServerConfig): ExternalConnection => {
  let current: Promise<Client> | null = null
  let closed = false
  const connectTimeout = config.connectTimeoutMs ?? DEFAULT_EXTERNAL_TIMEOUT_MS
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: "aiops-harness", version: "0.1.0" })
    const transport = transportOf(config)
    // A child that did not complete `initialize` gets no grace period: killed at once.
    const kill = () => {
      const pid = transport instanceof StdioClientTransport ? transport.pid : null
      if (pid !== null) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
    }
    try {
      await withTimeout(client.connect(transport), connectTimeout, kill)
    } catch (error) {
      kill()
      await client.close().catch(() => undefined)
      throw error
    }
    return client
  }
  return {
    server,
    client: () => {
      if (closed) return Promise.reject(new Error("connection closed"))
      if (current === null) {
        const attempt = connect()
        current = attempt
        attempt.then(
          (client) => {
            // The server went away: the next call reconnects (this connection only, not a newer one).
            client.onclose = () => {
              if (current === attempt) current = null
            }
          },
          () => {
            if (current === attempt) current = null
          }
        )
      }
      return current
    },
    close: async () => {
      closed = true
      const c = current
      current = null
      if (c) await c.then((client) => client.close()).catch(() => undefined)
    }
  }
}
