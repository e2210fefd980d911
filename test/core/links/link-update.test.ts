import {
  ShortlinkError,
  systemClock,
  type ErrorReason,
  type Store,
  type UrlGuard,
} from '../../../core';
import { operatorActing } from '../../../core/links/link-actor';
import { ADMIN_ACTOR, RESCAN_ACTOR } from '../../../core/ports/link-store';
import { createTestCore, TEST_CLIENT_ADDRESS, type CoreFixture } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';
import { failureOf } from '../../support/failures';

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

/** Refuses every URL to evil.example; records the organization each check was made for. */
function blockingGuard(seen: string[]): UrlGuard {
  return {
    check: (url, context) => {
      seen.push(context?.organization?.id ?? '-');
      return Promise.resolve(
        url.hostname === 'evil.example'
          ? { blocked: true, reason: 'the host is on the blocklist' }
          : { blocked: false },
      );
    },
  };
}

async function reasonOf(promise: Promise<unknown>): Promise<ErrorReason> {
  return (await failureOf(promise)).reason;
}

describe.each(embeddedStores('link-update'))('links.update on the %s store', (_name, open) => {
  let f: CoreFixture<Store>;
  let guarded: string[];

  beforeEach(async () => {
    guarded = [];
    f = await createTestCore({ store: await open(), urlGuard: blockingGuard(guarded) });
  });

  const create = (overrides: Record<string, unknown> = {}) =>
    f.caller().links.create(f.body(overrides) as never);
  const update = (body: Record<string, unknown>) =>
    f.caller().links.update({ organization_key: f.organizationKey, ...body });
  const get = (id: number) => f.caller().links.get({ organization_key: f.organizationKey, id });

  it('changes the fields given, by id or alias; the alias stays; following sees the new target', async () => {
    const link = await create({ alias: 'spring' });
    const expiresAt = inDays(30);
    const updated = await update({
      id: link.id,
      url: '  https://example.org/new  ',
      redirect_type: 302,
      expires_at: expiresAt,
      max_visits: 10,
    });
    expect(updated).toMatchObject({
      id: link.id,
      alias: 'spring',
      url: 'https://example.org/new',
      redirect_type: 302,
      expires_at: new Date(expiresAt).toISOString(),
      max_visits: 10,
      state: 'active',
    });
    await expect(get(link.id)).resolves.toEqual({ ...updated, visit_count: 0 }); // links.get adds the total
    await expect(
      f.caller().links.resolve({ domain: f.domain, alias: 'spring' }),
    ).resolves.toMatchObject({ url: 'https://example.org/new', redirect_type: 302 });

    // By alias; null removes the expiry and the limit; redirect_type null is the default, 301.
    const cleared = await update({
      alias: 'spring',
      expires_at: null,
      max_visits: null,
      redirect_type: null,
    });
    expect(cleared.redirect_type).toBe(301);
    expect(cleared).not.toHaveProperty('expires_at');
    expect(cleared).not.toHaveProperty('max_visits');
    expect(cleared.url).toBe('https://example.org/new');
  });

  it('a new url passes the whole URL guard, with the organization; refused: 18, nothing changed', async () => {
    const link = await create();
    guarded.length = 0;
    const failure = await failureOf(update({ id: link.id, url: 'https://evil.example/x' }));
    expect(failure.reason).toBe('URL_BLOCKED');
    expect(failure.messages).toEqual(['The URL was refused: the host is on the blocklist']);
    expect(guarded).toEqual(['acme']);
    expect((await get(link.id)).url).toBe(link.url);
    // No new url, no check.
    await update({ id: link.id, max_visits: 5 });
    expect(guarded).toEqual(['acme']);
  });

  it('refuses 29 for no field to change, a bad reference or a bad update_mask, every problem reported', async () => {
    const link = await create();
    const noField = await failureOf(update({ id: link.id }));
    expect(noField.reason).toBe('ARGUMENT_INVALID');
    expect(noField.messages).toEqual([
      'Give at least one field to change: url, redirect_type, expires_at, max_visits.',
    ]);
    // An undefined value is no field.
    expect(await reasonOf(update({ id: link.id, url: undefined }))).toBe('ARGUMENT_INVALID');
    const both = await failureOf(update({ id: link.id, alias: 'x' }));
    expect(both.messages).toEqual([
      'Give either id or alias (one of them).',
      'Give at least one field to change: url, redirect_type, expires_at, max_visits.',
    ]);
    expect(await reasonOf(update({ id: link.id, update_mask: [] }))).toBe('ARGUMENT_INVALID');
    expect(await reasonOf(update({ id: link.id, update_mask: ['alias'], alias: 'y' }))).toBe(
      'ARGUMENT_INVALID',
    );
    expect(await reasonOf(update({ id: link.id, update_mask: 'url' }))).toBe('ARGUMENT_INVALID');
    expect(await get(link.id)).toMatchObject({ url: link.url, alias: link.alias });
  });

  it('with update_mask, changes only the named fields; a named field left out is null', async () => {
    const link = await create({ redirect_type: 307 });
    await update({ id: link.id, expires_at: inDays(3), max_visits: 4 });
    const masked = await update({
      id: link.id,
      update_mask: ['max_visits', 'redirect_type'],
      url: 'https://example.org/ignored',
    });
    expect(masked.url).toBe(link.url);
    expect(masked.redirect_type).toBe(301);
    expect(masked).not.toHaveProperty('max_visits');
    expect(masked).toHaveProperty('expires_at');
    // A masked url left out is a missing url, as on a create.
    expect(await reasonOf(update({ id: link.id, update_mask: ['url'] }))).toBe('URL_MISSING');
  });

  it.each([
    [{ url: '' }, 'URL_MISSING'],
    [{ url: null }, 'URL_MISSING'],
    [{ url: 'ftp://example.com/' }, 'URL_INVALID'],
    [{ redirect_type: 300 }, 'REDIRECT_TYPE_INVALID'],
    [{ redirect_type: '302' }, 'REDIRECT_TYPE_INVALID'],
    [{ expires_at: '2020-01-01T00:00:00Z' }, 'EXPIRES_AT_INVALID'],
    [{ expires_at: '2099-01-01T00:00:00' }, 'EXPIRES_AT_INVALID'],
    [{ expires_at: inDays(11 * 366) }, 'EXPIRES_AT_INVALID'],
    [{ expires_at: 1893456000000 }, 'EXPIRES_AT_INVALID'],
    [{ max_visits: 0 }, 'MAX_VISITS_INVALID'],
    [{ max_visits: 1.5 }, 'MAX_VISITS_INVALID'],
    [{ max_visits: '5' }, 'MAX_VISITS_INVALID'],
    [{ max_visits: 1_000_000_001 }, 'MAX_VISITS_INVALID'],
  ] as const)('refuses %j with the create code %s, nothing changed', async (field, reason) => {
    const link = await create();
    expect(await reasonOf(update({ id: link.id, ...field }))).toBe(reason);
    expect((await get(link.id)).url).toBe(link.url);
  });

  it('reports every failing field, with the first one’s code, before looking the link up', async () => {
    const failure = await failureOf(
      update({ id: 999, url: 'nope', redirect_type: 1, expires_at: 'soon', max_visits: -1 }),
    );
    expect(failure.reason).toBe('URL_INVALID');
    expect(failure.messages).toHaveLength(4);
    const limits = await failureOf(update({ id: 999, expires_at: 'soon', max_visits: -1 }));
    expect(limits.reason).toBe('EXPIRES_AT_INVALID');
    expect(limits.messages).toHaveLength(2);
  });

  it('answers 24 for another organization’s link, as for one that does not exist', async () => {
    const other = await create({ organization_key: f.otherOrganizationKey });
    expect(await reasonOf(update({ id: other.id, max_visits: 3 }))).toBe('NOT_FOUND');
    expect(await reasonOf(update({ id: 12345, max_visits: 3 }))).toBe('NOT_FOUND');
    const still = await f
      .caller()
      .links.get({ organization_key: f.otherOrganizationKey, id: other.id });
    expect(still).not.toHaveProperty('max_visits');
  });

  it('runs the governing stages first: token, organization, membership', async () => {
    const link = await create();
    const body = { organization_key: f.organizationKey, id: link.id, max_visits: 2 };
    expect(await reasonOf(f.core.createCaller({}).links.update(body))).toBe('TOKEN_MISSING');
    const outsider = f.core.createCaller({
      authorization: `Bearer ${f.outsiderToken}`,
      clientAddress: TEST_CLIENT_ADDRESS,
    });
    expect(await reasonOf(outsider.links.update(body))).toBe('NOT_A_MEMBER');
  });

  it.each([ADMIN_ACTOR, RESCAN_ACTOR] as const)(
    'holds a link %s disabled: a member’s update and enable are 33 and change nothing',
    async (actor) => {
      const link = await create();
      const acting = operatorActing(systemClock, actor);
      await f.store.links.setDisabled(
        link.id,
        { reason: 'takedown 881', at: acting.at, by: acting.by },
        acting,
      );
      const ref = { organization_key: f.organizationKey, id: link.id };
      const held = await failureOf(update({ id: link.id, url: 'https://example.org/fixed' }));
      expect(held.reason).toBe('LINK_HELD');
      expect(held.code).toBe(33);
      // A held link is refused before its new url is checked: no reputation lookup spent.
      expect(guarded).toEqual(['acme']);
      expect(await reasonOf(f.caller().links.enable(ref))).toBe('LINK_HELD');
      expect(await get(link.id)).toMatchObject({
        url: link.url,
        state: 'disabled',
        disabled_by: actor,
        disabled_reason: 'takedown 881',
      });
    },
  );

  it('lets a member lift and edit a disable that they or another member made', async () => {
    await f.provisioner.saveUser({ id: 'carol', organizations: ['acme'] });
    const { token: carolToken } = await f.provisioner.issueToken('carol');
    const carol = f.caller({ authorization: `Bearer ${carolToken}` });
    const link = await create();
    const ref = { organization_key: f.organizationKey, id: link.id };
    await carol.links.disable({ ...ref, reason: 'paused' });
    const edited = await update({ id: link.id, url: 'https://example.org/while-paused' });
    expect(edited).toMatchObject({ state: 'disabled', url: 'https://example.org/while-paused' });
    await expect(f.caller().links.enable(ref)).resolves.toMatchObject({ state: 'active' });
  });
});

describe('links.update error shape', () => {
  it('is a ShortlinkError carrying the code', async () => {
    const f = await createTestCore();
    const failure = await failureOf(
      f.caller().links.update({ organization_key: f.organizationKey, id: 1 }),
    );
    expect(failure).toBeInstanceOf(ShortlinkError);
    expect(failure.code).toBe(29);
  });
});
