export * from "./fixtures.js"
export * from "./integration.js"
export * from "./fault-proxy.js"
export * from "./property.js"
