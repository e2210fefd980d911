import { toShortlinkError, type ShortlinkError } from '../errors/shortlink-error';
import type { Procedure } from './procedure';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProcedure<TBaseCtx> = Procedure<TBaseCtx, any, any>;

export interface RouterRecord<TBaseCtx> {
  [name: string]: AnyProcedure<TBaseCtx> | RouterRecord<TBaseCtx>;
}

/** The typed in-process client of a router: `caller.links.create(input)`. */
export type Caller<TRouter> = {
  [K in keyof TRouter]: TRouter[K] extends Procedure<infer _C, infer TIn, infer TOut>
    ? (input: TIn) => Promise<TOut>
    : Caller<TRouter[K]>;
};

function isProcedure<TBaseCtx>(
  value: AnyProcedure<TBaseCtx> | RouterRecord<TBaseCtx>,
): value is AnyProcedure<TBaseCtx> {
  return typeof (value as AnyProcedure<TBaseCtx>).call === 'function';
}

/**
 * Binds every procedure of `router` to one context. Whatever a procedure throws reaches the
 * caller as a ShortlinkError (unexpected errors become code 1 or 23, with the original as cause).
 */
export function createCaller<TBaseCtx, TRouter extends RouterRecord<TBaseCtx>>(
  router: TRouter,
  ctx: TBaseCtx,
  /** Sees every failure as the caller will get it (the core copies its Retry-After). */
  onFailure?: (failure: ShortlinkError) => void,
): Caller<TRouter> {
  const caller: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(router)) {
    caller[name] = isProcedure(entry)
      ? (input: unknown) =>
          entry.call(ctx, input).catch((error: unknown) => {
            const failure = toShortlinkError(error);
            onFailure?.(failure);
            throw failure;
          })
      : createCaller(entry, ctx, onFailure);
  }
  return caller as Caller<TRouter>;
}
