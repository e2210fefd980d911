import { ShortlinkError, type ErrorReason, type UrlGuard } from '../../../core';
import { createTestCore, TEST_CLIENT_ADDRESS, type CoreFixture } from '../../support/core-fixture';

async function failureReason(promise: Promise<unknown>): Promise<ErrorReason> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ShortlinkError) return error.reason;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('reading and governing links (links.get, list, disable, enable)', () => {
  let f: CoreFixture;

  beforeEach(async () => {
    f = await createTestCore();
  });

  it('gets a link by id and by alias with its state and times', async () => {
    const created = await f.caller().links.create(f.body({ alias: 'promo' }) as never);
    const byId = await f
      .caller()
      .links.get({ organization_key: f.organizationKey, id: created.id });
    const byAlias = await f
      .caller()
      .links.get({ organization_key: f.organizationKey, alias: 'promo' });
    expect(byId).toEqual(byAlias);
    expect(byId).toMatchObject({ ...created, state: 'active', url_group_id: '1' });
    expect(Date.parse(byId.created_at)).not.toBeNaN();
    expect(byId).not.toHaveProperty('disabled_reason');
  });

  it('answers 24 for a link of another organization, as for one that does not exist', async () => {
    const other = await f
      .caller()
      .links.create(f.body({ organization_key: f.otherOrganizationKey }) as never);
    const get = (id: number) => f.caller().links.get({ organization_key: f.organizationKey, id });
    expect(await failureReason(get(other.id))).toBe('NOT_FOUND');
    expect(await failureReason(get(999))).toBe('NOT_FOUND');
    const disable = f.caller().links.disable({
      organization_key: f.organizationKey,
      id: other.id,
      reason: 'not ours',
    });
    expect(await failureReason(disable)).toBe('NOT_FOUND');
    const stillActive = await f.caller().links.get({
      organization_key: f.otherOrganizationKey,
      id: other.id,
    });
    expect(stillActive.state).toBe('active');
  });

  it('runs the create stages first: token, organization, membership', async () => {
    const get = { organization_key: f.organizationKey, id: 1 };
    expect(await failureReason(f.core.createCaller({}).links.get(get))).toBe('TOKEN_MISSING');
    const outsider = f.core.createCaller({
      authorization: `Bearer ${f.outsiderToken}`,
      clientAddress: TEST_CLIENT_ADDRESS,
    });
    expect(await failureReason(outsider.links.get(get))).toBe('NOT_A_MEMBER');
    expect(
      await failureReason(
        f.caller().links.get({ organization_key: f.inactiveOrganizationKey, id: 1 }),
      ),
    ).toBe('ORGANIZATION_INACTIVE');
    expect(await failureReason(f.caller().links.get({ id: 1 }))).toBe('ORGANIZATION_KEY_MISSING');
  });

  it('refuses malformed arguments with 29, every problem reported', async () => {
    const key = { organization_key: f.organizationKey };
    const failure = await f
      .caller()
      .links.disable({ ...key, reason: ' ' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ShortlinkError);
    expect((failure as ShortlinkError).reason).toBe('ARGUMENT_INVALID');
    expect((failure as ShortlinkError).messages).toHaveLength(2);
    expect(await failureReason(f.caller().links.get({ ...key, id: 1, alias: 'x' }))).toBe(
      'ARGUMENT_INVALID',
    );
    expect(await failureReason(f.caller().links.get({ ...key, id: -1 }))).toBe('ARGUMENT_INVALID');
    expect(
      await failureReason(f.caller().links.disable({ ...key, id: 1, reason: 'x'.repeat(501) })),
    ).toBe('ARGUMENT_INVALID');
    expect(await failureReason(f.caller().links.list({ ...key, page_size: 101 }))).toBe(
      'ARGUMENT_INVALID',
    );
    expect(await failureReason(f.caller().links.list({ ...key, page_size: 1.5 }))).toBe(
      'ARGUMENT_INVALID',
    );
    expect(await failureReason(f.caller().links.list({ ...key, page_token: 'bogus' }))).toBe(
      'ARGUMENT_INVALID',
    );
    expect(await failureReason(f.caller().links.list({ ...key, url_group_id: 'nope' }))).toBe(
      'URL_GROUP_NOT_FOUND',
    );
  });

  it('disables and enables: following answers 28 while disabled, the alias stays taken', async () => {
    const link = await f.caller().links.create(f.body({ alias: 'promo' }) as never);
    const follow = () => f.caller().links.resolve({ domain: f.domain, alias: 'promo' });
    await expect(follow()).resolves.toMatchObject({ url: link.url, state: 'active' });

    const disabled = await f.caller().links.disable({
      organization_key: f.organizationKey,
      alias: 'promo',
      reason: '  phishing report #12  ',
    });
    expect(disabled).toMatchObject({
      state: 'disabled',
      disabled_reason: 'phishing report #12',
      disabled_by: 'user:alice',
    });
    expect(await failureReason(follow())).toBe('LINK_DISABLED');
    // A second disable changes nothing: the first reason stands.
    const again = await f.caller().links.disable({
      organization_key: f.organizationKey,
      id: link.id,
      reason: 'other',
    });
    expect(again).toEqual(disabled);
    expect(await failureReason(f.caller().links.create(f.body({ alias: 'promo' }) as never))).toBe(
      'ALIAS_TAKEN',
    );

    const enabled = await f
      .caller()
      .links.enable({ organization_key: f.organizationKey, id: link.id });
    expect(enabled.state).toBe('active');
    expect(enabled).not.toHaveProperty('disabled_reason');
    await expect(follow()).resolves.toMatchObject({ id: link.id });
  });

  it('does not follow a link of an inactive organization, nor one whose target is now refused', async () => {
    const link = await f
      .caller()
      .links.create(f.body({ alias: 'x1', url: 'https://later-bad.example/p' }) as never);
    await f.provisioner.setOrganizationActive('acme', false);
    expect(
      await failureReason(f.caller().links.resolve({ domain: f.domain, alias: link.alias })),
    ).toBe('LINK_DISABLED');
    await f.provisioner.setOrganizationActive('acme', true);
    await expect(
      f.caller().links.resolve({ domain: f.domain, alias: link.alias }),
    ).resolves.toBeTruthy();

    let blocked = false;
    const followGuard: UrlGuard = {
      check: (url) =>
        Promise.resolve(
          blocked && url.hostname === 'later-bad.example'
            ? { blocked: true, reason: 'the host is on the blocklist' }
            : { blocked: false },
        ),
    };
    const g = await createTestCore({ followGuard });
    const made = await g
      .caller()
      .links.create(g.body({ alias: 'x2', url: 'https://later-bad.example/p' }) as never);
    await expect(
      g.caller().links.resolve({ domain: g.domain, alias: made.alias }),
    ).resolves.toBeTruthy();
    blocked = true;
    expect(
      await failureReason(g.caller().links.resolve({ domain: g.domain, alias: made.alias })),
    ).toBe('LINK_DISABLED');
  });

  it('lists newest first, by group or organization, in pages that miss and repeat nothing under concurrent creates', async () => {
    const made: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const group = i % 2 === 0 ? '1' : '42';
      made.push((await f.caller().links.create(f.body({ url_group_id: group }) as never)).id);
    }
    await f.caller().links.create(f.body({ organization_key: f.otherOrganizationKey }) as never);
    const seen: number[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await f.caller().links.list({
        organization_key: f.organizationKey,
        page_size: 3,
        page_token: token,
      });
      seen.push(...page.links.map((link) => link.id));
      token = page.next_page_token;
      pages += 1;
      // Created while paging: newer than the listing, never in a later page.
      await f.caller().links.create(f.body() as never);
    } while (token !== '');
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());

    const group = await f
      .caller()
      .links.list({ organization_key: f.organizationKey, url_group_id: 42 });
    expect(group.links.map((link) => link.url_group_id)).toEqual(['42', '42', '42']);
    expect(group.next_page_token).toBe('');
    // A token is bound to its listing.
    const first = await f
      .caller()
      .links.list({ organization_key: f.organizationKey, page_size: 1 });
    expect(
      await failureReason(
        f.caller().links.list({
          organization_key: f.organizationKey,
          url_group_id: '42',
          page_token: first.next_page_token,
        }),
      ),
    ).toBe('ARGUMENT_INVALID');
  });

  it('pages by creation time and id; a token of the listing by id (an earlier version) goes on after its link', async () => {
    const made: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      made.push((await f.caller().links.create(f.body() as never)).id);
    }
    const list = (page_token: string) =>
      f.caller().links.list({ organization_key: f.organizationKey, page_size: 2, page_token });
    const first = await list('');
    const token = Buffer.from(first.next_page_token, 'base64url').toString();
    const last = first.links.at(-1)!;
    expect(token).toMatch(new RegExp(`^2\\.${Date.parse(last.created_at)}\\.${last.id}\\.`));
    const next = await list(first.next_page_token);
    // The same listing's token of the earlier form: `1.<id>.<scope>`.
    const scope = token.split('.')[3];
    const older = Buffer.from(`1.${last.id}.${scope}`).toString('base64url');
    await expect(list(older)).resolves.toEqual(next);
    expect(next.links.map((link) => link.id)).toEqual([made[2], made[1]]);
    // One of another listing, or naming no link of this organization: refused (400).
    for (const forged of [`1.999999.${scope}`, `2.0.1.other`, `2.x.1.${scope}`]) {
      const refused = list(Buffer.from(forged).toString('base64url'));
      expect(await failureReason(refused)).toBe('ARGUMENT_INVALID');
    }
  });

  it('tells linkEvents of each real change', async () => {
    const events: string[] = [];
    const g = await createTestCore({
      linkEvents: { stateChanged: (change) => void events.push(change) },
    });
    const link = await g.caller().links.create(g.body() as never);
    const ref = { organization_key: g.organizationKey, id: link.id };
    await g.caller().links.disable({ ...ref, reason: 'r' });
    await g.caller().links.disable({ ...ref, reason: 'r' });
    await g.caller().links.enable(ref);
    await g.caller().links.enable(ref);
    expect(events).toEqual(['disabled', 'enabled']);
  });
});
