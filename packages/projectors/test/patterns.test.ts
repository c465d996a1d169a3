import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { groupLogPatterns, normalizeLogMessage } from "../src/patterns/index.js"
import { maskedTokens } from "../src/patterns/normalize.js"
import * as sig from "../src/patterns/signature.js"

/** Grouping Accuracy: a line is correct when its predicted group equals its true group exactly. */
function groupingAccuracy(predicted: ReadonlyArray<number>, truth: ReadonlyArray<number>): number {
  const pred = new Map<number, number[]>()
  const real = new Map<number, number[]>()
  predicted.forEach((p, i) => {
    pred.set(p, [...(pred.get(p) ?? []), i])
    const t = truth[i]!
    real.set(t, [...(real.get(t) ?? []), i])
  })
  let correct = 0
  for (const members of real.values()) {
    const p = predicted[members[0]!]!
    if (pred.get(p)!.length === members.length && members.every((m) => predicted[m] === p)) {
      correct += members.length
    }
  }
  return predicted.length === 0 ? 1 : correct / predicted.length
}

/** Small deterministic PRNG (mulberry32) so the synthetic corpus is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Gen = (r: () => number) => string
const int =
  (max: number): Gen =>
  (r) =>
    String(Math.floor(r() * max))
const hex =
  (len: number): Gen =>
  (r) => {
    let s = ""
    for (let i = 0; i < len; i++) s += "0123456789abcdef"[Math.floor(r() * 16)]
    return s
  }
const ip: Gen = (r) => `10.${int(255)(r)}.${int(255)(r)}.${int(255)(r)}`
const uuid: Gen = (r) => `${hex(8)(r)}-${hex(4)(r)}-4${hex(3)(r)}-a${hex(3)(r)}-${hex(12)(r)}`
const dur: Gen = (r) => `${(r() * 900).toFixed(1)}ms`
const pick =
  (xs: ReadonlyArray<string>): Gen =>
  (r) =>
    xs[Math.floor(r() * xs.length)]!
const pod: Gen = (r) => `${pick(["api", "worker", "web", "cron"])(r)}-${hex(10)(r)}-${hex(5)(r)}`
const path: Gen = (r) => `/var/data/${pick(["a", "b", "c"])(r)}/${int(100000)(r)}.dat`

/**
 * Held-out synthetic "systems": templates invented here (Java, Go, nginx, k8s, Python, Postgres...)
 * with random variable fillers. Several templates differ only in one constant word.
 */
const TEMPLATES: ReadonlyArray<ReadonlyArray<string | Gen>> = [
  ["INFO Started ServerConnector@", hex(8), "{HTTP/1.1}{0.0.0.0:", int(65535), "}"],
  [
    "Exception in thread",
    '"main"',
    "java.lang.NullPointerException at com.acme.Foo.bar(Foo.java:",
    int(999),
    ")"
  ],
  ["Connection to", ip, "port", int(65535), "refused after", int(10), "retries"],
  ["Connection to", ip, "port", int(65535), "accepted after", int(10), "retries"],
  [ip, '- - "GET', path, 'HTTP/1.1"', int(600), int(100000), '"-" "curl/7.68.0"'],
  [ip, '- - "POST', path, 'HTTP/1.1"', int(600), int(100000), '"-" "curl/7.68.0"'],
  ["pod", pod, "in namespace default changed phase to Running"],
  ["pod", pod, "in namespace default changed phase to Pending"],
  ["Successfully pulled image", '"nginx:1.25"', "in", dur, "(", dur, "including waiting)"],
  ["http: TLS handshake error from", ip, ":", int(65535), ": EOF"],
  ["level=info msg=request handled method=GET status=", int(600), "latency=", dur, "request_id=", uuid],
  ["Traceback (most recent call last): File", '"/app/main.py",', "line", int(500), ", in handler"],
  ["checkpoint complete: wrote", int(9000), "buffers (", int(100), "%); 0 WAL file(s) added"],
  ["user", pick(["alice", "bob", "carol", "dave", "erin"]), "logged in from", ip],
  ["Deleted", int(500), "expired sessions in", dur],
  ["cache miss for key", uuid],
  ["cache hit for key", uuid],
  ["worker", int(64), "finished job", uuid, "in", dur]
]

