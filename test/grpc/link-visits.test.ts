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
