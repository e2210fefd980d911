import type { z } from 'zod';
import type { ShortlinkError } from '../errors/shortlink-error';

/**
 * A tRPC-style procedure builder: a chain of middlewares that narrow the context (`next(ctx)`),
 * an input step that parses with a zod schema at its place in the chain (so the contract's
 * precedence can run checks before it), and a resolver.
 */

export interface MiddlewareOptions<TCtx, TNextCtx> {
  ctx: TCtx;
  rawInput: unknown;
  next: (ctx: TNextCtx) => Promise<unknown>;
}

export type Middleware<TCtx, TNextCtx> = (
  options: MiddlewareOptions<TCtx, TNextCtx>,
) => Promise<unknown>;

export interface ResolverOptions<TCtx, TInput> {
  ctx: TCtx;
  input: TInput;
}

export interface Procedure<TBaseCtx, TCallerInput, TOutput> {
  readonly kind: 'query' | 'mutation';
  /** Runs the chain on untrusted input (what transports call). */
  call(ctx: TBaseCtx, rawInput: unknown): Promise<TOutput>;
  /** Type-level marker of the input a typed caller passes. */
  readonly _callerInput?: TCallerInput;
}

interface StepState {
  ctx: unknown;
  input: unknown;
}
type Step = (
  state: StepState,
  rawInput: unknown,
  next: (state: StepState) => Promise<unknown>,
) => Promise<unknown>;

export class ProcedureBuilder<TBaseCtx, TCtx, TInput, TCallerInput> {
  private constructor(private readonly steps: readonly Step[]) {}

  static create<TBaseCtx>(): ProcedureBuilder<TBaseCtx, TBaseCtx, undefined, undefined> {
    return new ProcedureBuilder([]);
  }

  use<TNextCtx>(
    middleware: Middleware<TCtx, TNextCtx>,
  ): ProcedureBuilder<TBaseCtx, TNextCtx, TInput, TCallerInput> {
    const step: Step = (state, rawInput, next) =>
      middleware({
        ctx: state.ctx as TCtx,
        rawInput,
        next: (ctx) => next({ ctx, input: state.input }),
      });
    return new ProcedureBuilder([...this.steps, step]);
  }

  /** Parses the raw input with `schema`; a failure becomes the error `onInvalid` builds. */
  input<TSchema extends z.ZodType>(
    schema: TSchema,
    onInvalid: (error: z.ZodError, rawInput: unknown) => ShortlinkError,
  ): ProcedureBuilder<TBaseCtx, TCtx, z.output<TSchema>, z.input<TSchema>> {
    const step: Step = (state, rawInput, next) => {
      const parsed = schema.safeParse(rawInput);
      if (!parsed.success) return Promise.reject(onInvalid(parsed.error, rawInput));
      return next({ ctx: state.ctx, input: parsed.data });
    };
    return new ProcedureBuilder([...this.steps, step]);
  }

  /** Declares the caller-facing input type without parsing (for inputs parsed in stages). */
  accepts<TDeclared>(): ProcedureBuilder<TBaseCtx, TCtx, TInput, TDeclared> {
    return new ProcedureBuilder(this.steps);
  }

  query<TOutput>(
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    return this.build('query', resolver);
  }

  mutation<TOutput>(
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    return this.build('mutation', resolver);
  }

  private build<TOutput>(
    kind: 'query' | 'mutation',
    resolver: (options: ResolverOptions<TCtx, TInput>) => Promise<TOutput>,
  ): Procedure<TBaseCtx, TCallerInput, TOutput> {
    const steps = this.steps;
    const run = (index: number, state: StepState, rawInput: unknown): Promise<unknown> => {
      const step = steps[index];
      if (!step) return resolver({ ctx: state.ctx as TCtx, input: state.input as TInput });
      return step(state, rawInput, (nextState) => run(index + 1, nextState, rawInput));
    };
    return {
      kind,
      call: (ctx, rawInput) => run(0, { ctx, input: undefined }, rawInput) as Promise<TOutput>,
    };
  }
}
