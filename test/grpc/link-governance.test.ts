import { status } from '@grpc/grpc-js';
import { createMemoryRateLimiter, ShortlinkMetrics } from '../../core';
import { LinkState, type ShortLink } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { CoreFixture } from '../support/core-fixture';
import { expectFailure } from './error-details';
import {
  metadataText,
  startGrpcOnTestCore,
  validRequest,
  type GrpcFixture,
} from '../support/grpc-fixture';

/**
 * GetShortLink, ListShortLinks, DisableShortLink and EnableShortLink through a real server on the
 * core, with a clock the tests set so that every answer can be compared whole.
 */
let f: CoreFixture;
let grpc: GrpcFixture;
let metrics: ShortlinkMetrics;
let now = new Date('2026-03-04T05:06:07.089Z');

beforeAll(async () => {
  metrics = new ShortlinkMetrics({ processMetrics: false });
  ({ f, grpc } = await startGrpcOnTestCore(
    {
      clock: { now: () => new Date(now) },
      // Room for every call of this file; the budget itself is tested in the errors' file.
      rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'grpc-governance' }),
    },
    { metrics },
  ));
});
afterAll(() => grpc.close());

/** Creates a link over gRPC at `at` and answers it. */
async function createAt(
  at: string,
  overrides: Parameters<typeof validRequest>[1] = {},
  organizationKey = f.organizationKey,
): Promise<ShortLink> {
  now = new Date(at);
  const { response, error } = await grpc.create(
    validRequest(f, { organizationKey, ...overrides }),
    f.token,
  );
  expect(error).toBeUndefined();
  return response!.shortLink!;
}

/** What every reading RPC answers for an active link of acme created at `createdAt`. */
function activeLink(
  created: ShortLink,
  createdAt: string,
  urlGroupId: string,
  domain = f.domain,
): ShortLink {
  return {
    id: created.id,
    shortUrl: `${domain === f.domain ? 'https' : 'http'}://${domain}/${created.alias}`,
    url: created.url,
    domain,
    alias: created.alias,
    redirectType: created.redirectType,
    state: LinkState.LINK_STATE_ACTIVE,
    createdAt: new Date(createdAt),
    urlGroupId,
    disabledReason: '',
    disabledAt: undefined,
    disabledBy: '',
    expiresAt: undefined,
    maxVisits: undefined,
    // GetShortLink and ListShortLinks read the stored visit total; nothing was followed here.
    visitCount: 0,
  };
}

/** What ResolveShortLink answers for `link`, without credentials: what a follow shows. */
function publicFields(link: ShortLink): ShortLink {
  return {
    ...link,
    id: 0,
    state: LinkState.LINK_STATE_UNSPECIFIED,
    createdAt: undefined,
    urlGroupId: '',
    visitCount: undefined,
  };
}

/** shortlink_requests_total of gRPC `operation` answered with `code`. */
async function requestCount(operation: string, code: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('shortlink_requests_total')?.get();
  const sample = metric?.values.find(
    ({ labels }) =>
      labels.gateway === 'grpc' && labels.operation === operation && labels.code === code,
  );
  return sample?.value ?? 0;
}

