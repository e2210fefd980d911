import {
  GetShortLinkVisitsRequest,
  ResolveShortLinkRequest,
  type GetShortLinkVisitsResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { status } from '@grpc/grpc-js';
import { expectFailure } from './error-details';
import type { CoreFixture } from '../support/core-fixture';
import { outcomeOf } from '../support/grpc-call';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';
import { bearer } from '../support/grpc-metadata';

/** ResolveShortLink's count_visit and GetShortLinkVisits through a real server on the core. */
let f: CoreFixture;
let grpc: GrpcFixture;

beforeEach(async () => ({ f, grpc } = await startGrpcOnTestCore()));
afterEach(() => grpc.close());

function visits(request: Partial<GetShortLinkVisitsRequest>) {
  return outcomeOf<GetShortLinkVisitsResponse>((callback) =>
    grpc.client.getShortLinkVisits(
      GetShortLinkVisitsRequest.fromPartial({ organizationKey: f.organizationKey, ...request }),
      bearer(f.token),
      callback,
    ),
  );
}

const resolve = (fields: Partial<ResolveShortLinkRequest>) =>
  grpc.resolve(ResolveShortLinkRequest.fromPartial({ domain: f.domain, alias: 'g', ...fields }));

it('counts a resolve whose caller redirected (count_visit), by its user_agent; a lookup counts nothing', async () => {
  const link = await f.caller().links.create(f.body({ alias: 'g' }) as never);
  expect((await resolve({})).error).toBeUndefined();
  expect(
    (await resolve({ countVisit: true, userAgent: 'Mozilla/5.0 Firefox/128.0' })).error,
  ).toBeUndefined();
  expect((await resolve({ countVisit: true, userAgent: 'curl/8.5.0' })).error).toBeUndefined();
  await f.core.deps.visitCounter.flush();

  const { response, error } = await visits({ alias: 'g', days: 2 });
  expect(error).toBeUndefined();
  const today = new Date().toISOString().slice(0, 10);
  expect(response).toEqual({
    linkId: link.id,
    totals: { visits: 2, humans: 1, bots: 1 },
    days: [
      { day: expect.any(String) as string, counts: { visits: 0, humans: 0, bots: 0 } },
      { day: today, counts: { visits: 2, humans: 1, bots: 1 } },
    ],
  });
});

it('answers NOT_FOUND (24) for a link of another organization', async () => {
  const theirs = await f
    .caller()
    .links.create(f.body({ organization_key: f.otherOrganizationKey, alias: 't' }) as never);
  expectFailure(await visits({ id: theirs.id }), 'NOT_FOUND', status.NOT_FOUND);
});

it('carries the stored visit total in GetShortLink and ListShortLinks only (visit_count)', async () => {
  const counted = await f.caller().links.create(f.body({ alias: 'g' }) as never);
  const quiet = await f.caller().links.create(f.body({ alias: 'q' }) as never);
  for (const userAgent of [
    'Mozilla/5.0 Firefox/128.0',
    'curl/8.5.0',
    'Mozilla/5.0 Firefox/128.0',
  ]) {
    expect((await resolve({ countVisit: true, userAgent })).error).toBeUndefined();
  }
  await f.core.deps.visitCounter.flush();

  const got = await grpc.get({ organizationKey: f.organizationKey, id: counted.id }, f.token);
  expect(got.error).toBeUndefined();
  expect(got.response?.shortLink).toMatchObject({ id: counted.id, visitCount: 3 });
  expect(got.response?.shortLink?.maxVisits).toBeUndefined();
  const listed = await grpc.list({ organizationKey: f.organizationKey }, f.token);
  expect(listed.response?.links.map((link) => [link.id, link.visitCount])).toEqual([
    [quiet.id, 0],
    [counted.id, 3],
  ]);
  // Any other answer leaves it unset: not 0, which would claim a count.
  const resolved = await resolve({});
  expect(resolved.response?.shortLink).toBeDefined();
  expect(resolved.response?.shortLink?.visitCount).toBeUndefined();
  const disabled = await grpc.disable(
    { organizationKey: f.organizationKey, id: counted.id, reason: 'spam' },
    f.token,
  );
  expect(disabled.response?.shortLink?.visitCount).toBeUndefined();
});
