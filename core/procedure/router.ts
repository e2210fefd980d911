import { toShortlinkError, type ShortlinkError } from '../errors/shortlink-error';
import type { Procedure } from './procedure';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProcedure<TBaseCtx> = Procedure<TBaseCtx, any, any>;

interface RouterRecord<TBaseCtx> {
  [name: string]: AnyProcedure<TBaseCtx> | RouterRecord<TBaseCtx>;
}

/** The typed in-process client of a router: `caller.links.create(input)`. */
export type Caller<TRouter> = {
  [K in keyof TRouter]: TRouter[K] extends Procedure<infer _C, infer TIn, infer TOut>
    ? (input: TIn) => Promise<TOut>
    : Caller<TRouter[K]>;
};

/**
 * The same client for transports: each procedure takes its input as received (`unknown`), since
 * the procedure parses it anyway. No cast is needed to hand it a decoded body.
 */
export type UntypedCaller<TRouter> = {
  [K in keyof TRouter]: TRouter[K] extends Procedure<infer _C, infer _In, infer TOut>
    ? (rawInput: unknown) => Promise<TOut>
    : UntypedCaller<TRouter[K]>;
};

function isProcedure<TBaseCtx>(
  value: AnyProcedure<TBaseCtx> | RouterRecord<TBaseCtx>,
): value is AnyProcedure<TBaseCtx> {
  return typeof (value as AnyProcedure<TBaseCtx>).call === 'function';
}

interface CallerOptions {
  /**
   * Runs before each call, so that a context reused by several calls can be made ready for one;
   * what it throws fails the call (as INTERNAL) before any stage runs.
   */
  onCall?: () => void;
  /**
   * Sees every failure once, as the caller will get it, with the procedure's path
   * (`links.create`). Whatever it throws is dropped: the caller gets the failure.
   */
  onError?: (failure: ShortlinkError, path: string) => void;
  /**
   * Sees, once a call has its outcome (success or failure), the context its stages left: what
   * they added for the transport. Whatever it throws is dropped, as for onError.
   */
  onSettled?: (settledCtx: unknown) => void;
}

/**
 * Binds every procedure of `router` to one context. Whatever a procedure throws reaches the
 * caller as a ShortlinkError (unexpected errors become INTERNAL or BACKEND_UNAVAILABLE, with the
 * original as cause).
 */
export function createCaller<TBaseCtx, TRouter extends RouterRecord<TBaseCtx>>(
  router: TRouter,
  ctx: TBaseCtx,
  options: CallerOptions = {},
  prefix = '',
): UntypedCaller<TRouter> {
  const caller: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(router)) {
    const path = prefix + name;
    caller[name] = isProcedure(entry)
      ? (input: unknown) => {
          const settled = (settledCtx: unknown) => {
            try {
              options.onSettled?.(settledCtx);
            } catch {
              // The caller still gets its answer or its failure.
            }
          };
          // onCall runs inside the call's promise: what it throws fails the call as any fault
          // of the procedure does, before any stage ran.
          const called = new Promise<unknown>((resolve) => {
            options.onCall?.();
            resolve(entry.call(ctx, input, settled));
          });
          return called.catch((error: unknown) => {
            const failure = toShortlinkError(error);
            try {
              options.onError?.(failure, path);
            } catch {
              // The caller still gets its ShortlinkError: a hook that fails (a logger that
              // throws, a response object that cannot be written) must not replace it.
            }
            throw failure;
          });
        }
      : createCaller(entry, ctx, options, `${path}.`);
  }
  // Every procedure accepts unknown input; a typed Caller is the same object, narrowed.
  return caller as UntypedCaller<TRouter>;
}
