// Every ```ts block of every packages/*/README.md compiles against the built packages (dist), as a
// consumer would import them. New packages are picked up from the directory listing. Each block may
// import only its own package, its dependencies and peer dependencies: a README must not show an
// import its package's users would not have. Needs `turbo run build` first (pnpm test does it).
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const work = join(root, "tools", "readme-examples", ".work")

interface Example {
  readonly pkg: string
  readonly file: string
  readonly code: string
}

const manifests = readdirSync(join(root, "packages"))
  .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
  .map((dir) => ({
    dir,
    manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"))
  }))

const examples: Example[] = manifests.flatMap(({ dir }) => {
  const readme = join(root, "packages", dir, "README.md")
  if (!existsSync(readme)) return []
  const blocks = [...readFileSync(readme, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
  return blocks.map((block, i) => ({ pkg: dir, file: `${dir}-${i + 1}.ts`, code: block[1] ?? "" }))
})

// Package names an import specifier refers to ("@scope/name/sub" -> "@scope/name").
const importedPackages = (code: string): string[] =>
  [...code.matchAll(/\bfrom\s+"([^"]+)"/g)]
    .map((m) => m[1] ?? "")
    .filter((spec) => !spec.startsWith(".") && !spec.startsWith("node:"))
    .map((spec) =>
      spec
        .split("/")
        .slice(0, spec.startsWith("@") ? 2 : 1)
        .join("/")
    )

const link = (target: string, name: string) => {
  const at = join(work, "node_modules", name)
  if (existsSync(at) || !existsSync(target)) return
  mkdirSync(dirname(at), { recursive: true })
  symlinkSync(target, at, "dir")
}

describe("README examples", () => {
  it("finds a ```ts example in every package README", () => {
    const withExamples = new Set(examples.map((e) => e.pkg))
    expect(manifests.map((m) => m.dir).filter((dir) => !withExamples.has(dir))).toEqual([])
  })

  it.each(examples.map((e) => [e.file, e] as const))(
    "%s imports only what its package depends on",
    (_, e) => {
      const { manifest } = manifests.find((m) => m.dir === e.pkg)!
      const allowed = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {})
      ])
      expect(importedPackages(e.code).filter((name) => !allowed.has(name))).toEqual([])
    }
  )

  it("all examples typecheck against the built packages", () => {
    for (const { dir } of manifests) {
      expect(existsSync(join(root, "packages", dir, "dist")), `packages/${dir}/dist (build first)`).toBe(true)
    }
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    // A consumer's node_modules: the workspace packages, and every third-party package they
    // depend on (resolved from the package that declares it), plus Node's types.
    for (const { dir, manifest } of manifests) {
      link(join(root, "packages", dir), manifest.name)
      for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        link(join(root, "packages", dir, "node_modules", dep), dep)
      }
    }
    link(join(root, "node_modules", "@types", "node"), "@types/node")
    for (const e of examples) writeFileSync(join(work, e.file), e.code)
    writeFileSync(join(work, "package.json"), JSON.stringify({ private: true, type: "module" }))
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          noEmit: true,
          skipLibCheck: true,
          types: ["node"]
        },
        include: ["*.ts"]
      })
    )
    let output = ""
    try {
      execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {
        cwd: work,
        encoding: "utf8"
      })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error)
    }
    expect(output).toBe("")
  })
})