function synthetic(seed: number, lines: number): { messages: string[]; truth: number[] } {
  const r = rng(seed)
  const messages: string[] = []
  const truth: number[] = []
  for (let i = 0; i < lines; i++) {
    const t = Math.floor(r() * TEMPLATES.length)
    const parts = TEMPLATES[t]!.map((p) => (typeof p === "string" ? p : p(r)))
    messages.push(parts.join(" "))
    truth.push(t)
  }
  return { messages, truth }
}

describe("normalizeLogMessage", () => {
  it("masks numbers, hex, IPs, UUIDs, paths and durations", () => {
    expect(normalizeLogMessage("took 123 ms to reach 10.0.0.1:8080")).toBe("took <*> to reach <*>")
    expect(normalizeLogMessage("id=0xdeadbeef uuid 123e4567-e89b-12d3-a456-426614174000")).toBe(
      "id=<*> uuid <*>"
    )
    expect(normalizeLogMessage("open /var/lib/data/000123.sst failed")).toBe("open <*> failed")
    expect(normalizeLogMessage("Received block blk_-6952295868487656571 of size 67108864")).toBe(
      "Received block blk_<*> of size <*>"
    )
    expect(normalizeLogMessage("size 5.2 KB, free 14.0 KB")).toBe("size <*>, free <*>")
    expect(normalizeLogMessage("instance aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee deleted")).toBe(
      "instance <*> deleted"
    )
  })

  it("keeps words, collapses whitespace and keeps word-like names with numeric suffixes", () => {
    expect(normalizeLogMessage("  Link   error on  interface eth0  ")).toBe("Link error on interface eth<*>")
    expect(normalizeLogMessage("")).toBe("")
    expect(normalizeLogMessage("   ")).toBe("")
  })

  it("collapses repeated variable tokens (variable-length lists)", () => {
    expect(normalizeLogMessage("ask to delete blk_1 blk_2 blk_3")).toBe("ask to delete blk_<*>")
    expect(normalizeLogMessage("stack @0x7fed806eb5d @0x7fef9fb9b6d @0xff83e97c")).toBe("stack <*>")
  })

  it("a key=value token whose value is partly variable is key=<*>; one without digits, or with a second key, keeps its words", () => {
    expect(normalizeLogMessage("client=worker-40.eu-west-1.compute.internal[10.10.147.15]")).toBe(
      "client=<*>"
    )
    expect(normalizeLogMessage("relay=mx-38.example.com[10.177.199.126]:25, delay=0.01,")).toBe(
      "relay=<*>, delay=<*>,"
    )
    expect(normalizeLogMessage("message-id=<ce601ea6.48936d@node-8.svc.cluster.local>")).toBe(
      "message-id=<*>"
    )
    expect(normalizeLogMessage("status=sent relay=mx.example.com")).toBe("status=sent relay=mx.example.com")
    expect(normalizeLogMessage("type=ContainerStarted,id=42")).toBe("type=ContainerStarted,id=<*>")
    // Long hostile tokens take one linear pass (a backtracking regex here would be quadratic).
    const commas = ",".repeat(200_000)
    expect(normalizeLogMessage(`k=1${commas}x`)).toBe("k=<*>")
    expect(normalizeLogMessage(`k=1${commas}`)).toBe(`k=<*>${commas}`)
    // `key:value` is left alone: too many non-key tokens look like it (times, file names).
    expect(normalizeLogMessage("AuthFail:sts:5_rsn:0.xml")).not.toBe("AuthFail:<*>")
  })

  it("a date written with month or weekday names is a variable; such a name with no number beside it is a word", () => {
    expect(normalizeLogMessage("connection at Tue Jul 9 21:07:05 2024")).toBe("connection at <*>")
    expect(normalizeLogMessage("started at Jul 2, 2024 1:56:19 PM: exit code 3")).toBe(
      "started at <*> <*>, <*> <*>: exit code <*>"
    )
    expect(normalizeLogMessage("Date: Mon, 19 Oct 2024 03:52:58 GMT")).toBe("Date: <*>, <*> GMT")
    expect(normalizeLogMessage("seen (Tue Jul 9 21:07:05 2024)")).toBe("seen (<*> <*> <*>)")
    expect(normalizeLogMessage("expires 09-Jul-2024 12:00:00 and 2024-JUL-09")).toBe("expires <*> and <*>")
    expect(normalizeLogMessage("window opens every Sun at 03:00")).toBe("window opens every Sun at <*>")
    expect(normalizeLogMessage("report for March is ready")).toBe("report for March is ready")
    expect(normalizeLogMessage("May I retry")).toBe("May I retry")
    expect(normalizeLogMessage("build alt0-Jan")).toBe("build alt<*>-Jan")
  })

  it("lines that differ only in the weekday or month of a date are one pattern", () => {
    const days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    const months = ["Jan", "Mar", "May", "Jul", "Sep", "Nov"]
    const lines: string[] = []
    for (let i = 0; i < 84; i++) {
      const when = `${days[i % 7]} ${months[i % 6]} ${1 + (i % 28)} 1${i % 10}:0${i % 6}:2${i % 9} 2024`
      lines.push(i % 2 === 0 ? `session opened at ${when}` : `alarm set to ${when} for pid ${300 + i}`)
    }
    const { patterns, patternIds } = groupLogPatterns(lines)
    expect(patterns.map((p) => p.template).sort()).toEqual([
      "alarm set to <*> for pid <*>",
      "session opened at <*>"
    ])
    expect(patternIds.every((id, i) => id === patternIds[i % 2])).toBe(true)
    // A date word at the maxTokens limit still sees the number after it.
    const cut = groupLogPatterns(
      ["ran Mon 5 ok", "ran Tue 6 ok", "ran Wed 7 ok", "ran Mon 8 ok", "ran Tue 9 ok", "ran Wed 4 ok"],
      { maxTokens: 2 }
    )
    expect(cut.patterns.map((p) => p.template)).toEqual(["ran <*>"])
    // The same through the regex split (non-ASCII whitespace).
    const split = groupLogPatterns(["ran\u00a0Mon 5", "ran\u00a0Tue 6", "ran\u00a0Mon 8", "ran\u00a0Tue 9"], {
      maxTokens: 2
    })
    expect(split.patterns.map((p) => p.template)).toEqual(["ran <*>"])
  })

  it("keeps apart short lines that differ only in a keyed or plain word after a variable", () => {
    const lines: string[] = []
    for (let i = 0; i < 30; i++) {
      const id = (0xa1b2c3d4e5 + i * 7919).toString(16).toUpperCase()
      lines.push(
        [
          `${id}: removed`,
          `${id}: client=web-${i}.example.com[10.0.0.${i}]`,
          `${id}: message-id=<${i}a@h-${i}.io>`
        ][i % 3]!
      )
    }
    const grouping = groupLogPatterns(lines)
    expect(grouping.patterns.map((p) => p.template).sort()).toEqual([
      "<*>: client=<*>",
      "<*>: message-id=<*>",
      "<*>: removed"
    ])
  })

  it("drops a parenthesised lone quantity as an optional annotation", () => {
    expect(normalizeLogMessage("1190 bytes (1.16 KB) sent")).toBe(normalizeLogMessage("0 bytes sent"))
  })
})

