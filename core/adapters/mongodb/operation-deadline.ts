import { BackendUnavailableError } from '../../errors/shortlink-error';

/**
 * MONGODB_TIMEOUT_MS's default: how long one store or limiter call may wait for MongoDB before
 * the request answers 23. Under the server-selection timeout (5 s), so a request fails quickly
 * and a load balancer sees a quick 503 rather than a slow one.
 */
export const DEFAULT_MONGODB_TIMEOUT_MS = 2500;

/**
 * `port` with every call that returns a promise raced against `timeoutMs`: past it the call
 * rejects with BackendUnavailableError (code 23). The driver's own client-side operation timeout
 * (`timeoutMS`) cannot do this: driver 7 accepts the option but ignores it (deprecated, "has no
 * effect"), leaving only server selection (5 s) and the socket timeout (10 s), which a server
 * that takes the request and goes quiet, or an election, can each make a request wait out in
 * full. The call itself is not cancelled (the driver offers no cancellation of writes): it
 * finishes or fails in the background within the socket timeout, and a write may still apply,
 * as after any lost answer. 0: no bound.
 */
export function withDeadline<T extends object>(port: T, timeoutMs: number, name: string): T {
  if (timeoutMs <= 0) return port;
  return new Proxy(port, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        const result: unknown = Reflect.apply(value, target, args);
        return result instanceof Promise
          ? withinDeadline(result, timeoutMs, `${name}.${String(property)}`)
          : result;
      };
    },
  });
}

/** `pending`, or BackendUnavailableError naming `call` once `timeoutMs` passed (0: no bound). */
export function withinDeadline<T>(
  pending: Promise<T>,
  timeoutMs: number,
  call: string,
): Promise<T> {
  if (timeoutMs <= 0) return pending;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new BackendUnavailableError(
          `MongoDB did not answer ${call} within ${timeoutMs} ms (MONGODB_TIMEOUT_MS)`,
        ),
      );
    }, timeoutMs);
  });
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}
