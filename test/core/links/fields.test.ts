import { reservedAliasSet } from '../../../core';
import { createTestCore } from '../../support/core-fixture';
import { expectFailure, failureOf } from '../../support/failures';
import { ABSENT, bodyWith, itRefuses, itRefusesWhenAbsent, notText } from './refused-fields';

const URL_INVALID =
  'url must be an absolute http:// or https:// URL with a host and no spaces or control characters.';
const ALIAS_INVALID = 'alias may contain only letters, digits, "_" and "-".';
const REDIRECT_INVALID = 'redirect_type must be one of 301, 302, 303, 307, 308.';

describe('links.create: url (codes 6, 7)', () => {
  itRefusesWhenAbsent('url', 'URL_MISSING', [
    ['only spaces', '   '],
    ['only whitespace of several kinds', ' \t\n\r\u00a0\u2003\ufeff'],
  ]);

  itRefuses(
    'url',
    [
      ['an ftp URL', 'ftp://example.com/file'],
      ['a mailto URL', 'mailto:someone@example.com'],
      ['a javascript URL', 'javascript:alert(1)'],
      ['no scheme', 'example.com/path'],
      ['a scheme-relative URL', '//example.com/path'],
      ['a single slash', 'http:/example.com'],
      ['no slashes', 'http:example.com'],
      ['a space inside the host', 'http://exa mple.com/'],
      ['a space inside the path', 'https://example.com/a b'],
      ['a tab inside', 'https://example.com/a\tb'],
      ['a newline inside', 'https://example.com/a\nb'],
      ['a NUL inside', 'https://example.com/a\u0000b'],
      ['a C0 control at the end', 'https://example.com/a\u0001'],
      ['DEL inside', 'https://example.com/a\u007fb'],
      ['a C1 control inside', 'https://example.com/a\u0085b'],
      ['a no-break space inside', 'https://example.com/a\u00a0b'],
      ['a line separator inside', 'https://example.com/a\u2028b'],
      ['no host', 'http://'],
      ['no host but a path', 'http:///path'],
      ['a third slash before the host', 'http:////example.com/'],
      ['a backslash before the host', 'http://\\example.com/'],
      ['an unparseable port', 'http://example.com:99999/'],
      ['an unclosed IPv6 literal', 'http://[::1/'],
      ['a forbidden host character', 'http://exa<mple.com/'],
      ['an httpx scheme', 'httpx://example.com/'],
      ...notText('https://example.com'),
    ],
    'URL_INVALID',
    [URL_INVALID],
  );

  it('allows 2048 characters after trimming and refuses 2049', async () => {
    const f = await createTestCore();
    const prefix = 'https://example.com/';
    const exact = prefix + 'a'.repeat(2048 - prefix.length);
    const link = await f.caller().links.create(f.body({ url: `  ${exact}\n` }) as never);
    expect(link.url).toBe(exact);

    await expectFailure(
      f.caller().links.create(f.body({ url: `${exact}b` }) as never),
      'URL_INVALID',
      ['url must be at most 2048 characters.'],
    );
  });

  it('accepts the scheme in any case and returns the URL as submitted, trimmed', async () => {
    const f = await createTestCore();
    for (const url of [
      'HTTP://Example.COM/Path',
      'hTTpS://example.com',
      'https://example.com/ä?x=ü#frag',
    ]) {
      const link = await f.caller().links.create(f.body({ url: ` \t${url} \n` }) as never);
      expect(link.url).toBe(url);
    }
  });

  it('refuses with 7 a URL holding a bidirectional formatting character (RFC 3987, 4.1)', async () => {
    const f = await createTestCore();
    for (const url of [
      'https://example.com/\u202Efdp.exe', // shows as https://example.com/exe.pdf
      'https://example.com/a\u200Fb',
      'https://exa\u2066mple.com/',
    ]) {
      await expectFailure(f.caller().links.create(f.body({ url }) as never), 'URL_INVALID', [
        URL_INVALID,
      ]);
    }
    expect(f.linkCount()).toBe(0);
    // Right-to-left text itself, and joiners, are no formatting characters.
    for (const url of ['https://example.com/مرحبا', 'https://example.com/می\u200Cخواهم']) {
      expect((await f.caller().links.create(f.body({ url }) as never)).url).toBe(url);
    }
  });

  it('accepts hosts of every form the WHATWG parser takes', async () => {
    const f = await createTestCore();
    for (const url of [
      'http://localhost:8080/x',
      'http://127.0.0.1/',
      'http://[::1]:3000/',
      'https://bücher.example/',
      'https://user@example.com/',
    ]) {
      expect((await f.caller().links.create(f.body({ url }) as never)).url).toBe(url);
    }
  });
});

