import { ZodError, type z } from 'zod';
import type { ShortlinkError } from '../errors/shortlink-error';

/**
 * A tRPC-style procedure builder: a chain of middlewares that each may add to the context
 * (`next({ organization })` merges what a stage adds into what it was given, as tRPC's
 * `callRecursive` does, so what an earlier stage added reaches every later one), an input step
 * that parses with a zod schema at its place in the chain (so the contract's precedence can run
 * checks before it), and a resolver.
 */

/**
 * What `next()` resolves with, and so what a middleware must resolve with: only `next` (or
 * `answer`, which ends the chain on purpose) makes one, so a middleware that forgets to call it
 * (or to return what it gave) does not typecheck. At run time the chain checks it too, for
 * middlewares written without the types.
 */
export type MiddlewareResult<TAdded> = NextResult<TAdded>;

/** Not exported: nothing outside this module can make one, so nothing but `next` does. */
class NextResult<TAdded> {
  declare private readonly addedType: TAdded;
  constructor(
    /** The resolver's output, carried back up the chain. */
    readonly output: unknown,
    /** What a stage that answered by itself added for the transport (see `answer`). */
    readonly added: object = {},
  ) {}
}

/** What failures carry for the transport, added by the stage that threw them (see `failWith`). */
const addedToFailure = new WeakMap<object, object>();

/**
 * `error`, carrying `added` to whoever settles the call, as `next(added)` carries it to the later
 * stages: what a stage that refuses has to tell the transport (a rate limit's state on its own
 * refusal, the replay mark on a replayed failure). Throw what it returns.
 */
export function failWith<TError>(error: TError, added: object): TError {
  if (typeof error === 'object' && error !== null) {
    addedToFailure.set(error, { ...addedToFailure.get(error), ...added });
  }
  return error;
}

/** What a stage adds to the context: nothing, unless it says so. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "adds nothing" is `{}`.
type Nothing = {};

export interface MiddlewareOptions<TCtx, TAdded = Nothing> {
  ctx: TCtx;
  rawInput: unknown;
  /** Runs the rest of the chain with `added` merged into the context (a stage adding nothing passes nothing). */
  next: Nothing extends TAdded
    ? (added?: TAdded) => Promise<MiddlewareResult<TAdded>>
    : (added: TAdded) => Promise<MiddlewareResult<TAdded>>;
  /**
   * Ends the chain here with `output` as the procedure's result: the later stages and the
   * resolver do not run. For a stage that answers by itself on purpose (an idempotent replay);
   * `output` must be what the procedure's resolver returns.
   */
  answer: (output: unknown, added?: object) => MiddlewareResult<TAdded>;
}

/** A stage given a context of type TCtx, which adds TAdded to it for the stages after it. */
export type Middleware<TCtx, TAdded = Nothing> = (
  options: MiddlewareOptions<TCtx, TAdded>,
) => Promise<MiddlewareResult<TAdded>>;

/** A context with what a stage added, the added fields winning. */
type Merged<TCtx, TAdded> = Omit<TCtx, keyof TAdded> & TAdded;

interface ResolverOptions<TCtx, TInput> {
  ctx: TCtx;
  input: TInput;
}

export interface Procedure<TBaseCtx, TCallerInput, TOutput> {
  /**
   * Runs the chain on untrusted input (what transports call). `settled` is given, once the call
   * has an outcome, the context as the last stage that ran left it, with what a stage answering
   * by itself or refusing added: what the stages have for the transport, success or failure.
   */
  call(ctx: TBaseCtx, rawInput: unknown, settled?: (ctx: unknown) => void): Promise<TOutput>;
  /** Type-level marker of the input a typed caller passes. */
  readonly _callerInput?: TCallerInput;
}

interface StepState {
  ctx: unknown;
  input: unknown;
}
type StepResult = NextResult<unknown>;
type Step = (
  state: StepState,
  rawInput: unknown,
  next: (state: StepState) => Promise<StepResult>,
) => Promise<StepResult>;

/** A middleware resolved with something `next` did not make: it never called `next`. */
function checked(result: unknown): StepResult {
  if (result instanceof NextResult) return result;
  throw new Error('a middleware resolved without returning the result of next()');
}

export class ProcedureBuilder<TBaseCtx, TCtx, TInput, TCallerInput> {
  private constructor(private readonly steps: readonly Step[]) {}

  static create<TBaseCtx>(): ProcedureBuilder<TBaseCtx, TBaseCtx, undefined, undefined> {
    return new ProcedureBuilder([]);
  }

  use<TAdded extends object = Nothing>(
    middleware: Middleware<TCtx, TAdded>,
  ): ProcedureBuilder<TBaseCtx, Merged<TCtx, TAdded>, TInput, TCallerInput> {
    const step: Step = async (state, rawInput, next) => {
      // The chain's results carry no context type; each middleware sees its own.
      const merge = (added?: TAdded) =>
        next({ ctx: { ...(state.ctx as object), ...added }, input: state.input }) as Promise<
          NextResult<TAdded>
        >;
      return checked(
        await middleware({
          ctx: state.ctx as TCtx,
          rawInput,
          next: merge,
          answer: (output, added) => new NextResult<TAdded>(output, added),
        }),
      );
    };
    return new ProcedureBuilder([...this.steps, step]);
  }

  /**
   * Parses the raw input with `schema`; a failure becomes the error `onInvalid` builds. The issues
   * `contextIssues` finds in the raw input (rules a schema declared once cannot hold: those that
   * depend on the request's time, by the context's clock) fail it too, reported with the schema's.
   */
  input<TSchema extends z.ZodType>(
    schema: TSchema,
    onInvalid: (error: z.ZodError, rawInput: unknown) => ShortlinkError,
    contextIssues?: (ctx: TCtx, rawInput: unknown) => readonly z.core.$ZodIssue[],
  ): ProcedureBuilder<TBaseCtx, TCtx, z.output<TSchema>, z.input<TSchema>> {
    const step: Step = (state, rawInput, next) => {
      const parsed = schema.safeParse(rawInput);
      const more = contextIssues?.(state.ctx as TCtx, rawInput) ?? [];
      if (!parsed.success || more.length > 0) {
        const issues = [...(parsed.error?.issues ?? []), ...more];
        return Promise.reject(onInvalid(new ZodError(issues), rawInput));
      }
      return next({ ctx: state.ctx, input: parsed.data });
    };
    return new ProcedureBuilder([...this.steps, step]);
  }

  query<TOutput>(
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    return this.build(resolver);
  }

  mutation<TOutput>(
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    return this.build(resolver);
  }

  private build<TOutput>(
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    const steps = this.steps;
    return {
      call: async (ctx, rawInput, settled) => {
        // The context the deepest stage reached was given: what the stages added so far.
        let reached: unknown = ctx;
        const run = async (index: number, state: StepState): Promise<StepResult> => {
          reached = state.ctx;
          const step = steps[index];
          if (!step) {
            return new NextResult(
              await resolver({ ctx: state.ctx as TCtx, input: state.input as TInput }),
            );
          }
          return step(state, rawInput, (nextState) => run(index + 1, nextState));
        };
        const settle = (added: object | undefined) =>
          settled?.({ ...(reached as object), ...added });
        let result: StepResult;
        try {
          result = await run(0, { ctx, input: undefined });
        } catch (error) {
          settle(typeof error === 'object' && error !== null ? addedToFailure.get(error) : {});
          throw error;
        }
        settle(result.added);
        return result.output as TOutput;
      },
    };
  }
}
