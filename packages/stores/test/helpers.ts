import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { testId } from "@aiops-harness/core/testing"
import { Effect, Exit } from "effect"
import { Redis } from "ioredis"
import type { RedisCanonicalStoreConfig } from "../src/index.js"

/** A unique key prefix per test run: tests never see each other's (or anyone's) keys. */
export const uniquePrefix = (label: string): string => `stores-test:${testId(label)}`

export const baseConfig = (url: string, overrides: Partial<RedisCanonicalStoreConfig> = {}) =>
  ({
    url,
    keyPrefix: uniquePrefix("redis"),
    ttlMillis: 1_500,
    maxRecordBytes: 4_096,
    commandTimeoutMs: 1_000,
    connectTimeoutMs: 1_000,
    ...overrides
  }) satisfies RedisCanonicalStoreConfig

/** A plain client for assertions (PTTL, CLIENT KILL, corrupt values). */
export const rawClient = (url: string): Redis => new Redis(url, { maxRetriesPerRequest: 1 })

const listen = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address && typeof address === "object") resolve(address.port)
      else reject(new Error("no port"))
    })
  })

/** A TCP server that accepts connections and never answers a byte. */
export const silentServer = async (): Promise<{ port: number; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on("error", () => {})
    socket.on("close", () => sockets.delete(socket))
  })
  const port = await listen(server)
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** A port on which nothing listens (bound, then released). */
export const unusedPort = async (): Promise<number> => {
  const server = createServer()
  const port = await listen(server)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * A TCP proxy in front of Redis that the test can break: `blackhole()` keeps connections
 * open but stops forwarding (Redis "hangs"), `kill()` closes every connection and drops
 * new ones at once (Redis "dies"), `restore()` forwards new connections again (Redis is
 * back). `accepted()` counts the connections the proxy accepted (reconnection attempts).
 */
export const faultyProxy = async (target: {
  host: string
  port: number
}): Promise<{
  port: number
  blackhole: () => void
  kill: () => void
  restore: () => void
  accepted: () => number
  close: () => Promise<void>
}> => {
  let mode: "forward" | "blackhole" | "dead" = "forward"
  let accepted = 0
  const sockets = new Set<Socket>()
  const track = (s: Socket) => {
    sockets.add(s)
    s.on("error", () => {})
    s.on("close", () => sockets.delete(s))
  }
  const server = createServer((client) => {
    accepted++
    track(client)
    if (mode === "dead") return client.destroy()
    const upstream = tcpConnect(target)
    track(upstream)
    client.on("data", (chunk) => {
      if (mode === "forward") upstream.write(chunk)
    })
    upstream.on("data", (chunk) => {
      if (mode === "forward") client.write(chunk)
    })
    client.on("close", () => upstream.destroy())
    upstream.on("close", () => {
      if (mode !== "blackhole") client.destroy()
    })
  })
  const port = await listen(server)
  return {
    port,
    blackhole: () => {
      mode = "blackhole"
    },
    kill: () => {
      mode = "dead"
      for (const s of sockets) s.destroy()
    },
    restore: () => {
      mode = "forward"
    },
    accepted: () => accepted,
    close: () =>
      new Promise((resolve) => {
        mode = "dead"
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/**
 * Wall-clock upper bound for "fails within a bounded time, never a hang" checks: three times
 * the expected worst case, so a loaded machine (turbo runs every package's suite at once)
 * does not fail them, while a hang (unbounded wait) still does.
 */
export const hangBound = (expectedMs: number): number => 3 * expectedMs

/** Retries `attempt` until it succeeds or `deadlineMs` passed (then rethrows its last error). */
export const eventually = async <A>(
  attempt: () => Promise<A>,
  deadlineMs: number,
  everyMs = 50
): Promise<A> => {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await sleep(everyMs)
    }
  }
}

/** Runs `effect` until it succeeds or `deadlineMs` passed (then fails with its last error). */
export const eventuallyEffect = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  deadlineMs: number,
  everyMs = 50
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const deadline = Date.now() + deadlineMs
    for (;;) {
      const exit = yield* Effect.exit(effect)
      if (Exit.isSuccess(exit) || Date.now() > deadline) return yield* exit
      yield* Effect.sleep(everyMs)
    }
  })

// ---- Redis Cluster fixture ------------------------------------------------------------------

export const hasBinary = (name: string): boolean =>
  spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).status === 0

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** Three consecutive ports P with P and the cluster bus port P+10000 free. */
export const freeClusterPorts = async (count = 3): Promise<number[]> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 17_000 + Math.floor(Math.random() * 10_000)
    const ports = Array.from({ length: count }, (_, i) => base + i)
    const checks = await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 10_000)]))
    if (checks.every(Boolean)) return ports
  }
  throw new Error("no free loopback ports for a Redis Cluster")
}

const run = (cmd: string, args: string[], timeoutMs = 15_000) => {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: timeoutMs })
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`)
  }
  return r.stdout
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface LocalCluster {
  readonly ports: ReadonlyArray<number>
  readonly stop: () => void
}

/** Starts a 3-master Redis Cluster on loopback and waits for `cluster_state:ok` everywhere. */
export const startLocalCluster = async (): Promise<LocalCluster> => {
  const ports = await freeClusterPorts(3)
  const dir = mkdtempSync(join(tmpdir(), "stores-cluster-"))
  const stop = () => {
    for (const p of ports) {
      spawnSync("redis-cli", ["-p", String(p), "shutdown", "nosave"], { encoding: "utf8", timeout: 5_000 })
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (const p of ports) {
      run("redis-server", [
        "--port",
        String(p),
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        join(dir, `nodes-${p}.conf`),
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "yes",
        "--dir",
        dir,
        "--bind",
        "127.0.0.1",
        "--logfile",
        join(dir, `redis-${p}.log`)
      ])
    }
    for (const p of ports) {
      for (let i = 0; ; i++) {
        const r = spawnSync("redis-cli", ["-p", String(p), "ping"], { encoding: "utf8" })
        if (r.stdout.trim() === "PONG") break
        if (i > 50) throw new Error(`redis-server on ${p} did not start`)
        await sleep(100)
      }
    }
    run("redis-cli", [
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes"
    ])
    const deadline = Date.now() + 20_000
    for (const p of ports) {
      while (!run("redis-cli", ["-p", String(p), "cluster", "info"]).includes("cluster_state:ok")) {
        if (Date.now() > deadline) throw new Error("Redis Cluster did not reach cluster_state:ok")
        await sleep(200)
      }
    }
    return { ports, stop }
  } catch (error) {
    stop()
    throw error
  }
}
