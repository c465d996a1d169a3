/// <reference lib="dom" />
// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text a reader sees
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { MysqlAudit } from "@aiops-harness/audit"
import { mysqlGate, mysqlUrl, redisGate, redisUrl } from "@aiops-harness/core/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_LEAK_MARKERS, SCENARIOS } from "../src/demo/index.js"
import { type RunningServer, startServer } from "../src/server.js"
import { parseSse } from "./helpers.js"
import { GAP_SESSION, LIVE_MARKER, makeViewerWorld, type ViewerWorld } from "./viewer-world.js"

/** Debian's chromium (`apt-get install -y chromium`); never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium"
const hasChromium = existsSync(CHROMIUM)
const inCi = process.env.CI === "true"
/** Screenshots and page dumps of the last run (gitignored). */
export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "..", "test-artifacts")

if (!hasChromium && !inCi) {
  console.warn(
    `\n*** SKIPPED: trace viewer browser tests: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH). With CI=true they fail instead. ***\n`
  )
}

/** Flags that keep a headless chromium quiet and local: no sandbox (containers), no GPU, no background traffic. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--metrics-recording-only",
  "--no-default-browser-check"
]

interface Backend {
  readonly name: string
  /** Skipped (loudly, above) when false. */
  readonly enabled: boolean
  /** Screenshots are taken on the embedded defaults only. */
  readonly screenshots: boolean
  /** Builds the world (once, before the suite). */
  readonly world: () => Promise<ViewerWorld>
}