describe("groupLogPatterns", () => {
  it("returns empty output for empty input", () => {
    expect(groupLogPatterns([])).toEqual({ patternIds: [], patterns: [] })
  })

  it("handles one line", () => {
    const g = groupLogPatterns(["Server started on port 8080"])
    expect(g.patternIds).toEqual([0])
    expect(g.patterns).toEqual([{ id: 0, template: "Server started on port <*>", count: 1 }])
  })

  it("groups realistic lines from several ecosystems", () => {
    const lines = [
      "2024-01-01T10:00:00Z INFO  [main] c.a.Service - Started Service in 3.21 seconds (JVM running for 4.1)",
      '10.0.0.1 - - "GET /api/v1/users/42 HTTP/1.1" 200 512',
      '10.0.0.7 - - "GET /api/v1/users/77 HTTP/1.1" 200 1024',
      '10.0.0.9 - - "POST /api/v1/users HTTP/1.1" 201 64',
      '10.0.0.3 - - "POST /api/v1/users HTTP/1.1" 201 80',
      "pod api-7d9f8b6c5-x2k4j in namespace default changed phase to Running",
      "pod web-5f6d7c8b9-abcde in namespace default changed phase to Running",
      "pod web-5f6d7c8b9-abcde in namespace default changed phase to Failed",
      "pod cron-6c7d8e9f0-zzzzz in namespace default changed phase to Failed",
      "level=info msg=handled status=200 latency=12.5ms",
      "level=info msg=handled status=500 latency=3ms",
      "ERROR:root:Task 17 failed: timeout after 30s",
      "ERROR:root:Task 18 failed: timeout after 45s",
      "2024-01-01T10:00:00Z INFO  [main] c.a.Service - Started Service in 2.02 seconds (JVM running for 2.9)"
    ]
    const g = groupLogPatterns(lines)
    const id = g.patternIds
    expect(id[0]).toBe(id[13])
    expect(id[1]).toBe(id[2])
    expect(id[3]).toBe(id[4])
    expect(id[1]).not.toBe(id[3])
    expect(id[5]).toBe(id[6])
    expect(id[7]).toBe(id[8])
    expect(id[5]).not.toBe(id[7])
    expect(id[9]).toBe(id[10])
    expect(id[11]).toBe(id[12])
    const running = g.patterns[id[5]!]!
    expect(running.template).toBe("pod <*> in namespace default changed phase to Running")
    expect(running.count).toBe(2)
  })

  it("numbers ids by first appearance and aligns them with the input", () => {
    const lines = ["b 1", "a x", "b 2", "c", "a y", "c"]
    const g = groupLogPatterns(lines)
    expect(g.patternIds.length).toBe(lines.length)
    expect(g.patternIds[0]).toBe(0)
    const firstSeen: number[] = []
    for (const p of g.patternIds) if (!firstSeen.includes(p)) firstSeen.push(p)
    expect(firstSeen).toEqual(g.patterns.map((p) => p.id))
    g.patterns.forEach((p, i) => {
      expect(p.id).toBe(i)
      expect(p.count).toBe(g.patternIds.filter((x) => x === p.id).length)
    })
  })

  it("is deterministic (byte-identical output on repeated runs)", () => {
    const { messages } = synthetic(7, 3000)
    const a = JSON.stringify(groupLogPatterns(messages))
    const b = JSON.stringify(groupLogPatterns([...messages]))
    expect(a).toBe(b)
  })

  it("handles very long lines and unicode", () => {
    const long = "payload " + "x".repeat(200_000)
    const many = Array.from({ length: 5000 }, (_, i) => `tok${i % 7}`).join(" ")
    const lines = [
      long,
      long,
      many,
      "ユーザー 42 がログインしました",
      "ユーザー 43 がログインしました",
      "café ☕ served to 🎉 guest 7",
      "café ☕ served to 🎉 guest 9"
    ]
    const g = groupLogPatterns(lines)
    expect(g.patternIds.length).toBe(lines.length)
    expect(g.patternIds[0]).toBe(g.patternIds[1])
    expect(g.patternIds[3]).toBe(g.patternIds[4])
    expect(g.patternIds[5]).toBe(g.patternIds[6])
    expect(g.patterns[g.patternIds[3]!]!.template).toBe("ユーザー <*> がログインしました")
  })

  it("generalises to held-out synthetic systems (GA >= 0.9)", () => {
    for (const seed of [1, 2, 3]) {
      const { messages, truth } = synthetic(seed, 4000)
      const g = groupLogPatterns(messages)
      expect(groupingAccuracy(g.patternIds, truth)).toBeGreaterThanOrEqual(0.9)
    }
  })

  it("keeps templates apart that differ in one constant word", () => {
    const { messages, truth } = synthetic(11, 2000)
    const g = groupLogPatterns(messages)
    const idsOf = (t: number) => new Set(g.patternIds.filter((_, i) => truth[i] === t))
    // cache miss / cache hit (templates 15 and 16) and GET / POST (4 and 5)
    for (const [a, b] of [
      [15, 16],
      [4, 5],
      [2, 3]
    ] as const) {
      const ia = idsOf(a)
      for (const x of idsOf(b)) expect(ia.has(x)).toBe(false)
    }
  })

  it("property: lines of one random template mostly share an id, and output is deterministic", () => {
    const word = fc.stringMatching(/^[a-z]{3,9}$/)
    const filler = fc.oneof(
      fc.integer({ min: 0, max: 1_000_000 }).map(String),
      fc.ipV4(),
      fc.uuid(),
      fc.integer({ min: 0, max: 0xffffffff }).map((n) => "0x" + n.toString(16)),
      fc.double({ min: 0, max: 10_000, noNaN: true }).map((d) => d.toFixed(2) + "ms")
    )
    const template = fc.array(fc.oneof(word, fc.constant("<VAR>")), { minLength: 2, maxLength: 12 })
    fc.assert(
      fc.property(
        fc.uniqueArray(template, { minLength: 1, maxLength: 6, selector: (t) => t.join(" ") }),
        fc.array(fc.tuple(fc.nat(), fc.array(filler, { minLength: 12, maxLength: 12 })), {
          minLength: 20,
          maxLength: 80
        }),
        (templates, draws) => {
          const messages: string[] = []
          const truth: number[] = []
          for (const [k, fills] of draws) {
            const t = k % templates.length
            messages.push(templates[t]!.map((w, i) => (w === "<VAR>" ? fills[i]! : w)).join(" "))
            truth.push(t)
          }
          const g1 = groupLogPatterns(messages)
          const g2 = groupLogPatterns(messages)
          expect(JSON.stringify(g1)).toBe(JSON.stringify(g2))
          expect(g1.patternIds.length).toBe(messages.length)
          // Same template -> same id for most lines: the majority id of each template covers >= 80%.
          for (let t = 0; t < templates.length; t++) {
            const ids = g1.patternIds.filter((_, i) => truth[i] === t)
            if (ids.length === 0) continue
            const counts = new Map<number, number>()
            for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1)
            expect(Math.max(...counts.values()) / ids.length).toBeGreaterThanOrEqual(0.8)
          }
        }
      ),
      { numRuns: 200 }
    )
  })

  it("keeps a word column whose values mostly occur once (user names) as a variable", () => {
    const users = ["alice", "bob", "carol", "dave", "erin"]
    const messages = users.flatMap((u, i) => [
      `Invalid user ${u} from 10.0.0.${i}`,
      `Accepted key for ${u} port ${2000 + i}`
    ])
    const g = groupLogPatterns(messages)
    expect(g.patterns.map((p) => p.template).sort()).toEqual([
      "Accepted key for <*> port <*>",
      "Invalid user <*> from <*>"
    ])
  })

  it("splits on a repeated constant with brackets inside (a PAM service, a flag value)", () => {
    const messages: string[] = []
    for (let i = 0; i < 6; i++) {
      messages.push(`pam_unix(cron:session): session opened for user u${i}(uid=${100 + i}) by (uid=0)`)
      messages.push(`pam_unix(sudo:session): session opened for user root(uid=0) by u${i}(uid=${100 + i})`)
      messages.push(`driver::powerState: WWEN[${i % 2 === 0 ? "enable" : "disable"}] at ${i}.5`)
    }
    const g = groupLogPatterns(messages)
    expect(g.patterns.map((p) => p.template).sort()).toEqual([
      "driver::powerState: WWEN[disable] at <*>",
      "driver::powerState: WWEN[enable] at <*>",
      "pam_unix(cron:session): session opened for user <*>(uid=<*>) by (uid=<*>)",
      "pam_unix(sudo:session): session opened for user root(uid=<*>) by <*>(uid=<*>)"
    ])
  })

  it("splits on a repeated dotted constant (intent actions, class names)", () => {
    const messages: string[] = []
    for (let i = 0; i < 6; i++) {
      messages.push("processHandleBroadcastAction action:android.intent.action.TIME_TICK")
      messages.push("processHandleBroadcastAction action:android.intent.action.SCREEN_ON")
    }
    const g = groupLogPatterns(messages)
    expect(g.patterns.length).toBe(2)
    expect(g.patternIds[0]).not.toBe(g.patternIds[1])
  })
})