describe('links.create: alias (codes 8, 9, 15)', () => {
  it.each(ABSENT)(
    'generates 7 characters of [0-9A-Za-z] when the alias is %s',
    async (_label, alias) => {
      const f = await createTestCore();
      const link = await f.caller().links.create(bodyWith(f, 'alias', alias) as never);
      expect(link.alias).toMatch(/^[0-9A-Za-z]{7}$/);
      expect(link.short_url).toBe(`https://acme.link/${link.alias}`);
    },
  );

  itRefuses(
    'alias',
    [
      ['a space', 'my alias'],
      ['a slash', 'a/b'],
      ['a dot', 'a.b'],
      ['a question mark', 'a?'],
      ['a percent sign', '%41'],
      ['a non-ASCII letter', 'café'],
      ['an emoji', 'go😀'],
      ['a leading space', ' abc'],
      ...notText('x'),
    ],
    'ALIAS_INVALID',
    [ALIAS_INVALID],
  );

  it('accepts 64 characters and refuses 65 with code 9', async () => {
    const f = await createTestCore();
    const exact = 'a'.repeat(62) + '_-';
    expect((await f.caller().links.create(f.body({ alias: exact }) as never)).alias).toBe(exact);
    await expectFailure(
      f.caller().links.create(f.body({ alias: 'b'.repeat(65) }) as never),
      'ALIAS_TOO_LONG',
      ['alias must be at most 64 characters.'],
    );
  });

  it('accepts one character and every allowed character', async () => {
    const f = await createTestCore();
    for (const alias of ['x', '_', '-', '0', 'AZaz09_-']) {
      expect((await f.caller().links.create(f.body({ alias }) as never)).alias).toBe(alias);
    }
  });

  it('refuses an alias already taken on the same domain with code 15, keeping the first link', async () => {
    const f = await createTestCore();
    const first = await f
      .caller()
      .links.create(f.body({ alias: 'promo', url: 'https://one.example/' }) as never);
    await expectFailure(
      f.caller().links.create(f.body({ alias: 'promo', url: 'https://two.example/' }) as never),
      'ALIAS_TAKEN',
      ['This alias is already taken on this link domain.'],
    );
    expect((await f.store.links.findByAlias(f.domain, 'promo'))?.url).toBe('https://one.example/');
    expect(first.id).toBe(1);
    expect(f.linkCount()).toBe(1);
  });

  it('lets the same alias exist on another link domain', async () => {
    const f = await createTestCore();
    const a = await f.caller().links.create(f.body({ alias: 'promo' }) as never);
    const b = await f
      .caller()
      .links.create(f.body({ alias: 'promo', organization_key: f.otherOrganizationKey }) as never);
    expect(a.short_url).toBe('https://acme.link/promo');
    expect(b.short_url).toBe('http://beta.link/promo');
    expect(b.domain).toBe('beta.link');
  });

  it('treats aliases case-sensitively', async () => {
    const f = await createTestCore();
    const upper = await f
      .caller()
      .links.create(f.body({ alias: 'Abc', url: 'https://upper.example/' }) as never);
    const lower = await f
      .caller()
      .links.create(f.body({ alias: 'abc', url: 'https://lower.example/' }) as never);
    expect([upper.alias, lower.alias]).toEqual(['Abc', 'abc']);
    expect((await f.store.links.findByAlias(f.domain, 'Abc'))?.url).toBe('https://upper.example/');
    expect((await f.store.links.findByAlias(f.domain, 'abc'))?.url).toBe('https://lower.example/');
  });

  it.each(['api', 'API', 'Api', 'healthz', 'HEALTHZ', 'readyz', 'ReadyZ', 'metrics', 'METRICS'])(
    'refuses the reserved alias %s with code 15',
    async (alias) => {
      const f = await createTestCore();
      const error = await failureOf(f.caller().links.create(f.body({ alias }) as never));
      expect(error.reason).toBe('ALIAS_TAKEN');
      expect(f.linkCount()).toBe(0);
    },
  );

  it('refuses configured reserved aliases in any case', async () => {
    const f = await createTestCore({ reservedAliases: reservedAliasSet(['Blog', 'login']) });
    for (const alias of ['blog', 'BLOG', 'Login', 'api']) {
      expect((await failureOf(f.caller().links.create(f.body({ alias }) as never))).reason).toBe(
        'ALIAS_TAKEN',
      );
    }
    expect((await f.caller().links.create(f.body({ alias: 'blogs' }) as never)).alias).toBe(
      'blogs',
    );
  });
});

