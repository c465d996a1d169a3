#!/usr/bin/env node
import { main } from "./main.js"

const io = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
  env: process.env
}

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : "unexpected failure"}\n`)
    process.exitCode = 1
  }
)
