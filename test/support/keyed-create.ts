import { BackendUnavailableError, type ErrorReason } from '../../core';
import { gatedUrlGuard } from './gated-url-guard';
import type { CoreFixture, TestCoreDeps } from './core-fixture';
import { heldCalls } from './held-url-guard';
import { manualClock, type MALFORMED_KEYS } from './idempotency';

/** The fields of a create a scenario sets; unset ones are the valid defaults of each transport. */
export interface LinkRequest {
  organizationKey?: string;
  urlGroupId?: string;
  url?: string;
  alias?: string;
  redirectType?: number;
}

/** The link of a successful create, whatever transport carried it. */
export interface CreatedLink {
  id: number;
  shortUrl: string;
  url: string;
  domain: string;
  alias: string;
  redirectType: number;
}

/** One create's answer, transport-neutral. */
export interface KeyedOutcome {
  /** The transport's own status: the HTTP status, or the gRPC status code. */
  status: number;
  /** The error's reason (from its numeric code); undefined for a success. */
  reason: ErrorReason | undefined;
  /**
   * The error's messages; none for a success. gRPC's details join them with `; `: read as one
   * message (every refusal here has one).
   */
  messages: readonly string[];
  link: CreatedLink | undefined;
  /** `Idempotent-Replayed: true` / the trailer `idempotent-replayed: true` (any other value throws). */
  replayed: boolean;
  /** `Retry-After` / the trailer `retry-after`. */
  retryAfter: string | undefined;
  /**
   * The rate-limit figures, when the answer has them (the driver asserts that the whole set of
   * rate-limit fields is there and coherent with them).
   */
  rateLimit: { limit: number; remaining: number } | undefined;
  /**
   * The whole answer as the client got it, for comparing two answers: REST's body text (equal
   * means byte for byte), gRPC's response message, or its status code and details.
   */
  answer: unknown;
}

export interface KeyedCreateDriver {
  f: CoreFixture;
  /**
   * A create under `key` (none: no key is sent) of the fixture's valid request with `request`'s
   * fields, as `token`'s holder (default: the fixture's alice).
   */
  create(key: string | undefined, request?: LinkRequest, token?: string): Promise<KeyedOutcome>;
  close(): Promise<void>;
}

/** The reasons the scenarios meet. */
export type ScenarioReason =
  | 'ALIAS_TAKEN'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'IDEMPOTENCY_KEY_INVALID'
  | 'BACKEND_UNAVAILABLE'
  | 'ORGANIZATION_INACTIVE'
  | 'NOT_A_MEMBER';

/** How the scenarios reach one gateway. */
export interface KeyedCreateTransport {
  /** What the test names start with: the request and how it carries the key. */
  name: string;
  /** A test core (`createTestCore(deps)`) served by this gateway, and a client for it. */
  start(deps?: TestCoreDeps): Promise<KeyedCreateDriver>;
  /** The status this transport answers for a success and for each reason, written out. */
  statuses: { OK: number } & Record<ScenarioReason, number>;
  /** The malformed keys this transport's client can send at all. */
  malformedKeys: typeof MALFORMED_KEYS;
}

/** The message each refusal gives, where it does not depend on the request. */
const MESSAGES: Partial<Record<ScenarioReason, string>> = {
  ALIAS_TAKEN: 'This alias is already taken on this link domain.',
  IDEMPOTENCY_KEY_REUSED: 'This idempotency key was already used for a different request.',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this idempotency key is still running; retry shortly.',
  ORGANIZATION_INACTIVE: 'The organization is inactive.',
  NOT_A_MEMBER: 'The access token does not belong to a member of this organization.',
};

/** `Idempotent-Replayed` / `idempotent-replayed` as a flag: absent, or `true` (nothing else). */
export function replayedFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === 'true') return true;
  throw new Error(`idempotent-replayed is ${JSON.stringify(value)}: absent or "true" only`);
}

/**
 * The Idempotency-Key scenarios, run unchanged against each gateway (as the storage contract is
 * against each store): what REST's `Idempotency-Key` header and gRPC's `idempotency-key` metadata
 * both promise. Each transport's own file adds what only makes sense there.
 */