describe("line signatures", () => {
  it("a control character never shares a signature with a number (marks are not characters)", () => {
    const signature = (line: string): string => {
      const halves = new Int32Array(2)
      sig.lineSignature(line, halves)
      return `${halves[0]}:${halves[1]}`
    }
    for (const ctl of ["\u0001", "\u0002", "\u0003"]) {
      for (const [a, b] of [
        [`a ${ctl}`, "a 5"],
        [`x${ctl}y 7`, "x5y 7"],
        [`k ab${ctl}`, "k ab1"]
      ] as const)
        expect(signature(a)).not.toBe(signature(b))
      // A shared signature gave the second line the first one's masked tokens (`a \x01`).
      const g = groupLogPatterns([`k ab${ctl}`, "k ab1", "k ab2"])
      expect(g.patterns[g.patternIds[1]!]!.template).toBe("k ab<*>")
    }
  })

  it("lines with equal signatures have equal masked tokens (fixed seed)", () => {
    const halves = new Int32Array(2)
    const signatureOf = (line: string): string => {
      sig.lineSignature(line, halves)
      return `${halves[0]}:${halves[1]}`
    }
    const piece = fc.oneof(
      fc.constantFrom(
        "a",
        "ab",
        "user",
        "Jul",
        "Mon,",
        "PM",
        "x1",
        "ab12",
        "0x1f",
        "v2",
        "10ms",
        "deadbeef",
        "-",
        ".",
        "/",
        ":",
        "(",
        ")",
        "=",
        " ",
        "  "
      ),
      fc.integer({ min: 0, max: 99999 }).map(String),
      fc.stringMatching(/^[0-9a-f]{1,12}$/)
    )
    const line = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(""))
    fc.assert(
      fc.property(line, line, (a, b) => {
        const sa = signatureOf(a)
        const sb = signatureOf(b)
        if (sa === sb) expect(maskedTokens(a)).toEqual(maskedTokens(b))
        expect(signatureOf(a)).toBe(sa)
      }),
      { seed: 12, numRuns: 3000 }
    )
    // Same shape, other digits and other hex ids: one signature.
    expect(signatureOf("req 3f9a2b1c took 12ms from 10.0.0.1")).toBe(
      signatureOf("req 77a0c4d2 took 907ms from 192.168.10.200")
    )
  })

  it("tokens with equal shapes mask alike; token boundaries and the non-ASCII whitespace fallback (fixed seed)", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "a",
        "ab",
        "ms",
        "KB)",
        "Jul",
        "(Tue",
        "x1",
        "ab12",
        "0x1f",
        "1xffff",
        "v2",
        "10ms",
        "utf8",
        "-",
        ".",
        ":",
        "(",
        "]"
      ),
      fc.integer({ min: 0, max: 99999 }).map(String),
      fc.stringMatching(/^[0-9a-f]{1,12}$/)
    )
    const token = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""))
    const shapes = sig.newTokenShapes(1)
    const shapeOf = (t: string): string => {
      expect(sig.tokenShapes(t, shapes)).toBe(true)
      expect(shapes.count).toBe(1)
      return `${shapes.lo[0]}:${shapes.hi[0]}`
    }
    fc.assert(
      fc.property(token, token, (a, b) => {
        if (shapeOf(a) === shapeOf(b)) expect(maskedTokens(a)).toEqual(maskedTokens(b))
      }),
      { seed: 12, numRuns: 3000 }
    )
    // Boundaries (the shape arrays grow past their capacity) and the non-ASCII whitespace fallback.
    const line = Array.from({ length: 40 }, (_, i) => `t${i}`).join(" \t ")
    expect(sig.tokenShapes(line, shapes)).toBe(true)
    expect(shapes.count).toBe(40)
    expect(line.slice(shapes.start[39], shapes.end[39])).toBe("t39")
    expect(sig.tokenShapes("a\u00a0b", shapes)).toBe(false)
  })

  it("SignatureTable maps 64-bit keys and grows", () => {
    const table = new sig.SignatureTable()
    for (let i = 0; i < 5000; i++) table.set(i * 7919, i & 3, i)
    expect(table.get(7919 * 42, 42 & 3)).toBe(42)
    expect(table.get(7919 * 42, 3)).toBe(-1)
    table.set(0, 0, 9)
    expect(table.get(0, 0)).toBe(9)
  })
})