const browserSuite = (backend: Backend) =>
  describe.runIf(backend.enabled)(`trace viewer in a real browser (chromium): ${backend.name}`, () => {
    let world: ViewerWorld
    let server: RunningServer
    let context: BrowserContext
    let origin: string
    let userDataDir: string
    const requests: string[] = []
    /** Runs made through POST /api/chat: [sessionId, runId, releaseResult, runPage]. */
    const runs: Array<{
      sessionId: string
      runId: string
      releaseResult: string
      runPage: string
      report: any
    }> = []

    const chat = async (question: string, sessionId: string) => {
      const response = await fetch(`${origin}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question, sessionId })
      })
      expect(response.status).toBe(200)
      const events = parseSse(await response.text())
      const answer = events.at(-1)!
      expect(answer.event).toBe("answer")
      return answer.data as { sessionId: string; runId: string; releaseResult: string; runPage: string }
    }

    const shot = async (page: Page, options: { path: string; fullPage?: boolean }) => {
      if (backend.screenshots) await page.screenshot(options)
    }

    const open = async (path: string): Promise<Page> => {
      const page = await context.newPage()
      await page.goto(`${origin}${path}`)
      return page
    }

    /** Every secret, IP, host and pod of the demo logs is absent from the page's DOM (all calls opened). */
    const expectNoLeakInDom = async (page: Page, what: string) => {
      await page.evaluate(() => {
        for (const d of Array.from(document.querySelectorAll("details"))) d.open = true
      })
      const dom = await page.evaluate(() => document.documentElement.outerHTML)
      const text = await page.evaluate(() => document.body.innerText)
      for (const marker of DEMO_LEAK_MARKERS) {
        expect(dom.includes(marker), `${what}: DOM contains ${marker}`).toBe(false)
        expect(text.includes(marker), `${what}: text contains ${marker}`).toBe(false)
      }
    }

    beforeAll(async () => {
      if (!hasChromium)
        throw new Error(`CI=true and no chromium at ${CHROMIUM}: install it (apt-get install -y chromium)`)
      mkdirSync(ARTIFACTS, { recursive: true })
      world = await backend.world()
      server = await startServer(world.runtime, world.config)
      origin = `http://127.0.0.1:${server.port}`
      // Three demo runs: two released reports (two sessions) and a refused question.
      const first = await chat(SCENARIOS["db-pool-exhaustion"].sampleQuestion, "s-demo-1")
      const second = await chat("what's a good name for a cat?", "s-demo-2")
      const third = await chat("checkout is failing with 500 errors, why?", "s-demo-1")
      // A run whose audit lost writes.
      const gap = await chat(SCENARIOS["db-pool-exhaustion"].sampleQuestion, GAP_SESSION)
      for (const r of [first, second, third, gap]) {
        const trace = (await (
          await fetch(`${origin}/api/trace?sessionId=${r.sessionId}&runId=${r.runId}`)
        ).json()) as any
        runs.push({ ...r, report: trace })
      }
      userDataDir = mkdtempSync(join(tmpdir(), "aiops-viewer-chromium-"))
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        viewport: { width: 1280, height: 900 },
        offline: false
      })
      context.on("request", (request) => {
        requests.push(request.url())
      })
    }, 120_000)

    afterAll(async () => {
      await context?.close()
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
      await server?.shutdown({ graceMs: 1000 })
    })

    it("the answer event and the list link each run to its page", () => {
      for (const r of runs) expect(r.runPage).toBe(`/runs/${r.sessionId}/${r.runId}`)
      expect(runs.map((r) => r.releaseResult)).toEqual([
        "DIAGNOSIS_REPORT",
        "NOT_A_DIAGNOSIS",
        "DIAGNOSIS_REPORT",
        "DIAGNOSIS_REPORT"
      ])
    })

    it("lists the runs newest first with outcome, counts and audit state; filters by outcome and session", async () => {
      const page = await open("/")
      await expect(page.title()).resolves.toContain("Recent runs")
      const rows = page.locator("#runs tbody tr")
      const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-run-id")))
      expect(ids).toEqual([...runs].reverse().map((r) => r.runId))
      const released = page.locator(`tr[data-run-id="${runs[0]!.runId}"]`)
      await expect(released.locator("td").nth(3).innerText()).resolves.toBe("released report")
      await expect(released.locator("td").nth(4).innerText()).resolves.toBe(
        String(runs[0]!.report.reconciliation.tool_invocations.found)
      )
      await expect(released.locator("td").nth(5).innerText()).resolves.toBe(
        String(runs[0]!.report.run.total_token_count)
      )
      await expect(released.locator("td").nth(7).innerText()).resolves.toBe("complete")
      const refused = page.locator(`tr[data-run-id="${runs[1]!.runId}"]`)
      await expect(refused.locator("td").nth(3).innerText()).resolves.toBe("refused (not a diagnosis)")
      const gap = page.locator(`tr[data-run-id="${runs[3]!.runId}"]`)
      await expect(gap.locator("td").nth(7).innerText()).resolves.toMatch(/^gap: \d+ missing writes?$/)
      // The question is shown (redacted text) and links to the run page.
      await expect(released.locator("td.q a").getAttribute("href")).resolves.toBe(runs[0]!.runPage)

      await shot(page, { path: join(ARTIFACTS, "runs-list-1280.png"), fullPage: true })

      // Filter by outcome with the form (keyboard: select + Enter).
      await page.selectOption("#filter-outcome", "refused")
      await page.locator("#filter-session").press("Enter")
      await page.waitForURL(/outcome=refused/)
      expect(
        await page.locator("#runs tbody tr").evaluateAll((t) => t.map((r) => r.getAttribute("data-run-id")))
      ).toEqual([runs[1]!.runId])
      // Filter by session: the session link of a row.
      await page.goto(`${origin}/`)
      await page.locator(`tr[data-run-id="${runs[0]!.runId}"] td:nth-child(2) a`).click()
      await page.waitForURL(/session=s-demo-1/)
      expect(
        await page.locator("#runs tbody tr").evaluateAll((t) => t.map((r) => r.getAttribute("data-run-id")))
      ).toEqual([runs[2]!.runId, runs[0]!.runId])
      await expect(page.inputValue("#filter-session")).resolves.toBe("s-demo-1")
      await page.close()
    })

    it("a run page shows every tool call in the waterfall and as a tool call section", async () => {
      const run = runs[0]!
      const page = await open(run.runPage)
      const calls = [
        ...run.report.agent_steps.flatMap((s: any) => s.tool_invocations),
        ...run.report.tool_invocations_without_step
      ].map((t: any) => t.tool_call_id)
      expect(calls.length).toBeGreaterThan(1)
      const waterfallCalls = await page
        .locator('ol.waterfall li[data-kind="tool"] a')
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")))
      expect(waterfallCalls).toEqual(calls.map((id) => `#call-${id}`))
      const sections = await page.locator("details.call").evaluateAll((ds) => ds.map((d) => d.id))
      expect(sections).toEqual(calls.map((id) => `call-${id}`))
      // Routing, each step, both guards and the release are on the time axis too.
      const kinds = await page
        .locator("ol.waterfall li[data-kind]")
        .evaluateAll((ls) => ls.map((l) => l.getAttribute("data-kind")))
      expect(kinds[0]).toBe("routing")
      expect(kinds.filter((k) => k === "step")).toHaveLength(run.report.agent_steps.length)
      expect(kinds.slice(-3)).toEqual(["guard", "guard", "release"])
      await expect(page.locator("#run-outcome").innerText()).resolves.toBe("released report")
      await expect(page.locator("#tokens-reconciled").innerText()).resolves.toBe("true")
      await expect(page.locator("#usage-complete").innerText()).resolves.toBe("true")
      await expect(page.locator("#audit-gap").count()).resolves.toBe(0)
      // Landmarks and the skip link.
      await expect(page.locator("header.site").count()).resolves.toBe(1)
      await expect(page.locator("main#main").count()).resolves.toBe(1)
      await expect(page.locator('nav[aria-label="Site"]').count()).resolves.toBe(1)
      await expect(page.locator("footer.site").count()).resolves.toBe(1)
      await shot(page, { path: join(ARTIFACTS, "run-page-1280-full.png"), fullPage: true })
      await page.locator("#waterfall-h").evaluate((h) => h.scrollIntoView({ block: "start" }))
      await shot(page, { path: join(ARTIFACTS, "run-page-1280.png") })
      await page.setViewportSize({ width: 390, height: 844 })
      // Readable at 390 px: nothing makes the page scroll sideways (tables scroll in their own box).
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await shot(page, { path: join(ARTIFACTS, "run-page-390.png"), fullPage: false })
      await page.close()
    })

    it("the released report's citations link to the tool call and evidence they cite", async () => {
      const run = runs[0]!
      const page = await open(run.runPage)
      const citations = await page.locator("#report-content a.cite").evaluateAll((as) =>
        as.map((a) => ({
          call: a.getAttribute("data-call"),
          kind: a.getAttribute("data-kind"),
          ref: a.getAttribute("data-ref"),
          href: a.getAttribute("href"),
          target: a.getAttribute("data-target")
        }))
      )
      // The report as the audit holds it: every `[call:kind:ref]` of its findings, in order.
      // (Quoted-evidence markers such as `[quoted evidence: "…"]` are not citations.)
      const citation = /^[A-Za-z0-9][\w.-]*:(?:document|pattern|excerpt|row|no_evidence):/
      const expected = [...String(run.report.run.final_content).matchAll(/\[([^\]\n]+)\]$/gm)].flatMap((m) =>
        m[1]!
          .split("; ")
          .filter((item) => citation.test(item))
          .map((item) => item.split(":")[0])
      )
      expect(citations.map((c) => c.call)).toEqual(expected)
      expect(citations.length).toBeGreaterThan(0)
      for (const c of citations) {
        // The link's target is inside the cited call's section; documents and patterns point at the item.
        const inCall = await page.evaluate(
          ({ href, call }) => {
            const el = document.getElementById(decodeURIComponent(href!.slice(1)))
            return el !== null && el.closest("details")?.id === `call-${call}`
          },
          { href: c.href, call: c.call }
        )
        expect(inCall, `${c.call}:${c.kind}:${c.ref} -> ${c.href}`).toBe(true)
        if (c.kind === "document" || c.kind === "pattern") {
          expect(c.target).toBe("evidence")
          const ref = await page.evaluate(
            (href) => document.getElementById(href!.slice(1))?.getAttribute("data-ref"),
            c.href
          )
          expect(ref).toBe(c.ref)
        }
      }
      // Following a citation opens the cited call and scrolls to the evidence.
      const first = page.locator("#report-content a.cite").first()
      const call = await first.getAttribute("data-call")
      await first.click()
      await expect(
        page.locator(`details#call-${call}`).evaluate((d) => (d as HTMLDetailsElement).open)
      ).resolves.toBe(true)
      await page.close()
    })

    it("a tool call opens (keyboard) to its control view beside its agent observation", async () => {
      const run = runs[0]!
      const page = await open(run.runPage)
      const call = run.report.agent_steps[1].tool_invocations[0]
      const details = page.locator(`details#call-${call.tool_call_id}`)
      await expect(details.evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(false)
      await details.locator("summary").focus()
      await page.keyboard.press("Enter")
      await expect(details.evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(true)
      const control = details.locator("section.control-view")
      await expect(control.isVisible()).resolves.toBe(true)
      const controlText = await control.innerText()
      expect(controlText).toContain("READY")
      expect(controlText).toContain("EVIDENCE_FOUND")
      expect(controlText).toContain(String(call.metadata.duplicate_identity))
      expect(controlText).toMatch(/budget left\s+\d+ call\(s\)/)
      expect(controlText).toContain(`raw ${call.raw_bytes} B`)
      expect(controlText).toContain("scope")
      expect(controlText).toContain('"topic": "application"')
      const observation = details.locator("section.observation")
      await expect(observation.isVisible()).resolves.toBe(true)
      const patterns = await observation.locator("li[data-ref]").count()
      expect(patterns).toBeGreaterThan(0)
      // Side by side at 1280 px.
      const [c, o] = await Promise.all([control.boundingBox(), observation.boundingBox()])
      expect(o!.x).toBeGreaterThan(c!.x + c!.width - 1)
      await details.evaluate((d) => d.scrollIntoView({ block: "start" }))
      await shot(page, { path: join(ARTIFACTS, "tool-call-1280.png") })
      await page.close()
    })

    it("a run with an audit gap shows the warning", async () => {
      const run = runs[3]!
      expect(run.report.reconciliation.audit_complete).toBe(false)
      const page = await open(run.runPage)
      const warning = page.locator("#audit-gap")
      await expect(warning.getAttribute("role")).resolves.toBe("alert")
      const text = await warning.innerText()
      expect(text).toContain(`Audit incomplete: ${run.report.reconciliation.missing_writes} missing write`)
      expect(text).toContain("1 of")
      await expect(page.locator("#audit-complete").innerText()).resolves.toBe("false")
      await page.close()
    })

    it("a run in progress updates live until it finishes", async () => {
      const response = await fetch(`${origin}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          question: `why is checkout returning 500s? ${LIVE_MARKER}`,
          sessionId: "s-live"
        })
      })
      const reader = response.body!.getReader()
      let text = ""
      while (!text.includes("\n\n")) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += new TextDecoder().decode(chunk.value)
      }
      const { runId } = parseSse(text)[0]!.data as { runId: string }
      await world.liveWaiting
      const page = await open(`/runs/s-live/${runId}`)
      await expect(page.locator("#run-outcome").innerText()).resolves.toBe("running")
      await expect(page.locator("#live-status").innerText()).resolves.toContain("in progress")
      await expect(page.locator("details.call").count()).resolves.toBe(1)
      // Open the first call: it stays open across updates.
      await page.locator("details.call summary").first().click()
      await page.evaluate(() => {
        ;(window as any).__sameDocument = true
      })
      const list = await open("/?outcome=running")
      await expect(list.locator(`tr[data-run-id="${runId}"]`).count()).resolves.toBe(1)
      await list.close()

      world.releaseLive()
      // Drain the stream (the run finishes on the server).
      while (!(await reader.read()).done) {}
      await page.locator("#run-outcome", { hasText: "released report" }).waitFor({ timeout: 20_000 })
      await expect(page.locator("#live-status").innerText()).resolves.toContain("has finished (FINISHED)")
      expect(await page.locator("details.call").count()).toBeGreaterThan(1)
      await expect(
        page
          .locator("details.call")
          .first()
          .evaluate((d) => (d as HTMLDetailsElement).open)
      ).resolves.toBe(true)
      // Updated in place (no reload): the marker set before is still there.
      await expect(page.evaluate(() => (window as any).__sameDocument)).resolves.toBe(true)
      await page.close()
    })

    it("no secret or IP from the demo logs is anywhere in the DOM of any page", async () => {
      for (const path of ["/", ...runs.map((r) => r.runPage)]) {
        const page = await open(path)
        await expectNoLeakInDom(page, path)
        await page.close()
      }
    })

    it("every request stayed on the app's origin (no CDN, no external font)", () => {
      expect(requests.length).toBeGreaterThan(0)
      for (const url of requests) expect(url.startsWith(`${origin}/`), url).toBe(true)
    })

    it("writes screenshots of the list at 390 px", async () => {
      const page = await context.newPage()
      await page.setViewportSize({ width: 390, height: 844 })
      await page.goto(`${origin}/`)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await shot(page, { path: join(ARTIFACTS, "runs-list-390.png"), fullPage: true })
      if (backend.screenshots) {
        expect(existsSync(join(ARTIFACTS, "runs-list-1280.png"))).toBe(true)
        expect(existsSync(join(ARTIFACTS, "run-page-1280.png"))).toBe(true)
      }
      await page.close()
    })
  })

browserSuite({
  name: "embedded defaults",
  enabled: hasChromium || inCi,
  screenshots: true,
  world: async () => makeViewerWorld()
})

const [hasRedis, hasMysql] = await Promise.all([redisGate(), mysqlGate()])
{
  // Our own database, recreated so the list holds only this suite's runs.
  const database = "aiops_viewer_browser_test"
  browserSuite({
    name: "MySQL audit + Redis canonical store",
    enabled: (hasChromium || inCi) && hasRedis && hasMysql,
    screenshots: false,
    world: async () => {
      await Effect.runPromise(
        Effect.scoped(
          Effect.flatMap(MysqlAudit.make({ url: mysqlUrl() }), (h) =>
            Effect.promise(async () => {
              await h.pool.query(`DROP DATABASE IF EXISTS ${database}`)
              await h.pool.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`)
            })
          )
        )
      )
      const url = new URL(mysqlUrl())
      url.pathname = `/${database}`
      return makeViewerWorld({
        env: { REDIS_URL: redisUrl(), CANONICAL_STORE_KEY_PREFIX: "aiops-viewer-browser-test" },
        audit: Effect.map(MysqlAudit.make({ url: url.toString(), migrate: true }), (h) => ({
          sink: h.sink,
          trace: h.trace
        }))
      })
    }
  })
}