export function describeKeyedCreateScenarios(transport: KeyedCreateTransport): void {
  const { statuses } = transport;
  let driver: KeyedCreateDriver | undefined;

  async function start(deps: TestCoreDeps = {}): Promise<KeyedCreateDriver> {
    driver = await transport.start(deps);
    return driver;
  }
  afterEach(async () => {
    await driver?.close();
    driver = undefined;
  });

  /** A success (a link), replayed or not. */
  const succeeded = (replayed: boolean) => ({
    status: statuses.OK,
    reason: undefined,
    messages: [],
    link: { id: expect.any(Number) as number },
    replayed,
  });
  /** A refusal with `reason` and its message (MESSAGES' unless given), replayed or not. */
  const refused = (
    reason: ScenarioReason,
    { replayed = false, message }: { replayed?: boolean; message?: string | RegExp } = {},
  ) => {
    const expected = message ?? MESSAGES[reason];
    if (expected === undefined) throw new Error(`say which message ${reason} gives`);
    return {
      status: statuses[reason],
      reason,
      messages: [
        typeof expected === 'string' ? expected : (expect.stringMatching(expected) as string),
      ],
      link: undefined,
      replayed,
    };
  };

  describe(`${transport.name}: replays`, () => {
    it('replays a success (generated alias), the same answer, marked replayed, rate limit current', async () => {
      const { f, create } = await start();
      const first = await create('order-1');
      expect(first).toMatchObject({ ...succeeded(false), rateLimit: { limit: 60, remaining: 59 } });
      const second = await create('order-1');
      expect(second).toMatchObject({
        ...succeeded(true),
        rateLimit: { limit: 60, remaining: 58 },
      });
      expect(second.answer).toEqual(first.answer);
      expect(f.linkCount()).toBe(1);
    });

    it('replays a chosen alias and redirect type', async () => {
      const { f, create } = await start();
      const chosen = await create('alias-1', { alias: 'winter', redirectType: 302 });
      expect(chosen).toMatchObject(succeeded(false));
      expect(chosen.link).toMatchObject({ alias: 'winter', redirectType: 302 });
      const again = await create('alias-1', { alias: 'winter', redirectType: 302 });
      expect(again).toMatchObject(succeeded(true));
      expect(again.answer).toEqual(chosen.answer);
      expect(f.linkCount()).toBe(1);
    });

    it('replays a recorded ALIAS_TAKEN with its status and message', async () => {
      const { f, create } = await start();
      expect(await create(undefined, { alias: 'taken' })).toMatchObject(succeeded(false));
      const other = { alias: 'taken', url: 'https://example.com/other' };
      const first = await create('k15', other);
      expect(first).toMatchObject(refused('ALIAS_TAKEN'));
      const again = await create('k15', other);
      expect(again).toMatchObject(refused('ALIAS_TAKEN', { replayed: true }));
      expect(again.answer).toEqual(first.answer);
      expect(f.linkCount()).toBe(1);
    });
  });

  describe(`${transport.name}: refusals`, () => {
    it.each([
      ['url', () => ({ url: 'https://example.com/other' })],
      ['redirect type', () => ({ redirectType: 308 })],
      ['organization', (f: CoreFixture) => ({ organizationKey: f.otherOrganizationKey })],
      ['group', () => ({ urlGroupId: '42' })],
    ])(
      'answers IDEMPOTENCY_KEY_REUSED for another %s under the same key',
      async (_what, change: (f: CoreFixture) => LinkRequest) => {
        const { f, create } = await start();
        expect(await create('same')).toMatchObject(succeeded(false));
        expect(await create('same', change(f))).toMatchObject(refused('IDEMPOTENCY_KEY_REUSED'));
        expect(f.linkCount()).toBe(1);
      },
    );

    it.each(transport.malformedKeys)(
      'answers IDEMPOTENCY_KEY_INVALID for a key with $kind, after counting the request',
      async (bad) => {
        const { f, create } = await start();
        expect(await create(bad.key)).toMatchObject({
          ...refused('IDEMPOTENCY_KEY_INVALID', { message: bad.message }),
          rateLimit: { limit: 60, remaining: 59 },
        });
        expect(f.linkCount()).toBe(0);
      },
    );

    it('answers IDEMPOTENCY_KEY_IN_USE with retry-after 1 while the first request runs', async () => {
      const gate = gatedUrlGuard();
      const { f, create } = await start({ urlGuard: gate.guard });
      const first = create('slow');
      await gate.entered;
      const busy = await create('slow');
      expect(busy).toMatchObject({
        ...refused('IDEMPOTENCY_KEY_IN_USE'),
        retryAfter: '1',
        rateLimit: { limit: 60, remaining: 58 },
      });
      gate.release();
      const done = await first;
      expect(done).toMatchObject({ ...succeeded(false), retryAfter: undefined });
      const replay = await create('slow');
      expect(replay).toMatchObject({ ...succeeded(true), retryAfter: undefined });
      expect(replay.answer).toEqual(done.answer);
      expect(f.linkCount()).toBe(1);
    });

    it('keeps keys per user: another user with the same key creates their own link', async () => {
      const { f, create } = await start();
      await f.provisioner.saveUser({ id: 'carol', organizations: ['acme'] });
      const carol = (await f.provisioner.issueToken('carol')).token as string;
      const alices = await create('mine');
      const carols = await create('mine', {}, carol);
      expect([alices, carols]).toMatchObject([succeeded(false), succeeded(false)]);
      expect(carols.link?.id).not.toBe(alices.link?.id);
      expect(carols.answer).not.toEqual(alices.answer);
      expect(f.linkCount()).toBe(2);
    });
  });

  describe(`${transport.name}: concurrency and faults`, () => {
    it('20 concurrent requests with one key create exactly one link', async () => {
      const { f, create } = await start();
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => create('burst')));
      expect(f.linkCount()).toBe(1);
      const ok = outcomes.filter((o) => o.reason === undefined);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      for (const o of ok) expect(o.status).toBe(statuses.OK);
      expect(new Set(ok.map((o) => JSON.stringify(o.answer))).size).toBe(1);
      expect(new Set(ok.map((o) => o.link?.id)).size).toBe(1);
      expect(ok.filter((o) => o.replayed)).toHaveLength(ok.length - 1);
      for (const other of outcomes.filter((o) => o.reason !== undefined)) {
        expect(other).toMatchObject({ ...refused('IDEMPOTENCY_KEY_IN_USE'), retryAfter: '1' });
      }
    });

    it('a BACKEND_UNAVAILABLE releases the key: the retry runs and succeeds', async () => {
      let failures = 1;
      const { f, create } = await start({
        urlGuard: {
          check: () =>
            failures-- > 0
              ? Promise.reject(new BackendUnavailableError('reputation service down'))
              : Promise.resolve({ blocked: false }),
        },
      });
      const failed = await create('fault');
      expect(failed).toMatchObject(refused('BACKEND_UNAVAILABLE', { message: /./ }));
      const retry = await create('fault');
      expect(retry).toMatchObject(succeeded(false));
      const replay = await create('fault');
      expect(replay).toMatchObject(succeeded(true));
      expect(replay.answer).toEqual(retry.answer);
      expect(f.linkCount()).toBe(1);
    });
  });

  describe(`${transport.name}: the organization is checked on every retry`, () => {
    it('answers ORGANIZATION_INACTIVE to a retry after `org deactivate`, not the recorded success', async () => {
      const { f, create } = await start();
      const first = await create('org-off');
      expect(first).toMatchObject(succeeded(false));
      await f.provisioner.setOrganizationActive('acme', false);
      expect(await create('org-off')).toMatchObject(refused('ORGANIZATION_INACTIVE'));
      await f.provisioner.setOrganizationActive('acme', true);
      const replay = await create('org-off');
      expect(replay).toMatchObject(succeeded(true));
      expect(replay.answer).toEqual(first.answer);
    });

    it('records no NOT_A_MEMBER: after `member add` the retry creates the link', async () => {
      const { f, create } = await start();
      expect(await create('join', {}, f.outsiderToken)).toMatchObject(refused('NOT_A_MEMBER'));
      await f.provisioner.addMember('bob', 'acme');
      expect(await create('join', {}, f.outsiderToken)).toMatchObject(succeeded(false));
      expect(f.linkCount()).toBe(1);
    });
  });

  describe(`${transport.name}: a request paused past its lease`, () => {
    it('stores nothing once a retry completed, and answers the retry’s link, replayed', async () => {
      const clock = manualClock();
      const guard = heldCalls([0]);
      const { f, create } = await start({ clock, urlGuard: guard.guard });
      const paused = create('paused');
      await guard.reached(1);
      clock.advanceSeconds(61);
      const retry = await create('paused');
      expect(retry).toMatchObject(succeeded(false));
      guard.release(0);
      const late = await paused;
      expect(late).toMatchObject(succeeded(true));
      expect(late.answer).toEqual(retry.answer);
      expect(f.linkCount()).toBe(1);
    });
  });
}
