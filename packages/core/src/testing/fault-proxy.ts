import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net"

/**
 * How a `FaultProxy` treats traffic:
 * - `forward`: a transparent TCP proxy;
 * - `refuse`: new connections are closed at once, open ones keep working (a server that stops
 *   accepting);
 * - `blackhole`: connections are accepted and kept, nothing is forwarded either way, and no side
 *   learns of a close (packets dropped by a firewall). TCP retransmits what a peer sent, so the
 *   bytes are held and delivered on `restore()`, like a healed network would;
 * - `pause`: the same as seen through a proxy (a `SIGSTOP`-ed server that resumes).
 * A client that gives up closes its connection: its held bytes are then dropped.
 */
export type FaultMode = "forward" | "refuse" | "blackhole" | "pause"

export interface FaultProxy {
  /** The port on 127.0.0.1 to connect to instead of the target. */
  readonly port: number
  /** `url` with its host and port replaced by the proxy's. */
  readonly urlFor: (url: string) => string
  readonly mode: () => FaultMode
  /** New connections are refused; `kill()` also drops the open ones. */
  readonly refuse: () => void
  /** Closes every open connection and refuses new ones (the server died). */
  readonly kill: () => void
  readonly blackhole: () => void
  readonly pause: () => void
  /** Forwards again (held bytes of a pause are delivered first). */
  readonly restore: () => void
  /** Connections accepted since the proxy started. */
  readonly accepted: () => number
  /** Open client connections. */
  readonly open: () => number
  readonly close: () => Promise<void>
}

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  readonly heldUp: Buffer[]
  readonly heldDown: Buffer[]
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` that a test can break and heal: the fault
 * suites put it between the app and Redis or MySQL. Stop it with `close()`.
 */
export const startFaultProxy = async (target: {
  readonly host: string
  readonly port: number
}): Promise<FaultProxy> => {
  let mode: FaultMode = "forward"
  let accepted = 0
  const pairs = new Set<Pair>()
  const sockets = new Set<Socket>()
  const track = (s: Socket) => {
    sockets.add(s)
    s.on("error", () => undefined)
    s.on("close", () => sockets.delete(s))
  }
  const server: Server = createServer((client) => {
    accepted++
    track(client)
    if (mode === "refuse") {
      client.destroy()
      return
    }
    const upstream = tcpConnect({ host: target.host, port: target.port })
    track(upstream)
    const pair: Pair = { client, upstream, heldUp: [], heldDown: [] }
    pairs.add(pair)
    client.on("data", (chunk) => {
      if (mode === "forward" || mode === "refuse") upstream.write(chunk)
      else pair.heldUp.push(chunk)
    })
    upstream.on("data", (chunk) => {
      if (mode === "forward" || mode === "refuse") client.write(chunk)
      else pair.heldDown.push(chunk)
    })
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on("close", end)
    upstream.on("close", () => {
      // A hung server never closes its side as the client sees it.
      if (mode !== "blackhole" && mode !== "pause") end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  const dropAll = () => {
    for (const s of sockets) s.destroy()
    pairs.clear()
  }
  return {
    port,
    urlFor: (url) => {
      const u = new URL(url)
      u.hostname = "127.0.0.1"
      u.port = String(port)
      return u.toString()
    },
    mode: () => mode,
    refuse: () => {
      mode = "refuse"
    },
    kill: () => {
      mode = "refuse"
      dropAll()
    },
    blackhole: () => {
      mode = "blackhole"
    },
    pause: () => {
      mode = "pause"
    },
    restore: () => {
      mode = "forward"
      for (const pair of pairs) {
        for (const chunk of pair.heldUp.splice(0)) pair.upstream.write(chunk)
        for (const chunk of pair.heldDown.splice(0)) pair.client.write(chunk)
      }
    },
    accepted: () => accepted,
    open: () => pairs.size,
    close: () =>
      new Promise<void>((resolve) => {
        mode = "refuse"
        dropAll()
        server.close(() => resolve())
      })
  }
}
