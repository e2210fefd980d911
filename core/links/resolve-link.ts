import { z } from 'zod';
import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import { ProcedureBuilder } from '../procedure/procedure';
import { MAX_ALIAS_LENGTH } from './create-link-input';
import { MAX_HOST_HEADER_LENGTH } from './long-url';
import { toShortLink, type ShortLink } from './short-link';
import type { LinkScheme } from '../ports/identity-store';
import { DEFAULT_PORTS, withoutTrailingDot } from '../url-guard/host';

const resolveLinkSchema = z.object({
  domain: z.string().min(1).max(MAX_HOST_HEADER_LENGTH),
  alias: z.string().min(1).max(MAX_ALIAS_LENGTH),
});

export type ResolveLinkRequest = z.input<typeof resolveLinkSchema>;

const notFound = () => new ShortlinkError('NOT_FOUND', 'No short link with this alias.');

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
 * Host or the stored link names. The alias is compared exactly.
 */
export const resolveLink = ProcedureBuilder.create<CoreContext>()
  .input(resolveLinkSchema, () => notFound())
  .query(async ({ ctx, input }): Promise<ShortLink> => {
    const { links } = ctx.deps.store;
    const host = splitHost(input.domain.toLowerCase());
    if (!host) throw notFound();
    const { name, port } = host;
    const link = await links.findByAlias(port === '' ? name : `${name}:${port}`, input.alias);
    if (link) return toShortLink(link);
    const defaultFor = DEFAULT_PORT_SCHEMES[port];
    if (defaultFor) {
      const portless = await links.findByAlias(name, input.alias);
      if (portless?.scheme === defaultFor) return toShortLink(portless);
    }
    if (port === '') {
      // A domain stored with its scheme's own default port (`acme.link:443`, as provisioning
      // kept it before it dropped that port): a client sends its Host without the port.
      for (const [defaultPort, scheme] of Object.entries(DEFAULT_PORT_SCHEMES)) {
        const ported = await links.findByAlias(`${name}:${defaultPort}`, input.alias);
        if (ported?.scheme === scheme) return toShortLink(ported);
      }
    }
    throw notFound();
  });

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
