// Vitest suites for backend packages (needs the optional peer `vitest`).
export * from "./store-conformance.js"
