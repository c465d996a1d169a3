#!/usr/bin/env node
import { main } from "./main.js"

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
  env: process.env
}

const argv = process.argv.slice(2)
main(argv, io).then(
  (code) => {
    process.exitCode = code
    // `serve` / `mcp` have disposed its runtime: exit even if a library left a timer or socket behind.
    if (argv[0] === "serve" || argv[0] === "mcp") process.exit(code)
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : "unexpected failure"}\n`)
    process.exitCode = 1
  }
)
