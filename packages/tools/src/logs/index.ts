export * from "./backend.js"
export * from "./query.js"
