export * from "./requests.js"
export * from "./results.js"
export * from "./specs.js"
