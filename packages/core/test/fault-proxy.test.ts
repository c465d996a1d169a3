import { createServer, connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FaultProxy, startFaultProxy } from "../src/testing/index.js"

let echoPort = 0
const echo = createServer((s) => s.pipe(s))
let proxy: FaultProxy

beforeAll(async () => {
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve))
  const address = echo.address()
  echoPort = typeof address === "object" && address ? address.port : 0
  proxy = await startFaultProxy({ host: "127.0.0.1", port: echoPort })
})
afterAll(async () => {
  await proxy.close()
  await new Promise<void>((resolve) => echo.close(() => resolve()))
})

const open = (): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port: proxy.port }, () => resolve(s))
    s.once("error", reject)
  })
const reply = (s: Socket, text: string, waitMs = 300): Promise<string | null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs)
    s.once("data", (d) => {
      clearTimeout(timer)
      resolve(d.toString())
    })
    s.write(text)
  })
const closed = (s: Socket): Promise<void> => new Promise((resolve) => s.once("close", () => resolve()))

describe("fault proxy", () => {
  it("forwards, blackholes, pauses (delivering held bytes on restore), refuses and kills", async () => {
    const s = await open()
    expect(await reply(s, "a")).toBe("a")
    proxy.blackhole()
    expect(await reply(s, "held-1")).toBeNull()
    const received: string[] = []
    const collect = (d: Buffer) => void received.push(d.toString())
    s.on("data", collect)
    proxy.restore()
    await new Promise((r) => setTimeout(r, 200))
    // Held bytes first (a healed network delivers what TCP retransmitted), in order.
    expect(received.join("")).toBe("held-1")
    s.off("data", collect)
    proxy.pause()
    const held = reply(s, "held", 2000)
    await new Promise((r) => setTimeout(r, 100))
    proxy.restore()
    expect(await held).toBe("held")
    proxy.refuse()
    const refused = await open().then(closed)
    expect(refused).toBeUndefined()
    expect(await reply(s, "c")).toBe("c")
    const gone = closed(s)
    proxy.kill()
    await gone
    expect(proxy.open()).toBe(0)
    proxy.restore()
    const again = await open()
    expect(await reply(again, "d")).toBe("d")
    expect(proxy.urlFor("mysql://root@127.0.0.1:3306/db")).toBe(`mysql://root@127.0.0.1:${proxy.port}/db`)
    expect(proxy.accepted()).toBe(3)
    again.destroy()
  })
})
