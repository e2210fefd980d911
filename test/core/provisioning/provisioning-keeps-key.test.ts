import {
  createCore,
  createMemoryStore,
  provisionDemo,
  Provisioner,
  systemClock,
} from '../../../core';
import { failureOf } from '../../support/failures';

/**
 * `saveOrganization` is an upsert: a field left out keeps what the store holds. The secret key
 * did not: re-saving an organization without one (the core README's example, run at every start
 * on a durable store) generated a new key in its place, and every caller holding the old one got
 * code 12.
 */
describe('saveOrganization without a secret key', () => {
  async function setUp() {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    const first = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
    await provisioner.saveUser({ id: 'svc', organizations: ['acme'] });
    const { token } = await provisioner.issueToken('svc');
    const caller = createCore({ store }).createCaller({ authorization: `Bearer ${token}` });
    const create = (key: string) =>
      caller.links.create({ organization_key: key, url_group_id: '1', url: 'https://e.com/' });
    return { provisioner, key: first.secretKey as string, create };
  }

  it('generates one for a new organization', async () => {
    const { key, create } = await setUp();
    expect(key).toMatch(/^slorg_/);
    await expect(create(key)).resolves.toMatchObject({ domain: 'acme.link' });
  });

  it('keeps the stored key of an existing one, and returns none', async () => {
    const { provisioner, key, create } = await setUp();
    const again = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    expect(again.secretKey).toBeUndefined();
    await expect(create(key)).resolves.toMatchObject({ domain: 'acme.link' });
  });

  it('still replaces the key when one is given', async () => {
    const { provisioner, key, create } = await setUp();
    await provisioner.saveOrganization({
      id: 'acme',
      domain: 'acme.link',
      secretKey: 'chosen-organization-key-0001',
    });
    expect((await failureOf(create(key))).reason).toBe('ORGANIZATION_KEY_INVALID');
    await expect(create('chosen-organization-key-0001')).resolves.toMatchObject({
      domain: 'acme.link',
    });
  });

  it('leaves the demo a key to print when it is provisioned again', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    await provisionDemo(provisioner, 8080);
    const demo = await provisionDemo(provisioner, 8080);
    const caller = createCore({ store }).createCaller({ authorization: `Bearer ${demo.token}` });
    await expect(
      caller.links.create({
        organization_key: demo.organizationKey,
        url_group_id: '1',
        url: 'https://e.com/',
      }),
    ).resolves.toMatchObject({ domain: 'localhost:8080' });
  });
});
