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

export interface CallerOptions<TBaseCtx> {
  /**
   * Runs before each call with the caller's context, so that a context reused by several calls
   * can be made ready for one; what it throws fails the call (as INTERNAL) before any stage runs.
   */
  onCall?: (ctx: TBaseCtx) => void;
  /**
   * Sees every failure once, as the caller will get it, with the procedure's path
   * (`links.create`). Whatever it throws is dropped: the caller gets the failure.
   */
  onError?: (failure: ShortlinkError, path: string, ctx: TBaseCtx) => void;
  /**
   * Sees, once a call has its outcome (success or failure), the context its stages left: what
   * they added for the transport. Whatever it throws is dropped, as for onError.
   */
  onSettled?: (settledCtx: unknown, ctx: TBaseCtx) => void;
}

/** One procedure called on `ctx`: whatever it throws reaches the caller as a ShortlinkError. */
function callProcedure<TBaseCtx>(
  entry: AnyProcedure<TBaseCtx>,
  path: string,
  ctx: TBaseCtx,
  options: CallerOptions<TBaseCtx>,
  input: unknown,
): Promise<unknown> {
  const settled = (settledCtx: unknown) => {
    try {
      options.onSettled?.(settledCtx, ctx);
    } catch {
      // The caller still gets its answer or its failure.
    }
  };
  // onCall runs inside the call's promise: what it throws fails the call as any fault of the
  // procedure does, before any stage ran.
  const called = new Promise<unknown>((resolve) => {
    options.onCall?.(ctx);
    resolve(entry.call(ctx, input, settled));
  });
  return called.catch((error: unknown) => {
    const failure = toShortlinkError(error);
    try {
      options.onError?.(failure, path, ctx);
    } catch {
      // The caller still gets its ShortlinkError: a hook that fails (a logger that throws, a
      // response object that cannot be written) must not replace it.
    }
    throw failure;
  });
}

/** Where a caller keeps its context and hooks: no procedure or namespace name can hide them. */
const CTX = Symbol('ctx');
const OPTIONS = Symbol('options');

/** A caller's part for one level of a router: its context and hooks, the procedures on its prototype. */
interface BoundLevel<TBaseCtx> {
  readonly [CTX]: TBaseCtx;
  readonly [OPTIONS]: CallerOptions<TBaseCtx>;
}
type BoundLevelClass<TBaseCtx> = new (
  ctx: TBaseCtx,
  options: CallerOptions<TBaseCtx>,
) => BoundLevel<TBaseCtx>;

/**
 * Each router level's caller class, made once: a caller is made per request (every follow makes
 * one), so it holds only its context and hooks, and each procedure or namespace is made when read
 * rather than a closure for every procedure of the router on every request.
 */
const levelClasses = new WeakMap<object, unknown>();

function levelClassOf<TBaseCtx>(
  router: RouterRecord<TBaseCtx>,
  prefix: string,
): BoundLevelClass<TBaseCtx> {
  const known = levelClasses.get(router) as BoundLevelClass<TBaseCtx> | undefined;
  if (known) return known;
  class Level implements BoundLevel<TBaseCtx> {
    readonly [CTX]: TBaseCtx;
    readonly [OPTIONS]: CallerOptions<TBaseCtx>;
    constructor(ctx: TBaseCtx, options: CallerOptions<TBaseCtx>) {
      this[CTX] = ctx;
      this[OPTIONS] = options;
    }
  }
  for (const [name, entry] of Object.entries(router)) {
    const path = prefix + name;
    const read = isProcedure(entry)
      ? function (this: BoundLevel<TBaseCtx>) {
          // A function of its own: `const { create } = caller.links` still calls on this context.
          return (input: unknown) => callProcedure(entry, path, this[CTX], this[OPTIONS], input);
        }
      : function (this: BoundLevel<TBaseCtx>) {
          const Child = levelClassOf(entry, `${path}.`);
          return new Child(this[CTX], this[OPTIONS]);
        };
    Object.defineProperty(Level.prototype, name, { get: read, enumerable: true });
  }
  levelClasses.set(router, Level);
  return Level;
}

/**
 * Binds every procedure of `router` to one context. Whatever a procedure throws reaches the
 * caller as a ShortlinkError (unexpected errors become INTERNAL or BACKEND_UNAVAILABLE, with the
 * original as cause).
 */
export function createCaller<TBaseCtx, TRouter extends RouterRecord<TBaseCtx>>(
  router: TRouter,
  ctx: TBaseCtx,
  options: CallerOptions<TBaseCtx> = {},
): UntypedCaller<TRouter> {
  const Level = levelClassOf(router, '');
  // Every procedure accepts unknown input; a typed Caller is the same object, narrowed.
  return new Level(ctx, options) as unknown as UntypedCaller<TRouter>;
}
