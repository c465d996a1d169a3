export * from "./fixtures.js"
export * from "./integration.js"
export * from "./property.js"
