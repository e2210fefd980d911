import { Provisioner, ShortlinkError, systemClock, type Core, type Store } from '../../core';
import type { ConfiguredUrlGuard } from '../../core/runtime';
import { readmeCodeBlock, runExample } from '../support/readme-code';

/**
 * core/url-guard/README.md's recipe for an embedded core with the service's anti-phishing chain,
 * run as printed: the URLs an embedded `createCore()` alone lets through are refused (code 18).
 */
describe("an embedded core with the service's URL checks", () => {
  it('refuses credentials, its own link domain and a private target, as the service does', async () => {
    const code = readmeCodeBlock('core/url-guard/README.md', 'Anti-phishing check (code 18)');
    const { store, urlGuard, core } = (await runExample(
      code,
      { modules: { shortlink: 'core', 'shortlink/runtime': 'core/runtime' } },
      require,
    )) as { store: Store; urlGuard: ConfiguredUrlGuard; core: Core };
    try {
      const provisioner = new Provisioner(store, systemClock);
      const { secretKey } = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
      await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
      await provisioner.saveUser({ id: 'svc', organizations: ['acme'] });
      const { token } = await provisioner.issueToken('svc');
      urlGuard.linkDomainsChanged();
      const create = (url: string) =>
        core
          .createCaller({ authorization: `Bearer ${token}` })
          .links.create({ organization_key: secretKey ?? '', url_group_id: '1', url });

      for (const url of [
        'http://paypal.com@evil.example/',
        'https://acme.link/loop',
        'http://169.254.169.254/latest',
      ]) {
        const failure: unknown = await create(url).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(ShortlinkError);
        expect(failure).toMatchObject({ reason: 'URL_BLOCKED' });
      }
      await expect(create('https://example.com/fine')).resolves.toMatchObject({
        domain: 'acme.link',
      });
    } finally {
      await urlGuard.close();
      await store.close();
    }
  });
});
