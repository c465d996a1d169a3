export * from "./markdown.js"
export * from "./search.js"
