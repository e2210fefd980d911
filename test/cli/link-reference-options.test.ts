import { createCore } from '../../core';
import { createMemoryStore, type MemoryStore } from '../../core/adapters/memory/memory-store';
import { systemClock } from '../../core/adapters/system-clock';
import { linkCommand } from '../../core/cli/link-commands';
import { NotFoundProvisioningError } from '../../core/provisioning/provisioning-error';
import { Provisioner } from '../../core/provisioning/provisioner';
import { insertLink, provisionOrganization } from '../support/link-fixture';

let store: MemoryStore;

beforeEach(async () => {
  store = createMemoryStore();
  await provisionOrganization(store, 'acme'); // https://acme.link
  const provisioner = new Provisioner(store, systemClock);
  await provisioner.createOrganization({ id: 'plain', domain: 'plain.link', scheme: 'http' });
  await provisioner.createGroup({ organizationId: 'plain', apiId: '1' });
  await provisioner.createOrganization({ id: 'books', domain: 'bücher.link' });
  await provisioner.createGroup({ organizationId: 'books', apiId: '1' });
  await insertLink(store, 'acme', 'x', 'https://example.com/acme'); // 1
  await insertLink(store, 'plain', 'x', 'https://example.com/plain', { scheme: 'http' }); // 2
  await insertLink(store, 'books', 'x', 'https://example.com/books', {
    domain: 'xn--bcher-kva.link',
  }); // 3
});
afterEach(() => store.close());

/** The id `link show --domain <domain> --alias x` prints, or its refusal's message. */
async function shown(domain: string): Promise<number | string> {
  const lines: string[] = [];
  try {
    await linkCommand('link show', { domain, alias: 'x' })(store, systemClock, (line) => {
      lines.push(line);
    });
  } catch (error) {
    if (error instanceof NotFoundProvisioningError) return error.message;
    throw error;
  }
  return (JSON.parse(lines[0]!) as { id: number }).id;
}

/** The id of the link a follow of `Host: <domain>` finds, or its refusal's reason. */
const followed = (domain: string): Promise<number | string> =>
  createCore({ store })
    .createCaller()
    .links.resolve({ domain, alias: 'x' })
    .then(
      (link) => link.id,
      (error: { reason: string }) => error.reason,
    );

describe('link show --domain reads the domain as a follow reads its Host', () => {
  it.each([
    ['acme.link', 1],
    ['acme.link:443', 1],
    ['ACME.Link.:443', 1],
    ['Acme.LINK.', 1],
    ['plain.link:80', 2],
    ['PLAIN.link', 2],
    ['bücher.link', 3],
    ['BÜCHER.link.:443', 3],
    ['xn--bcher-kva.link', 3],
  ])('--domain %s names link %i, the one a follow on that Host finds', async (domain, id) => {
    expect(await followed(domain)).toBe(id);
    expect(await shown(domain)).toBe(id);
  });

  it.each([
    // A default port names the domain for links of that port's scheme only, as on a follow.
    ['acme.link:80', 'no link acme.link:80/x'],
    ['plain.link:443', 'no link plain.link:443/x'],
    ['acme.link:8443', 'no link acme.link:8443/x'],
  ])('--domain %s names no link, as a follow there finds none', async (domain, refusal) => {
    expect(await followed(domain)).toBe('NOT_FOUND');
    expect(await shown(domain)).toBe(refusal);
  });

  it('refuses what no link domain is, before any store is opened', () => {
    for (const domain of ['https://acme.link', 'acme.link/x', 'acme..link', '']) {
      expect(() => linkCommand('link show', { domain, alias: 'x' })).toThrow(
        /--domain must be a link domain \(host or host:port\)/,
      );
    }
  });
});
