import { request } from 'node:http';
import { BackendUnavailableError, ErrorCode, type UrlGuard } from '../../core';
import { gatedUrlGuard } from '../grpc/gated-url-guard';
import type { CoreFixture } from '../support/core-fixture';
import { expectError, expectRateLimitHeaders } from '../support/http-assertions';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';
import { heldCalls } from '../support/held-url-guard';
import { LONGEST_KEY, MALFORMED_KEYS, manualClock } from '../support/idempotency';

let f: CoreFixture;
let http: HttpFixture;

async function start(urlGuard?: UrlGuard) {
  ({ f, http } = await startHttpOnTestCore(urlGuard ? { urlGuard } : {}));
}
afterEach(() => http.close());

const withKey = (key: string, body = f.body(), token = f.token) =>
  http.create(body, token, { 'Idempotency-Key': key });

const REUSED = ['This idempotency key was already used for a different request.'];

describe('POST /api/create with Idempotency-Key: replays', () => {
  it('replays a success byte for byte with Idempotent-Replayed: true and current rate-limit headers', async () => {
    await start();
    const first = await withKey('order-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expectRateLimitHeaders(first.headers, { limit: 60, remaining: 59 });
    const second = await withKey('order-1');
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expectRateLimitHeaders(second.headers, { limit: 60, remaining: 58 });
    expect(f.linkCount()).toBe(1);
  });

  it('replays a chosen alias; whitespace and key order of the JSON do not matter', async () => {
    await start();
    /** A create under the key alias-1 whose body is this JSON text, as written. */
    const sendJsonText = (body: string) =>
      http.request({
        method: 'POST',
        path: '/api/create',
        headers: {
          authorization: `Bearer ${f.token}`,
          'content-type': 'application/json',
          'idempotency-key': 'alias-1',
        },
        body,
      });
    const fields = f.body({ alias: 'fall', redirect_type: 307 });
    const first = await sendJsonText(JSON.stringify(fields));
    const reordered = Object.fromEntries(Object.entries(fields).reverse());
    const second = await sendJsonText(JSON.stringify(reordered, null, 4));
    expect(first.status).toBe(200);
    expect([second.status, second.text]).toEqual([200, first.text]);
    expect(second.headers['idempotent-replayed']).toBe('true');
  });

  it('replays a recorded 15 with its status and body', async () => {
    await start();
    await http.create(f.body({ alias: 'taken' }), f.token);
    const first = await withKey('k15', f.body({ alias: 'taken' }));
    expectError(first, 422, 'ALIAS_TAKEN', ['This alias is already taken on this link domain.']);
    const again = await withKey('k15', f.body({ alias: 'taken' }));
    expect([again.status, again.text]).toEqual([first.status, first.text]);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('POST /api/create with Idempotency-Key: refusals', () => {
  it.each([
    ['url', { url: 'https://example.com/other' }],
    ['redirect_type', { redirect_type: 308 }],
    ['organization', 'other-organization'],
    ['group', { url_group_id: '42' }],
  ])('answers 422, code 25 for another %s under the same key', async (_what, change) => {
    await start();
    await withKey('same');
    const body =
      change === 'other-organization'
        ? f.body({ organization_key: f.otherOrganizationKey })
        : f.body(change as Record<string, unknown>);
    const answer = await withKey('same', body);
    expectError(answer, 422, 'IDEMPOTENCY_KEY_REUSED', REUSED);
    expect(answer.headers['idempotent-replayed']).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });

  it.each(MALFORMED_KEYS.filter((bad) => bad.http))(
    'answers 400, code 27 for a key with $kind',
    async (bad) => {
      await start();
      const answer = await withKey(bad.key);
      expect(answer.status).toBe(400);
      const body = answer.json() as { code: number; errors: string[] };
      expect(body.code).toBe(ErrorCode.IDEMPOTENCY_KEY_INVALID);
      expect(body.errors[0]).toMatch(bad.message);
      expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
      expect(f.linkCount()).toBe(0);
    },
  );

  it('answers 27 for a repeated header, saying so, and accepts 255 characters', async () => {
    await start();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      // node's client sends an array value as repeated header lines.
      const req = request(
        {
          host: '127.0.0.1',
          port: http.port,
          method: 'POST',
          path: '/api/create',
          headers: {
            authorization: `Bearer ${f.token}`,
            'content-type': 'application/json',
            'idempotency-key': ['one', 'two'],
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(f.body()));
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({
      data: null,
      code: ErrorCode.IDEMPOTENCY_KEY_INVALID,
      errors: ['The idempotency key was sent more than once: send it once.'],
    });
    expect(f.linkCount()).toBe(0);
    expect((await withKey(LONGEST_KEY)).status).toBe(200);
  });

  it('answers 409, code 26 with Retry-After: 1 while the first request runs', async () => {
    const gate = gatedUrlGuard();
    await start(gate.guard);
    const first = withKey('slow');
    await gate.entered;
    const busy = await withKey('slow');
    expectError(busy, 409, 'IDEMPOTENCY_KEY_IN_USE', [
      'A request with this idempotency key is still running; retry shortly.',
    ]);
    expect(busy.headers['retry-after']).toBe('1');
    expectRateLimitHeaders(busy.headers, { limit: 60, remaining: 58 });
    gate.release();
    const done = await first;
    const replay = await withKey('slow');
    expect([replay.status, replay.text]).toEqual([200, done.text]);
    expect(replay.headers['retry-after']).toBeUndefined();
  });

  it('keeps keys per user: another user with the same key creates their own link', async () => {
    await start();
    await f.provisioner.saveUser({ id: 'carol', organizations: ['acme'] });
    const carol = (await f.provisioner.issueToken('carol')).token as string;
    const alices = await withKey('mine');
    const carols = await withKey('mine', f.body(), carol);
    expect(carols.status).toBe(200);
    expect(carols.text).not.toBe(alices.text);
    expect(carols.headers['idempotent-replayed']).toBeUndefined();
    expect(f.linkCount()).toBe(2);
  });
});

describe('POST /api/create with Idempotency-Key: concurrency and faults', () => {
  it('20 concurrent requests with one key create exactly one link', async () => {
    await start();
    const answers = await Promise.all(Array.from({ length: 20 }, () => withKey('burst')));
    expect(f.linkCount()).toBe(1);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.text)).size).toBe(1);
    expect(ok.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(
      ok.length - 1,
    );
    for (const other of answers.filter((a) => a.status !== 200)) {
      expect([other.status, (other.json() as { code: number }).code]).toEqual([
        409,
        ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      ]);
      expect(other.headers['retry-after']).toBe('1');
    }
  });

  it('a 503 releases the key: the retry runs and succeeds', async () => {
    let failures = 1;
    await start({
      check: () =>
        failures-- > 0
          ? Promise.reject(new BackendUnavailableError('reputation service down'))
          : Promise.resolve({ blocked: false }),
    });
    const failed = await withKey('fault');
    expect([failed.status, (failed.json() as { code: number }).code]).toEqual([
      503,
      ErrorCode.BACKEND_UNAVAILABLE,
    ]);
    const retry = await withKey('fault');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect((await withKey('fault')).text).toBe(retry.text);
    expect(f.linkCount()).toBe(1);
  });
});

describe('POST /api/create with Idempotency-Key: the organization is checked on every retry', () => {
  it('answers 401, code 13 to a retry after `org deactivate`, not the recorded 200', async () => {
    await start();
    const first = await withKey('org-off');
    expect(first.status).toBe(200);
    await f.provisioner.setOrganizationActive('acme', false);
    const retry = await withKey('org-off');
    expectError(retry, 401, 'ORGANIZATION_INACTIVE', ['The organization is inactive.']);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    await f.provisioner.setOrganizationActive('acme', true);
    const replay = await withKey('org-off');
    expect([replay.status, replay.text, replay.headers['idempotent-replayed']]).toEqual([
      200,
      first.text,
      'true',
    ]);
  });

  it('records no 17: after `member add` the retry creates the link', async () => {
    await start();
    const refused = await withKey('join', f.body(), f.outsiderToken);
    expectError(refused, 401, 'NOT_A_MEMBER', [
      'The access token does not belong to a member of this organization.',
    ]);
    await f.provisioner.addMember('bob', 'acme');
    const retry = await withKey('join', f.body(), f.outsiderToken);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(f.linkCount()).toBe(1);
  });
});

describe('POST /api/create with Idempotency-Key: a request paused past its lease', () => {
  it('stores nothing once a retry completed, and answers the retry’s body, replayed', async () => {
    const clock = manualClock();
    const guard = heldCalls([0]);
    ({ f, http } = await startHttpOnTestCore({ clock, urlGuard: guard.guard }));
    const paused = withKey('paused');
    await guard.reached(1);
    clock.advanceSeconds(61);
    const retry = await withKey('paused');
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    guard.release(0);
    const late = await paused;
    expect([late.status, late.text, late.headers['idempotent-replayed']]).toEqual([
      200,
      retry.text,
      'true',
    ]);
    expect(f.linkCount()).toBe(1);
  });
});
