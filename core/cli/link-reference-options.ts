import { domainCandidates, findLinkUnderHost, type DomainCandidate } from '../links/link-host';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import { normalizeLinkDomain } from '../provisioning/link-domain';
import { NotFoundProvisioningError } from '../provisioning/provisioning-error';
import { usageError, type Options } from './admin-command-line';

/**
 * The link a command names: by id, or by its link domain (as written, and the stored domains it
 * may name) and alias.
 */
type LinkOption =
  { id: number } | { host: string; domains: readonly DomainCandidate[]; alias: string };

const stringOption = (options: Options, name: string): string | undefined => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * `--id N`, or `--domain HOST --alias ALIAS`: exactly one of the two ways. The domain is read as
 * a follow reads its Host (links/link-host.ts domainCandidates: case, trailing dot, IDN, a
 * scheme's default port), so `ACME.link.` and, for an https domain, `acme.link:443` name what
 * `acme.link` does: the CLI finds the link a follow of that Host finds. The alias is
 * case-sensitive and taken as written.
 */
export function readLinkOption(options: Options): LinkOption {
  const id = stringOption(options, 'id');
  const domain = stringOption(options, 'domain');
  const alias = stringOption(options, 'alias');
  if (id !== undefined && (domain !== undefined || alias !== undefined)) {
    throw usageError('give either --id or --domain with --alias, not both');
  }
  if (id !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(id) || !Number.isSafeInteger(Number(id))) {
      throw usageError('--id must be a link id: a positive whole number');
    }
    return { id: Number(id) };
  }
  if (domain === undefined || alias === undefined) {
    throw usageError('name the link: --id N, or --domain HOST with --alias ALIAS');
  }
  const host = domain.trim();
  // Refuses what no link domain is (a scheme, a path, an empty label) before reading it as a Host.
  const normalized = normalizeLinkDomain(host);
  const domains = normalized === null ? null : domainCandidates(normalized);
  if (domains === null) throw usageError('--domain must be a link domain (host or host:port)');
  if (alias === '') throw usageError('--alias must not be empty');
  return { host, domains, alias };
}

/** How a refusal names the link it did not find. */
const describeLinkOption = (link: LinkOption): string =>
  'id' in link ? `id ${link.id}` : `${link.host}/${link.alias}`;

/** The link named, or a refusal (exit status 2) saying which one is not there. */
export async function findNamedLink(links: LinkStore, named: LinkOption): Promise<LinkRecord> {
  const link =
    'id' in named
      ? await links.findById(named.id)
      : await findLinkUnderHost(links, named.domains, named.alias);
  if (!link) throw new NotFoundProvisioningError(`no link ${describeLinkOption(named)}`);
  return link;
}
