import { generateOrganizationKey } from '../auth/secrets';
import { LinkDomainTakenError, OrganizationExistsError } from '../errors/shortlink-error';
import type {
  IdentityStore,
  LinkScheme,
  Organization,
  OrganizationChange,
} from '../ports/identity-store';
import { refuseDomainMoveWithLinks, type ProvisioningStores } from './domain-links';
import { isLinkScheme, normalizeLinkDomain, withoutDefaultPort } from './link-domain';
import { ProvisioningError } from './provisioning-error';
import { activeFlag, LINK_DOMAIN_FORM, requireId, secretHash } from './provisioning-input';
import { noOrganization } from './required-records';

export interface NewOrganization {
  id: string;
  name?: string;
  domain: string;
  scheme?: LinkScheme;
  active?: boolean;
  /**
   * The secret key to use. Omitted: a new organization gets a generated one (returned once), an
   * existing one keeps its key (`rotateOrganizationKey` replaces it).
   */
  secretKey?: string;
  /** Alternatively the SHA-256 of a key issued earlier (seed files written by the CLI). */
  secretKeyHash?: string;
}

export type StoredOrganization = { organization: Organization; secretKey?: string };

/**
 * A new organization; refuses an id that exists (the existing one is left as it is). The store
 * checks the id in the same atomic write, so of two concurrent creates of one id one wins and
 * the other writes nothing (its generated key is never printed).
 */
export async function createOrganization(
  stores: ProvisioningStores,
  input: NewOrganization,
): Promise<StoredOrganization> {
  try {
    return await storeOrganization(stores, input, true);
  } catch (error) {
    if (!(error instanceof OrganizationExistsError)) throw error;
    throw new ProvisioningError(
      `organization "${error.id}" already exists; it is left as it is (its key and link domain unchanged)`,
      { cause: error },
    );
  }
}

/** An organization written whether it exists or not (an upsert: see Provisioner). */
export function saveOrganization(
  stores: ProvisioningStores,
  input: NewOrganization,
): Promise<StoredOrganization> {
  return storeOrganization(stores, input, false);
}

async function storeOrganization(
  stores: ProvisioningStores,
  input: NewOrganization,
  onlyNew: boolean,
): Promise<StoredOrganization> {
  const { identities } = stores;
  const id = requireId(input.id, 'organization');
  const written = typeof input.domain === 'string' ? normalizeLinkDomain(input.domain) : null;
  if (!written) {
    throw new ProvisioningError(
      `invalid link domain "${String(input.domain)}": ${LINK_DOMAIN_FORM}`,
    );
  }
  // An upsert keeps what a field left out holds now (a seed file applied at every start must not
  // reactivate an organization the CLI deactivated); defaults are for a new organization.
  const stored = onlyNew ? null : await identities.findOrganizationById(id);
  const scheme = input.scheme ?? stored?.scheme ?? 'https';
  // Checked here, not only by the types: an embedder in plain JS reaches this too, and a link
  // domain's scheme is written into every short URL (`javascript://...` was).
  if (!isLinkScheme(scheme)) {
    throw new ProvisioningError(
      `organization "${id}": scheme must be "http" or "https", not ${JSON.stringify(scheme)}`,
    );
  }
  // `acme.link:443` for https is `acme.link`: a browser following `https://acme.link:443/x`
  // sends `Host: acme.link`, which found no link of a domain stored with the port.
  const domain = withoutDefaultPort(written, scheme);
  const active = activeFlag(id, input.active ?? stored?.active ?? true);
  // A key left out keeps the stored one, as the other fields do: generating one here replaced
  // the key of an existing organization at every re-save (an embedder's start-up), and every
  // caller holding the old key got ORGANIZATION_KEY_INVALID. A new organization gets a generated
  // key.
  const keptKey: { hash: string; generated?: string } | undefined =
    stored && input.secretKey === undefined && input.secretKeyHash === undefined
      ? { hash: stored.keyHash }
      : undefined;
  const { hash: keyHash, generated } =
    keptKey ??
    secretHash(
      `the secret key of organization "${id}"`,
      input.secretKey,
      input.secretKeyHash,
      generateOrganizationKey,
    );
  const organization: Organization = {
    id,
    name: input.name ?? stored?.name ?? input.id,
    domain,
    scheme,
    active,
    keyHash,
  };
  const holder = await identities.findOrganizationByKeyHash(keyHash);
  if (holder && holder.id !== organization.id) {
    throw new ProvisioningError(
      `organization "${organization.id}": its secret key is already in use`,
    );
  }
  await refuseDomainMoveWithLinks(stores, id, stored?.domain, domain);
  try {
    await (onlyNew
      ? identities.insertOrganization(organization)
      : identities.saveOrganization(organization));
  } catch (error) {
    if (error instanceof LinkDomainTakenError) {
      throw new ProvisioningError(
        `organization "${organization.id}": the link domain "${domain}" already belongs to another organization`,
        { cause: error },
      );
    }
    throw error;
  }
  return generated === undefined ? { organization } : { organization, secretKey: generated };
}

/**
 * An existing organization with `change` applied, in one atomic write of the store: a change
 * another command makes at the same moment (a rotation beside a deactivation) is kept.
 */
export async function changeOrganization(
  identities: IdentityStore,
  id: string,
  change: OrganizationChange,
): Promise<Organization> {
  const updated = await identities.updateOrganization(id, change);
  if (!updated) throw noOrganization(id);
  return updated;
}
