import type { IdentityStore, ProvisioningStores } from '../../core';

/**
 * A Provisioner's stores for a test of the identity side alone (a fake identity store with no
 * link store behind it): every link domain holds no link.
 */
export function withNoLinks(identities: IdentityStore): ProvisioningStores {
  return { identities, links: { countByDomain: () => Promise.resolve(0) } };
}
