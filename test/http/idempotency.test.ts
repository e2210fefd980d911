import { request } from 'node:http';
import { ErrorCode, reasonOf, type ErrorCodeNumber } from '../../core';
import type { CoreFixture } from '../support/core-fixture';
import { HTTP_STATUS_BY_REASON } from '../../gateway-http/status-by-reason';
import { errorBody, expectRateLimitHeaders } from '../support/http-assertions';
import { startHttpOnTestCore, type HttpAnswer, type HttpFixture } from '../support/http-fixture';
import { LONGEST_KEY, MALFORMED_KEYS } from '../support/idempotency';
import {
  describeKeyedCreateScenarios,
  replayedFlag,
  type KeyedCreateTransport,
  type KeyedOutcome,
  type LinkRequest,
} from '../support/keyed-create';

/** The JSON field of each request field. */
const REST_FIELDS: Record<keyof LinkRequest, string> = {
  organizationKey: 'organization_key',
  urlGroupId: 'url_group_id',
  url: 'url',
  alias: 'alias',
  redirectType: 'redirect_type',
};

interface RestLink {
  id: number;
  short_url: string;
  url: string;
  domain: string;
  alias: string;
  redirect_type: number;
}

/**
 * An answer of POST /api/create, transport-neutral. Every answer is also checked whole: JSON, an
 * error body exactly `{data: null, code, errors}`, and the complete, coherent set of rate-limit
 * headers whenever there are any.
 */
function restOutcome(answer: HttpAnswer): KeyedOutcome {
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = answer.json() as { data: RestLink | null; code: number; errors: string[] };
  const reason = body.code === 0 ? undefined : reasonOf(body.code as ErrorCodeNumber);
  if (reason !== undefined) expect(answer.text).toBe(errorBody(reason, body.errors));
  const limit = answer.headers['x-ratelimit-limit'];
  const rateLimit =
    limit === undefined
      ? undefined
      : { limit: Number(limit), remaining: Number(answer.headers['x-ratelimit-remaining']) };
  if (rateLimit) expectRateLimitHeaders(answer.headers, rateLimit);
  const link = body.data ?? undefined;
  return {
    status: answer.status,
    reason,
    messages: body.errors,
    link: link && {
      id: link.id,
      shortUrl: link.short_url,
      url: link.url,
      domain: link.domain,
      alias: link.alias,
      redirectType: link.redirect_type,
    },
    replayed: replayedFlag(answer.headers['idempotent-replayed'] as string | undefined),
    retryAfter: answer.headers['retry-after'],
    rateLimit,
    answer: answer.text,
  };
}

/** POST /api/create with the `Idempotency-Key` header. */
const rest: KeyedCreateTransport = {
  name: 'POST /api/create with Idempotency-Key',
  start: async (deps) => {
    const { f, http } = await startHttpOnTestCore(deps);
    return {
      f,
      create: async (key, request = {}, token = f.token) => {
        const fields = Object.entries(request).map(([name, value]) => [
          REST_FIELDS[name as keyof LinkRequest],
          value as unknown,
        ]);
        const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
        return restOutcome(await http.create(f.body(Object.fromEntries(fields)), token, headers));
      },
      close: () => http.close(),
    };
  },
  statuses: {
    OK: 200,
    ALIAS_TAKEN: 422,
    IDEMPOTENCY_KEY_REUSED: 422,
    IDEMPOTENCY_KEY_IN_USE: 409,
    IDEMPOTENCY_KEY_INVALID: 400,
    BACKEND_UNAVAILABLE: 503,
    ORGANIZATION_INACTIVE: 401,
    NOT_A_MEMBER: 401,
  },
  // node's HTTP client refuses some characters in a header value.
  malformedKeys: MALFORMED_KEYS.filter((bad) => bad.http),
};

describeKeyedCreateScenarios(rest);

it('expects of each reason the status of the gateway’s one mapping', () => {
  const { OK, ...byReason } = rest.statuses;
  expect(OK).toBe(200);
  expect(HTTP_STATUS_BY_REASON).toMatchObject(byReason);
});

let f: CoreFixture;
let http: HttpFixture;

async function start() {
  ({ f, http } = await startHttpOnTestCore());
}

const withKey = (key: string, body = f.body(), token = f.token) =>
  http.create(body, token, { 'Idempotency-Key': key });

describe('POST /api/create with Idempotency-Key: what only REST has', () => {
  afterEach(() => http.close());

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
});