describe('links.create: redirect_type (code 16)', () => {
  it.each([
    ['omitted', undefined],
    ['null', null],
  ])('defaults to 301 when %s', async (_label, redirectType) => {
    const f = await createTestCore();
    const body = bodyWith(f, 'redirect_type', redirectType);
    expect((await f.caller().links.create(body as never)).redirect_type).toBe(301);
  });

  it.each([301, 302, 303, 307, 308])('accepts %i', async (redirectType) => {
    const f = await createTestCore();
    const link = await f.caller().links.create(f.body({ redirect_type: redirectType }) as never);
    expect(link.redirect_type).toBe(redirectType);
    expect((await f.store.links.findByAlias(f.domain, link.alias))?.redirectType).toBe(
      redirectType,
    );
  });

  itRefuses(
    'redirect_type',
    [
      ['the string "302"', '302'],
      ['300', 300],
      ['304', 304],
      ['200', 200],
      ['0', 0],
      ['301.5', 301.5],
      ['-301', -301],
      ['an empty string', ''],
      ['a boolean', true],
      ['an array', [301]],
      ['an object', { code: 301 }],
    ],
    'REDIRECT_TYPE_INVALID',
    [REDIRECT_INVALID],
  );
});

describe('links.create: every failing field is reported (multi-error)', () => {
  it('reports bad url, alias and redirect_type with the url code and three messages in field order', async () => {
    const f = await createTestCore();
    await expectFailure(
      f
        .caller()
        .links.create(
          f.body({ redirect_type: '302', alias: 'bad alias', url: 'ftp://x' }) as never,
        ),
      'URL_INVALID',
      [URL_INVALID, ALIAS_INVALID, REDIRECT_INVALID],
    );
  });

  it('reports a missing url with code 6 and the others after it', async () => {
    const f = await createTestCore();
    await expectFailure(
      f
        .caller()
        .links.create(f.body({ url: ' ', alias: 'x'.repeat(65), redirect_type: 300 }) as never),
      'URL_MISSING',
      ['url is required.', 'alias must be at most 64 characters.', REDIRECT_INVALID],
    );
  });

  it('takes the code of the first failing field when the url is fine', async () => {
    const f = await createTestCore();
    const aliasAndRedirect = await failureOf(
      f.caller().links.create(f.body({ alias: 'x'.repeat(65), redirect_type: 300 }) as never),
    );
    expect(aliasAndRedirect.reason).toBe('ALIAS_TOO_LONG');
    expect(aliasAndRedirect.messages).toHaveLength(2);
    const redirectOnly = await failureOf(
      f.caller().links.create(f.body({ redirect_type: 300 }) as never),
    );
    expect(redirectOnly.reason).toBe('REDIRECT_TYPE_INVALID');
    expect(redirectOnly.messages).toEqual([REDIRECT_INVALID]);
  });
});

describe('links.create: unknown and hostile fields', () => {
  it('ignores unknown fields', async () => {
    const f = await createTestCore();
    const link = await f
      .caller()
      .links.create(
        f.body({ id: 999, domain: 'evil.example', short_url: 'x', extra: { a: 1 } }) as never,
      );
    expect(link).toEqual({
      id: 1,
      short_url: `https://acme.link/${link.alias}`,
      url: 'https://example.com/some/long/path?q=1',
      domain: 'acme.link',
      alias: link.alias,
      redirect_type: 301,
    });
  });

  it('reads no field through __proto__ and pollutes no prototype', async () => {
    const f = await createTestCore();
    // What a JSON transport hands over: "__proto__" is an own key, not the prototype.
    const body = JSON.parse(
      JSON.stringify({ url_group_id: '1', url: 'https://example.com/' }).replace(
        '{',
        `{"__proto__":{"organization_key":${JSON.stringify(f.organizationKey)},"polluted":true},`,
      ),
    ) as Record<string, unknown>;
    expect(Object.hasOwn(body, '__proto__')).toBe(true);
    const error = await failureOf(f.caller().links.create(body as never));
    expect(error.reason).toBe('ORGANIZATION_KEY_MISSING');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).organization_key).toBeUndefined();
  });

  it('ignores "constructor" and "prototype" keys', async () => {
    const f = await createTestCore();
    const body = JSON.parse(
      `{"constructor":{"prototype":{"polluted":true}},"prototype":{"x":1},${JSON.stringify(f.body()).slice(1)}`,
    ) as Record<string, unknown>;
    const link = await f.caller().links.create(body as never);
    expect(link.id).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not let an inherited organization_key count as given', async () => {
    const f = await createTestCore();
    const inherited = Object.create({ organization_key: f.organizationKey }) as Record<
      string,
      unknown
    >;
    Object.assign(inherited, { url_group_id: '1', url: 'https://example.com/' });
    expect((await failureOf(f.caller().links.create(inherited as never))).reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
  });
});
