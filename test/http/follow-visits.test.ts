import { visitDayOf } from '../../core/ports/visit-store';
import type { CoreFixture } from '../support/core-fixture';
import { startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

/**
 * What following counts as a visit (REST): a GET answered with a redirect, as a human or a likely
 * bot by its User-Agent; never a HEAD, a 404, a 410 or a 429. Counts reach the store at a flush
 * only: the follow itself writes nothing.
 */

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const CRAWLER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore()));
afterEach(() => http.close());

const follow = (alias: string, headers: Record<string, string>, method = 'GET') =>
  http.request({ method, path: `/${alias}`, headers: { host: 'acme.link', ...headers } });

async function linkId(alias: string, fields: Record<string, unknown> = {}): Promise<number> {
  const created = await f.caller().links.create(f.body({ alias, ...fields }) as never);
  return created.id;
}

it('counts each redirecting GET once, humans and bots apart, and only at a flush', async () => {
  const id = await linkId('counted');
  expect((await follow('counted', { 'user-agent': BROWSER })).status).toBe(301);
  expect((await follow('counted', { 'user-agent': BROWSER })).status).toBe(301);
  expect((await follow('counted', { 'user-agent': CRAWLER })).status).toBe(301);
  // No User-Agent at all: a script, counted with the bots.
  expect((await follow('counted', {})).status).toBe(301);
  expect(await f.store.visits.totals([id])).toEqual(new Map([[id, { humans: 0, bots: 0 }]]));

  await f.core.deps.visitCounter.flush();
  const today = visitDayOf(new Date());
  expect(await f.store.visits.read(id, today - 1, today)).toEqual([
    { linkId: id, day: today, humans: 2, bots: 2 },
  ]);
  expect(await f.store.visits.totals([id])).toEqual(new Map([[id, { humans: 2, bots: 2 }]]));
});

it('counts no HEAD, no unknown alias, no disabled or used-up link', async () => {
  const id = await linkId('limited', { max_visits: 1 });
  const disabled = await linkId('disabled');
  await f
    .caller()
    .links.disable({ organization_key: f.organizationKey, alias: 'disabled', reason: 'spam' });
  expect((await follow('limited', { 'user-agent': BROWSER }, 'HEAD')).status).toBe(301);
  expect((await follow('limited', { 'user-agent': BROWSER })).status).toBe(301);
  expect((await follow('limited', { 'user-agent': BROWSER })).status).toBe(410);
  expect((await follow('disabled', { 'user-agent': BROWSER })).status).toBe(410);
  expect((await follow('nothing-here', { 'user-agent': BROWSER })).status).toBe(404);
  await f.core.deps.visitCounter.flush();
  expect(await f.store.visits.totals([id, disabled])).toEqual(
    new Map([
      [id, { humans: 1, bots: 0 }],
      [disabled, { humans: 0, bots: 0 }],
    ]),
  );
});