describe("final template merge", () => {
  it("a variable spanning one token on some lines and two on others is one pattern", () => {
    const r = rng(99)
    const word = () =>
      Array.from({ length: 6 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(r() * 26)]).join("")
    const lines: string[] = []
    for (let i = 0; i < 40; i++) {
      lines.push(
        i % 2 === 0 ? `open file ${word()} for reading` : `open file ${word()} ${word()} for reading`
      )
    }
    const grouping = groupLogPatterns(lines)
    expect(new Set(grouping.patternIds).size).toBe(1)
    expect(grouping.patterns[0]!.template).toBe("open file <*> for reading")
    // Without a wildcard nothing merges: two constant templates stay two.
    expect(
      groupLogPatterns(["cache warm", "cache warm", "cache cold now", "cache cold now"]).patterns
    ).toHaveLength(2)
  })
})

describe("numericRun", () => {
  /** The rule as regexes: the specification numericRun implements in place. */
  const spec = (run: string): boolean => {
    const digits = run.replace(/\D/g, "").length
    if (digits === 0) return false
    return (
      digits * 2 >= run.length ||
      /^0[xX][0-9a-fA-F]+$/.test(run) ||
      /^\d+[A-Za-z]{1,3}$/.test(run) ||
      /^[vV]\d+$/.test(run) ||
      (run.length >= 4 && /^[0-9a-fA-F]+$/.test(run)) ||
      /\d[A-Za-z]+\d/.test(run)
    )
  }
  it("agrees with the regex rules (fixed seed), and on known words and ids", () => {
    const run = fc.stringMatching(/^[0-9A-Za-z]{1,14}$/)
    fc.assert(
      fc.property(run, fc.string({ maxLength: 3 }), (r, pad) => {
        const line = `${pad}${r}${pad}`
        const digits = r.replace(/\D/g, "").length
        expect(sig.numericRun(line, pad.length, pad.length + r.length, digits)).toBe(spec(r))
      }),
      { seed: 31, numRuns: 3000 }
    )
    for (const word of ["utf8", "ipv4", "alt0", "storage234", "http2"]) expect(spec(word)).toBe(false)
    for (const id of ["a1b2c3", "0x1f", "10ms", "v2", "deadbeef1", "J12"]) expect(spec(id)).toBe(true)
  })
})