describe('GetShortLink', () => {
  it('answers the whole link, by id and by alias, with the rate-limit trailers', async () => {
    const created = await createAt('2026-03-04T05:06:07.089Z', {
      alias: 'get-me',
      urlGroupId: '1',
      redirectType: 302,
    });
    const expected = activeLink(created, '2026-03-04T05:06:07.089Z', '1');
    expect(expected.redirectType).toBe(302);

    const byId = await grpc.get({ organizationKey: f.organizationKey, id: created.id }, f.token);
    expect(byId.error).toBeUndefined();
    expect(byId.response).toEqual({ shortLink: expected });
    expect(metadataText(byId.status.metadata, 'x-ratelimit-limit')).toBe('1000');
    expect(metadataText(byId.status.metadata, 'ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);

    const byAlias = await grpc.get(
      { organizationKey: f.organizationKey, alias: 'get-me' },
      f.token,
    );
    expect(byAlias.response).toEqual({ shortLink: expected });
  });
});

describe('DisableShortLink and EnableShortLink', () => {
  it('disables a link, which ResolveShortLink then refuses (28), and enables it again', async () => {
    const created = await createAt('2026-03-05T00:00:00.000Z', { alias: 'governed' });
    const active = activeLink(created, '2026-03-05T00:00:00.000Z', '1');
    const resolvedBefore = await grpc.resolve({ domain: f.domain, alias: 'governed' });
    expect(resolvedBefore.response).toEqual({ shortLink: publicFields(active) });

    now = new Date('2026-03-06T12:30:45.678Z');
    const disabled = await grpc.disable(
      { organizationKey: f.organizationKey, alias: 'governed', reason: '  Reported as phishing ' },
      f.token,
    );
    expect(disabled.error).toBeUndefined();
    const disabledLink: ShortLink = {
      ...active,
      state: LinkState.LINK_STATE_DISABLED,
      disabledReason: 'Reported as phishing',
      disabledAt: new Date('2026-03-06T12:30:45.678Z'),
      disabledBy: 'user:alice',
    };
    // A change answers the link without its visit total (only reads carry it).
    expect(disabled.response).toEqual({ shortLink: { ...disabledLink, visitCount: undefined } });
    expect(metadataText(disabled.status.metadata, 'x-ratelimit-limit')).toBe('1000');

    // Following it is refused, without the target or the reason.
    const refused = await grpc.resolve({ domain: f.domain, alias: 'governed' });
    const [message] = expectFailure(refused, 'LINK_DISABLED', status.FAILED_PRECONDITION);
    expect(message).not.toContain('example.com');
    expect(message).not.toContain('phishing');
    expect(metadataText(refused.status.metadata, 'x-ratelimit-limit')).toBeUndefined();

    const got = await grpc.get({ organizationKey: f.organizationKey, id: created.id }, f.token);
    expect(got.response).toEqual({ shortLink: disabledLink });

    // Disabling it again changes nothing: the first reason and time stand.
    now = new Date('2026-03-07T00:00:00.000Z');
    const again = await grpc.disable(
      { organizationKey: f.organizationKey, id: created.id, reason: 'another reason' },
      f.token,
    );
    expect(again.response).toEqual({ shortLink: { ...disabledLink, visitCount: undefined } });

    const enabled = await grpc.enable(
      { organizationKey: f.organizationKey, alias: 'governed' },
      f.token,
    );
    expect(enabled.error).toBeUndefined();
    expect(enabled.response).toEqual({ shortLink: { ...active, visitCount: undefined } });
    const resolvedAfter = await grpc.resolve({ domain: f.domain, alias: 'governed' });
    expect(resolvedAfter.response).toEqual({ shortLink: publicFields(active) });

    // Enabling an active link changes nothing either.
    const enabledAgain = await grpc.enable(
      { organizationKey: f.organizationKey, id: created.id },
      f.token,
    );
    expect(enabledAgain.response).toEqual({ shortLink: { ...active, visitCount: undefined } });
  });
});

describe('ListShortLinks', () => {
  it('pages through the organization newest first, following next_page_token', async () => {
    // beta's links are made here only, so the listing is exactly these.
    const created: ShortLink[] = [];
    for (let i = 0; i < 5; i += 1) {
      const at = `2026-04-0${i + 1}T10:00:00.000Z`;
      const link = await createAt(at, { alias: `beta-${i}` }, f.otherOrganizationKey);
      created.push(link);
    }
    const expected = created
      .map((link, i) => activeLink(link, `2026-04-0${i + 1}T10:00:00.000Z`, '1', f.otherDomain))
      .reverse();

    const pages: ShortLink[][] = [];
    const tokens: string[] = [];
    let pageToken = '';
    do {
      const { response, error } = await grpc.list(
        { organizationKey: f.otherOrganizationKey, pageSize: 2, pageToken },
        f.token,
      );
      expect(error).toBeUndefined();
      pages.push(response!.links);
      pageToken = response!.nextPageToken;
      tokens.push(pageToken);
    } while (pageToken !== '' && pages.length < 10);
    expect(pages).toEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)]);
    expect(tokens[0]).not.toBe('');
    expect(tokens[1]).not.toBe('');
    expect(tokens[2]).toBe('');

    // page_size 0 is the default (50): one page, no token.
    const whole = await grpc.list({ organizationKey: f.otherOrganizationKey }, f.token);
    expect(whole.response).toEqual({ links: expected, nextPageToken: '' });
  });

  it('lists one URL group when url_group_id is given', async () => {
    const inGroup = await createAt('2026-05-01T00:00:00.000Z', { urlGroupId: '42' });
    await createAt('2026-05-02T00:00:00.000Z', { urlGroupId: '1' });
    const { response, error } = await grpc.list(
      { organizationKey: f.organizationKey, urlGroupId: '42' },
      f.token,
    );
    expect(error).toBeUndefined();
    expect(response).toEqual({
      links: [activeLink(inGroup, '2026-05-01T00:00:00.000Z', '42')],
      nextPageToken: '',
    });
  });

  it('shows a disabled link as disabled', async () => {
    const link = await createAt('2026-06-01T00:00:00.000Z', { urlGroupId: '42' });
    now = new Date('2026-06-02T00:00:00.000Z');
    await grpc.disable({ organizationKey: f.organizationKey, id: link.id, reason: 'r' }, f.token);
    const { response } = await grpc.list(
      { organizationKey: f.organizationKey, urlGroupId: '42', pageSize: 1 },
      f.token,
    );
    expect(response!.links).toEqual([
      {
        ...activeLink(link, '2026-06-01T00:00:00.000Z', '42'),
        state: LinkState.LINK_STATE_DISABLED,
        disabledReason: 'r',
        disabledAt: new Date('2026-06-02T00:00:00.000Z'),
        disabledBy: 'user:alice',
      },
    ]);
    expect(response!.nextPageToken).not.toBe('');
  });
});

