import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

describe("README", () => {
  it("shows the example that test/readme-example.ts typechecks, verbatim", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const example = readFileSync(new URL("./readme-example.ts", import.meta.url), "utf8")
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``)
  })
})
