export * from "./fixtures.js"
export * from "./integration.js"
