import { createTestCore } from '../support/core-fixture';
import { expectFailure, failureOf } from '../support/failures';

describe('links.resolve', () => {
  it('finds a link by domain and alias, without credentials', async () => {
    const f = await createTestCore();
    const created = await f
      .caller()
      .links.create(f.body({ alias: 'Promo', redirect_type: 307 }) as never);
    const found = await f.core
      .createCaller()
      .links.resolve({ domain: 'acme.link', alias: 'Promo' });
    expect(found).toEqual(created);
  });

  it('compares the domain case-insensitively and the alias exactly', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'Promo' }) as never);
    const resolver = f.core.createCaller();
    expect((await resolver.links.resolve({ domain: 'ACME.Link', alias: 'Promo' })).alias).toBe(
      'Promo',
    );
    for (const alias of ['promo', 'PROMO', 'Promo ']) {
      const error = await failureOf(resolver.links.resolve({ domain: 'acme.link', alias }));
      expect(error.code).toBe(24);
    }
  });

  it('answers an unknown alias, an unknown domain or a bad input with code 24', async () => {
    const f = await createTestCore();
    await f.caller().links.create(f.body({ alias: 'here' }) as never);
    const resolver = f.core.createCaller();
    for (const input of [
      { domain: 'acme.link', alias: 'nothere' },
      { domain: 'beta.link', alias: 'here' },
      { domain: '', alias: 'here' },
      { domain: 'acme.link', alias: '' },
      { domain: 'acme.link', alias: 'x'.repeat(65) },
      null,
      { domain: 5, alias: 'here' },
    ]) {
      await expectFailure(resolver.links.resolve(input as never), 24, [
        'No short link with this alias.',
      ]);
    }
  });
});
