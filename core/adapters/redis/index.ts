/** `shortlink/redis`: rate limits shared by every process on one Redis (ioredis). */
export {
  createRedisLimiters,
  type RedisLimiters,
  type RedisLimitersOptions,
} from './redis-limiters';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter';
export type { RedisConnectionOptions } from './redis-connection';
export { FallbackMonitor, type LimiterMode } from './fallback-monitor';
