export * from "./config.js"
export { makeRedisCanonicalStore, RedisCanonicalStore } from "./store.js"
