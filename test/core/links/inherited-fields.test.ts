import { createTestCore } from '../../support/core-fixture';

/** In-process callers can pass objects with prototypes; only own fields are the request. */
describe('inherited fields of an in-process body', () => {
  it('does not read url, alias or redirect_type from the prototype', async () => {
    const t = await createTestCore();
    const inherited = Object.create({
      url: 'https://inherited.example/',
      alias: 'inherited',
      redirect_type: 302,
    }) as Record<string, unknown>;
    const body = Object.assign(inherited, t.body());
    delete body.url;
    const failure: unknown = await t
      .caller()
      .links.create(body as never)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ reason: 'URL_MISSING' });
    expect(t.linkCount()).toBe(0);
  });
});
