import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

/** Resolves a specifier from inside the package (Node's self-reference), as a consumer would. */
const resolveFromPackage = (specifier: string): string => {
  const script = `try { console.log(import.meta.resolve(${JSON.stringify(specifier)})) } catch (e) { console.log(e.code) }`
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: packageDir,
    encoding: "utf8"
  }).trim()
}

describe("package exports", () => {
  it("private code under internal/ cannot be imported: ERR_PACKAGE_PATH_NOT_EXPORTED", () => {
    for (const specifier of ["@aiops-harness/agent/internal/loop.js", "@aiops-harness/agent/internal/turn"]) {
      expect(resolveFromPackage(specifier), specifier).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED")
    }
  })

  it("the public entry and the testing subpath still resolve", () => {
    expect(resolveFromPackage("@aiops-harness/agent")).toMatch(/\/dist\/index\.js$/)
    expect(resolveFromPackage("@aiops-harness/agent/testing")).toMatch(/\/dist\/testing\/index\.js$/)
  })
})
