import { UndecodableBody } from '../../../core';
import { createTestCore } from '../../support/core-fixture';
import { expectFailure, failureOf } from '../../support/failures';
import { itRefuses, itRefusesWhenAbsent, notText } from '../links/refused-fields';

describe('links.create: the body stage (codes 20, 21, 22)', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an array', [{ url: 'https://example.com' }]],
    ['a string', '{"url":"https://example.com"}'],
    ['a number', 42],
    ['a boolean', true],
  ])('refuses %s as the body with code 20', async (_label, body) => {
    const f = await createTestCore();
    await expectFailure(f.caller().links.create(body as never), 'BODY_INVALID', [
      'The request body must be a JSON object.',
    ]);
  });

  it.each([
    ['BODY_INVALID', 20],
    ['CONTENT_TYPE_UNSUPPORTED', 21],
    ['BODY_TOO_LARGE', 22],
  ] as const)('reports an UndecodableBody %s as code %i with its message', async (reason, code) => {
    const f = await createTestCore();
    const error = await failureOf(
      f.caller().links.create(new UndecodableBody(reason, 'what the transport saw') as never),
    );
    expect(error.code).toBe(code);
    expect(error.reason).toBe(reason);
    expect(error.messages).toEqual(['what the transport saw']);
  });
});

describe('links.create: the organization stages (codes 4, 12, 13, 17)', () => {
  itRefusesWhenAbsent('organization_key', 'ORGANIZATION_KEY_MISSING');

  itRefuses(
    'organization_key',
    [
      ...notText('slorg_x'),
      ['an unknown key', 'slorg_doesnotexist'],
      ['a key with surrounding spaces', ' slorg_x '],
    ],
    'ORGANIZATION_KEY_INVALID',
    ['The organization key is invalid.'],
  );

  it('refuses a key that differs from a real one only in case with code 12', async () => {
    const f = await createTestCore();
    const key = f.organizationKey.toUpperCase();
    const error = await failureOf(
      f.caller().links.create(f.body({ organization_key: key }) as never),
    );
    expect(error.reason).toBe('ORGANIZATION_KEY_INVALID');
  });

  it('refuses an inactive organization with code 13', async () => {
    const f = await createTestCore();
    await expectFailure(
      f.caller().links.create(f.body({ organization_key: f.inactiveOrganizationKey }) as never),
      'ORGANIZATION_INACTIVE',
      ['The organization is inactive.'],
    );
  });

  it('refuses a user who is not a member with code 17', async () => {
    const f = await createTestCore();
    await expectFailure(
      f.caller({ authorization: `Bearer ${f.outsiderToken}` }).links.create(f.body() as never),
      'NOT_A_MEMBER',
      ['The access token does not belong to a member of this organization.'],
    );
  });

  it('accepts the organization again once it is reactivated', async () => {
    const f = await createTestCore();
    const body = f.body({ organization_key: f.inactiveOrganizationKey });
    expect((await failureOf(f.caller().links.create(body as never))).reason).toBe(
      'ORGANIZATION_INACTIVE',
    );
    await f.provisioner.setOrganizationActive('sleepy', true);
    expect((await f.caller().links.create(body as never)).domain).toBe('sleepy.link');
  });

  it('never echoes the organization key in a message', async () => {
    const f = await createTestCore();
    const key = 'slorg_thisisasecret';
    const error = await failureOf(
      f.caller().links.create(f.body({ organization_key: key }) as never),
    );
    expect(error.message).not.toContain(key);
  });
});

describe('links.create: the group stage (codes 5, 14)', () => {
  itRefusesWhenAbsent('url_group_id', 'URL_GROUP_ID_MISSING');

  itRefuses(
    'url_group_id',
    [
      ['an unknown id', '2'],
      ['an unknown integer', 7],
      ['a negative integer', -1],
      ['a float', 1.5],
      ['a float near an id', 42.0001],
      ['a boolean', true],
      ['an object', { id: '1' }],
      ['an array', ['1']],
      ['an id with spaces', ' 1'],
      ['an id of another organization only', '42x'],
      ['NaN-like text', 'NaN'],
      ['an unsafe integer', 2 ** 60],
    ],
    'URL_GROUP_NOT_FOUND',
    ['No URL group with this url_group_id exists in the organization.'],
  );

  it('takes a non-negative integer as its decimal string', async () => {
    const f = await createTestCore();
    expect((await f.caller().links.create(f.body({ url_group_id: 1 }) as never)).id).toBe(1);
    expect((await f.caller().links.create(f.body({ url_group_id: 42 }) as never)).id).toBe(2);
    expect((await f.caller().links.create(f.body({ url_group_id: '42' }) as never)).id).toBe(3);
    const stored = await f.store.links.findByAlias(
      f.domain,
      (await f.caller().links.create(f.body({ url_group_id: 42, alias: 'g42' }) as never)).alias,
    );
    expect(stored?.groupApiId).toBe('42');
  });

  it('looks the group up in the organization of the key only', async () => {
    const f = await createTestCore();
    // beta has no group "42"; acme has.
    const error = await failureOf(
      f
        .caller()
        .links.create(
          f.body({ organization_key: f.otherOrganizationKey, url_group_id: '42' }) as never,
        ),
    );
    expect(error.reason).toBe('URL_GROUP_NOT_FOUND');
  });
});
