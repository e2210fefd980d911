import { z } from 'zod';
import {
  BackendUnavailableError,
  createCore,
  ShortlinkError,
  type CreateLinkRequest,
  type RedirectType,
} from '../../../core';
import { failWith, ProcedureBuilder, type Middleware } from '../../../core/procedure/procedure';
import { createCaller } from '../../../core/procedure/router';
import { createTestCore } from '../../support/core-fixture';
import { failingStore, failureOf } from '../../support/failures';
import { captureLogs } from '../../support/log-capture';

interface Ctx {
  user?: string;
}

const withUser: Middleware<Ctx, Ctx & { user: string }> = ({ ctx, next }) =>
  next({ ...ctx, user: 'alice' });

const echo = ProcedureBuilder.create<Ctx>()
  .use(withUser)
  .input(z.object({ text: z.string() }), () => new ShortlinkError('BODY_INVALID', 'bad input'))
  .query(({ ctx, input }) => Promise.resolve(`${ctx.user}: ${input.text}`));

describe('the procedure chain', () => {
  it('merges what a stage adds into the context: later stages see it, whatever the stages between pass', async () => {
    const addsTag: Middleware<Ctx, { tag: string }> = ({ next }) => next({ tag: 'kept' });
    const addsNothing: Middleware<Ctx> = ({ next }) => next();
    const procedure = ProcedureBuilder.create<Ctx>()
      .use(addsTag)
      .use(addsNothing)
      .use(withUser)
      .query(({ ctx }) => Promise.resolve(`${ctx.user} ${ctx.tag}`));
    await expect(createCaller({ procedure }, {}).procedure(undefined)).resolves.toBe('alice kept');
  });

  it('hands the caller the context a call settled with, on success and on failure', async () => {
    const settled: unknown[] = [];
    const addsMark: Middleware<Ctx, { mark: number }> = ({ next }) => next({ mark: 1 });
    const refuses: Middleware<Ctx> = () =>
      Promise.reject(failWith(new ShortlinkError('RATE_LIMITED', 'no'), { refusal: 'noted' }));
    const answers: Middleware<Ctx> = ({ answer }) =>
      Promise.resolve(answer('early', { early: true }));
    const build = (last: Middleware<Ctx>) =>
      ProcedureBuilder.create<Ctx>()
        .use(addsMark)
        .use(last)
        .query(() => Promise.resolve('resolved'));
    const options = { onSettled: (ctx: unknown) => settled.push(ctx) };
    const through: Middleware<Ctx> = ({ next }) => next();
    await createCaller({ procedure: build(through) }, {}, options).procedure(undefined);
    await failureOf(createCaller({ procedure: build(refuses) }, {}, options).procedure(undefined));
    await createCaller({ procedure: build(answers) }, {}, options).procedure(undefined);
    expect(settled).toEqual([{ mark: 1 }, { mark: 1, refusal: 'noted' }, { mark: 1, early: true }]);
  });

  it('carries the resolver output back through every middleware', async () => {
    const caller = createCaller({ echo }, {});
    await expect(caller.echo({ text: 'hi' })).resolves.toBe('alice: hi');
  });

  it('does not typecheck a middleware that resolves without next(), and refuses it at run time', async () => {
    // @ts-expect-error A middleware must resolve with what next() gave it.
    const forgetful: Middleware<Ctx, Ctx> = async () => {};
    // @ts-expect-error Nor can it make that result itself.
    const forger: Middleware<Ctx, Ctx> = () => Promise.resolve({ output: 'forged' });
    for (const middleware of [forgetful, forger]) {
      const procedure = ProcedureBuilder.create<Ctx>()
        .use(middleware)
        .query(() => Promise.resolve('never reached'));
      const failure = await failureOf(createCaller({ procedure }, {}).procedure(undefined));
      expect(failure.reason).toBe('INTERNAL');
      expect(String((failure.cause as Error).message)).toMatch(
        /without returning the result of next\(\)/,
      );
    }
  });

  it('ends the chain on purpose with answer(): later stages and the resolver do not run', async () => {
    const reached: string[] = [];
    const later: Middleware<Ctx, Ctx> = ({ ctx, next }) => {
      reached.push('later stage');
      return next(ctx);
    };
    const replaying: Middleware<Ctx, Ctx> = ({ answer }) => Promise.resolve(answer('replayed'));
    const procedure = ProcedureBuilder.create<Ctx>()
      .use(replaying)
      .use(later)
      .query(() => {
        reached.push('resolver');
        return Promise.resolve('computed');
      });
    await expect(createCaller({ procedure }, {}).procedure(undefined)).resolves.toBe('replayed');
    expect(reached).toEqual([]);
  });

  it("reports the context's issues (a rule needing the clock) with the schema's, to onInvalid", async () => {
    const seen: string[][] = [];
    const procedure = ProcedureBuilder.create<{ limit: number }>()
      .input(
        z.object({ a: z.string(), n: z.number() }),
        (error) => {
          seen.push(error.issues.map((issue) => issue.path.join('.')));
          return new ShortlinkError('BODY_INVALID', 'bad input');
        },
        (ctx, raw) =>
          (raw as { n?: unknown }).n === ctx.limit
            ? []
            : [{ code: 'custom', path: ['n'], message: 'not the limit', input: raw }],
      )
      .query(({ input }) => Promise.resolve(input.a));
    const call = (input: unknown) => createCaller({ procedure }, { limit: 3 }).procedure(input);
    await expect(call({ a: 'ok', n: 3 })).resolves.toBe('ok');
    await expect(call({ a: 'ok', n: 4 })).rejects.toMatchObject({ reason: 'BODY_INVALID' });
    await expect(call({ a: 1, n: 4 })).rejects.toMatchObject({ reason: 'BODY_INVALID' });
    expect(seen).toEqual([['n'], ['a', 'n']]);
  });

  it('types links.create input from the zod schemas', () => {
    type Expected = {
      organization_key: string;
      url_group_id: string | number;
      url: string;
      alias?: string | null | undefined;
      redirect_type?: RedirectType | null | undefined;
      expires_at?: string | null | undefined;
      max_visits?: number | null | undefined;
    };
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
    const same: Same<CreateLinkRequest, Expected> = true;
    expect(same).toBe(true);
  });

  it('gives transports an untyped caller (unknown input) and embedders a typed one', async () => {
    const core = createCore();
    const body: unknown = { not: 'a create request' };
    // Validated like any input: the token stage comes first.
    expect((await failureOf(core.createUntypedCaller().links.create(body))).reason).toBe(
      'TOKEN_MISSING',
    );
    // @ts-expect-error The typed caller wants a CreateLinkRequest.
    const typed = core.createCaller().links.create(body);
    expect((await failureOf(typed)).reason).toBe('TOKEN_MISSING');
  });
});

