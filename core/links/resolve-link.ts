import { z } from 'zod';
import type { CoreContext } from '../context';
import { expectedFailure } from '../errors/shortlink-error';
import { ProcedureBuilder } from '../procedure/procedure';
import { MAX_ALIAS_LENGTH } from './create-link-input';
import { MAX_HOST_HEADER_LENGTH } from './long-url';
import { followRefusal, linkGone } from './follow-policy';
import { toLinkView, type LinkView } from './link-view';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import type { LinkScheme } from '../ports/identity-store';
import { DEFAULT_PORTS, withoutTrailingDot } from '../url-guard/host';

const resolveLinkSchema = z.object({
  domain: z.string().min(1).max(MAX_HOST_HEADER_LENGTH),
  alias: z.string().min(1).max(MAX_ALIAS_LENGTH),
});

export type ResolveLinkRequest = z.input<typeof resolveLinkSchema>;

const notFound = () => expectedFailure('NOT_FOUND', 'No short link with this alias.');

/** A port a client may name or leave out for the link domain's own scheme. */
const DEFAULT_PORT_SCHEMES: Readonly<Record<string, LinkScheme>> = {
  [DEFAULT_PORTS.https]: 'https',
  [DEFAULT_PORTS.http]: 'http',
};

/**
 * `links.resolve`: the link behind (domain, alias), for following it. Public: following a link
 * needs no credentials. The domain is read as a Host: compared case-insensitively and without a
 * trailing dot on the name (`ACME.link.` is `acme.link`), and a domain and its scheme's default
 * port are one (`acme.link:443` is `acme.link` for an https domain), whichever of the two the
 * Host or the stored link names. The alias is compared exactly. A link found but not to be
 * followed (disabled, its organization inactive, its target now refused) is 28, whatever the
 * reason.
 */
export const resolveLink = ProcedureBuilder.create<CoreContext>()
  .input(resolveLinkSchema, () => notFound())
  .query(async ({ ctx, input }): Promise<LinkView> => {
    const link = await findByHost(ctx.deps.store.links, input.domain, input.alias);
    if (!link) throw notFound();
    const refusal = await followRefusal(ctx, link);
    if (refusal !== null) {
      ctx.request.logger?.debug({ link: link.id, refusal }, 'link not followed');
      throw linkGone();
    }
    return toLinkView(link);
  });

/** The link `alias` names on the link domain a Host names (see resolveLink), or null. */
async function findByHost(
  links: LinkStore,
  domain: string,
  alias: string,
): Promise<LinkRecord | null> {
  const host = splitHost(domain.toLowerCase());
  if (!host) return null;
  const { name, port } = host;
  const link = await links.findByAlias(port === '' ? name : `${name}:${port}`, alias);
  if (link) return link;
  const defaultFor = DEFAULT_PORT_SCHEMES[port];
  if (defaultFor) {
    const portless = await links.findByAlias(name, alias);
    if (portless?.scheme === defaultFor) return portless;
  }
  if (port === '') {
    // A domain stored with its scheme's own default port (`acme.link:443`, as provisioning
    // kept it before it dropped that port): a client sends its Host without the port.
    for (const [defaultPort, scheme] of Object.entries(DEFAULT_PORT_SCHEMES)) {
      const ported = await links.findByAlias(`${name}:${defaultPort}`, alias);
      if (ported?.scheme === scheme) return ported;
    }
  }
  return null;
}

/**
 * A Host's name (without its trailing dot) and port (empty when none); null when a colon is left
 * after the name's last `]` (`acme.link:8443.`, a dot after the port): no Host a client sends.
 */
function splitHost(host: string): { name: string; port: string } | null {
  const match = /^(.*?)(?::(\d+))?$/.exec(host);
  const name = match?.[1] ?? host;
  if (name.slice(name.lastIndexOf(']') + 1).includes(':')) return null;
  return { name: withoutTrailingDot(name), port: match?.[2] ?? '' };
}