describe("masking by token shape", () => {
  it("grouping on token shapes gives the masked tokens of normalizeLogMessage (fixed seed)", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "a",
        "user",
        "x1",
        "ab12",
        "0x1f",
        "v2",
        "10ms",
        "KB",
        "(",
        ")",
        "[",
        "]",
        ",",
        "-",
        "/",
        ":"
      ),
      fc.constantFrom(" ", "  ", "\t", "\u00a0"),
      fc.integer({ min: 0, max: 99999 }).map(String),
      fc.stringMatching(/^[0-9a-f]{1,10}$/),
      fc.constant("123e4567-e89b-12d3-a456-426614174000")
    )
    const line = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(""))
    fc.assert(
      fc.property(line, (text) => {
        // One line alone is its own template: its masked tokens, runs of <*> written as one.
        const { patterns } = groupLogPatterns([text])
        const expected = normalizeLogMessage(text)
          .split(" ")
          .filter((t, i, all) => !(t === "<*>" && all[i - 1] === "<*>"))
          .join(" ")
        expect(patterns[0]!.template).toBe(expected)
      }),
      { seed: 77, numRuns: 3000 }
    )
  })

  it("a word is one token id whether its line was split on shapes or on non-ASCII whitespace", () => {
    const lines = ["disk full on sda", "disk\u00a0full on sda", "disk full\u3000on sda", "disk full on sda"]
    expect(groupLogPatterns(lines)).toEqual({
      patternIds: [0, 0, 0, 0],
      patterns: [{ id: 0, template: "disk full on sda", count: 4 }]
    })
    // A literal <*> in a line is the wildcard token.
    expect(groupLogPatterns(["read <*> bytes", "read 12 bytes"]).patterns).toEqual([
      { id: 0, template: "read <*> bytes", count: 2 }
    ])
  })
})
