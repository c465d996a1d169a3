export {
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  makeInMemoryCanonicalStore
} from "@aiops-harness/core"
export {
  type CanonicalStoreSettings,
  canonicalStoreConfig,
  canonicalStoreLayer,
  canonicalStoreLayerConfig,
  canonicalStoreLayerFromEnv,
  type StoreEnv,
  withStoreOverrides
} from "./env.js"
export {
  checkRedisEvictionPolicy,
  DEFAULT_COMPRESS_ABOVE_BYTES,
  defaultRedisCanonicalStoreConfig,
  evaluateEvictionPolicy,
  RECOMMENDED_EVICTION_POLICIES,
  type RedisEvictionCheck,
  warnOnRedisEvictionPolicy,
  makeRedisCanonicalStore,
  RedisCanonicalStore,
  type RedisCanonicalStoreConfig,
  reconnectDelay,
  validateRedisCanonicalStoreConfig
} from "./redis/index.js"
