import { systemClock } from '../../core/adapters/system-clock';
import type { LinkRecord, NewLink } from '../../core/ports/link-store';
import type { Store } from '../../core/ports/store';
import { Provisioner } from '../../core/provisioning/provisioner';

/** An organization with link domain `<id>.link`, URL groups "1" and "2", member `<id>-user`. */
export async function provisionOrganization(store: Store, id: string): Promise<void> {
  const provisioner = new Provisioner(store, systemClock);
  await provisioner.createOrganization({ id, domain: `${id}.link` });
  await provisioner.createGroup({ organizationId: id, apiId: '1' });
  await provisioner.createGroup({ organizationId: id, apiId: '2' });
  await provisioner.createUser({ id: `${id}-user`, organizations: [id] });
}

/** A link of `organizationId` (provisioned as above) to `url`, inserted as the create does. */
export async function insertLink(
  store: Store,
  organizationId: string,
  alias: string,
  url: string,
  extra: Partial<NewLink> = {},
): Promise<LinkRecord> {
  const link = await store.links.insert({
    domain: `${organizationId}.link`,
    alias,
    url,
    redirectType: 301,
    scheme: 'https',
    organizationId,
    groupApiId: '1',
    userId: `${organizationId}-user`,
    createdAt: new Date('2026-01-02T03:04:05.000Z'),
    ...extra,
  });
  if (link === 'alias_taken') throw new Error(`alias ${alias} is taken`);
  return link;
}