describe("createCaller's failure hook", () => {
  it('logs a server fault once, to the request logger, and a caller fault not at all', async () => {
    const f = await createTestCore();
    const coreLogs = captureLogs();
    const requestLogs = captureLogs();
    const broken = createCore({
      store: failingStore(f.store, () => new BackendUnavailableError('down'), { parts: ['links'] }),
      logger: coreLogs.logger,
    });
    const caller = broken.createUntypedCaller({
      authorization: `Bearer ${f.token}`,
      logger: requestLogs.logger,
    });
    expect((await failureOf(caller.links.create(f.body()))).reason).toBe('BACKEND_UNAVAILABLE');
    expect((await failureOf(caller.links.create(f.body({ url: 'nope' })))).reason).toBe(
      'URL_INVALID',
    );
    const errors = requestLogs.records().filter((record) => record.level === 50);
    expect(errors).toEqual([
      expect.objectContaining({ msg: 'links.create failed', procedure: 'links.create' }),
    ]);
    expect((errors[0]!.err as { message: string }).message).toBe('down');
    // The core's own logger holds no error (its warning that the link domains of the broken
    // store could not be listed, at creation, is no failure of a call).
    const coreErrors = () => coreLogs.records().filter((record) => record.level === 50);
    expect(coreErrors()).toEqual([]);

    // Without a request logger, the core's own.
    await failureOf(
      broken.createUntypedCaller({ authorization: `Bearer ${f.token}` }).links.create(f.body()),
    );
    expect(coreErrors().map((record) => record.msg)).toEqual(['links.create failed']);
  });
});

describe("createCaller's failure hook: the failure stands", () => {
  const throwingLogger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => {
      throw new Error('the logger broke');
    },
  };

  it('rejects with the ShortlinkError when the logger that records a server fault throws', async () => {
    const f = await createTestCore();
    const broken = createCore({
      store: failingStore(f.store, () => new BackendUnavailableError('down'), { parts: ['links'] }),
      logger: throwingLogger,
    });
    const viaCore = broken.createUntypedCaller({ authorization: `Bearer ${f.token}` });
    expect(await failureOf(viaCore.links.create(f.body()))).toMatchObject({
      reason: 'BACKEND_UNAVAILABLE',
    });
    const viaRequest = broken.createUntypedCaller({
      authorization: `Bearer ${f.token}`,
      logger: throwingLogger,
    });
    expect(await failureOf(viaRequest.links.create(f.body()))).toMatchObject({
      reason: 'BACKEND_UNAVAILABLE',
    });
  });

  it('rejects with a ShortlinkError when the response object given cannot be written', async () => {
    const f = await createTestCore();
    for (const response of [5, Object.freeze({})]) {
      const logs = captureLogs();
      const caller = f.core.createUntypedCaller({
        authorization: `Bearer ${f.token}`,
        response,
        logger: logs.logger,
      });
      expect(await failureOf(caller.links.create(f.body()))).toMatchObject({ reason: 'INTERNAL' });
      // The fault is logged although writing the retry hint into `response` then fails too.
      expect(logs.records().map((record) => record.msg)).toEqual(['links.create failed']);
    }
    expect(f.linkCount()).toBe(0);
  });
});

describe('createCaller from plain JavaScript', () => {
  it('takes a null request context as none', async () => {
    const f = await createTestCore();
    const caller = f.core.createUntypedCaller(null as never);
    expect(await failureOf(caller.links.create(f.body()))).toMatchObject({
      reason: 'TOKEN_MISSING',
    });
    expect(
      await failureOf(f.core.createCaller(null as never).links.create(f.body() as never)),
    ).toMatchObject({ reason: 'TOKEN_MISSING' });
  });
});
