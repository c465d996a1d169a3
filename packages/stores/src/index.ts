export {
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  makeInMemoryCanonicalStore
} from "@aiops-harness/core"
export { canonicalStoreLayerFromEnv, redisConfigFromEnv, type StoreEnv } from "./env.js"
export {
  defaultRedisCanonicalStoreConfig,
  makeRedisCanonicalStore,
  RedisCanonicalStore,
  type RedisCanonicalStoreConfig,
  reconnectDelay,
  validateRedisCanonicalStoreConfig
} from "./redis/index.js"
