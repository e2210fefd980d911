import {
  createCore,
  createMemoryStore,
  Provisioner,
  ShortlinkError,
  systemClock,
  type ResponseInfo,
} from '../../core';
import { readmeCodeBlock, runExample } from '../support/readme-code';

/** The embedding example of core/README.md, kept honest by running it. */
describe('embedding the core in-process', () => {
  it('runs the example of core/README.md as printed', async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const code = readmeCodeBlock('core/README.md', 'Embedding the core in another Node process');
      await runExample(code, { modules: { shortlink: 'core' } }, require);
      expect(error).not.toHaveBeenCalled();
      expect(log).toHaveBeenCalledTimes(1);
      expect(log.mock.calls[0]?.[0]).toMatch(/^https:\/\/acme\.link\/[0-9A-Za-z]{7}$/);
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
  });

  it('creates a link through the same procedure the gateways call', async () => {
    const store = createMemoryStore();
    const provisioner = new Provisioner(store, systemClock);
    const { secretKey } = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
    await provisioner.saveUser({ id: 'svc', organizations: ['acme'] });
    const { token } = await provisioner.issueToken('svc');

    const core = createCore({ store });
    const response: ResponseInfo = {};
    const caller = core.createCaller({ authorization: `Bearer ${token}`, response });
    const link = await caller.links.create({
      organization_key: secretKey!,
      url_group_id: '1',
      url: 'https://example.com/some/long/path',
    });
    expect(link.short_url).toMatch(/^https:\/\/acme\.link\/[0-9A-Za-z]{7}$/);
    expect(response.rateLimit).toMatchObject({ limit: 60, remaining: 59 });

    const failure: unknown = await caller.links
      .create({ organization_key: secretKey!, url_group_id: '1', url: 'ftp://nope' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ShortlinkError);
    expect(failure).toMatchObject({ reason: 'URL_INVALID' });
  });
});
