import { createTestCore } from '../../support/core-fixture';
import { embeddedStores } from '../../support/embedded-stores';
import { expectFailure } from '../../support/failures';

const GROUP_NOT_FOUND = 'No URL group with this url_group_id exists in the organization.';

/**
 * A url_group_id no group can have (longer than any id provisioning takes) names no group: 14,
 * as any other unknown id, on every store. LMDB keys a group by (organization, api id) in at most
 * 1978 bytes, and a lookup with a longer key failed in the driver: 500, code 1.
 */
describe.each(embeddedStores('long-group-id'))(
  'url_group_id too long for any group (%s)',
  (_name, open) => {
    it.each([
      ['5000 ASCII characters', 'a'.repeat(5000)],
      ['1400 three-byte characters', '\u20ac'.repeat(1400)],
      ['256 characters', 'a'.repeat(256)],
    ])('answers 14 for %s', async (_what, groupId) => {
      const f = await createTestCore({ store: await open() });
      await expectFailure(
        f.caller().links.create(f.body({ url_group_id: groupId }) as never),
        'URL_GROUP_NOT_FOUND',
        [GROUP_NOT_FOUND],
      );
    });

    it('still finds a group whose id has the longest length provisioning takes', async () => {
      const f = await createTestCore({ store: await open() });
      const longest = 'g'.repeat(255);
      await f.provisioner.saveGroup({ organizationId: 'acme', apiId: longest });
      const link = await f.caller().links.create(f.body({ url_group_id: longest }) as never);
      expect(link.domain).toBe(f.domain);
    });
  },
);
