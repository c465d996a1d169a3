export * from "./config.js"
export {
  checkRedisEvictionPolicy,
  evaluateEvictionPolicy,
  RECOMMENDED_EVICTION_POLICIES,
  type RedisEvictionCheck,
  warnOnRedisEvictionPolicy
} from "./eviction.js"
export { makeRedisCanonicalStore, RedisCanonicalStore } from "./store.js"