/** shortlink_follows_total of gRPC ResolveShortLink with `outcome`. */
async function followCount(outcome: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric('shortlink_follows_total')?.get();
  const sample = metric?.values.find(
    ({ labels }) => labels.gateway === 'grpc' && labels.outcome === outcome,
  );
  return sample?.value ?? 0;
}

describe('metrics', () => {
  it('counts ResolveShortLink as follows by outcome: redirect, not_found, gone', async () => {
    const outcomes = ['redirect', 'not_found', 'gone'];
    const before = await Promise.all(outcomes.map(followCount));
    const link = await createAt('2026-07-02T00:00:00.000Z', { alias: 'counted' });
    await grpc.resolve({ domain: f.domain, alias: 'counted' });
    await grpc.resolve({ domain: f.domain, alias: 'no-such-link' });
    await grpc.disable(
      { organizationKey: f.organizationKey, id: link.id, reason: 'metrics' },
      f.token,
    );
    await grpc.resolve({ domain: f.domain, alias: 'counted' });
    const after = await Promise.all(outcomes.map(followCount));
    expect(after.map((count, i) => count - before[i]!)).toEqual([1, 1, 1]);
  });

  it('counts each call under its operation, with its code', async () => {
    const operations = ['get', 'list', 'disable', 'enable'] as const;
    const counts = () =>
      Promise.all(
        operations.flatMap((operation) => [
          requestCount(operation, '0'),
          requestCount(operation, '24'),
        ]),
      );
    const before = await counts();
    const link = await createAt('2026-07-01T00:00:00.000Z');
    const key = { organizationKey: f.organizationKey };
    await grpc.get({ ...key, id: link.id }, f.token);
    await grpc.list(key, f.token);
    await grpc.disable({ ...key, id: link.id, reason: 'metrics' }, f.token);
    await grpc.disable({ ...key, alias: 'no-such-link', reason: 'metrics' }, f.token);
    await grpc.enable({ ...key, id: link.id }, f.token);
    await grpc.enable({ ...key, alias: 'no-such-link' }, f.token);
    const after = await counts();
    // get 0/24, list 0/24, disable 0/24, enable 0/24
    expect(after.map((count, i) => count - before[i]!)).toEqual([1, 0, 1, 0, 1, 1, 1, 1]);
  });
});
