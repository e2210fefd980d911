/**
 * Requests kept in flight by every measurement: autocannon's connections, the gRPC load's calls
 * and the in-process loops all use this one figure, so the rows compare like with like.
 */
export const CONCURRENCY = 32;
