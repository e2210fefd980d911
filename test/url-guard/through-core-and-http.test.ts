import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCore,
  createMemoryStore,
  Provisioner,
  ShortlinkError,
  systemClock,
  type Core,
  type MemoryStore,
  type ResponseInfo,
} from '../../core';
import { loadConfig } from '../../core/runtime';
import {
  createUrlGuardFromConfig,
  type ConfiguredUrlGuard,
} from '../../core/runtime/url-guard-from-config';
import { expectFailure, failureOf } from '../support/failures';
import { expectError } from '../support/http-assertions';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from './fake-safe-browsing';
import { recordingLogger } from './fixtures';

const TOKEN = 'url-guard-test-token-of-alice';
const ORG_KEY = 'url-guard-test-organization-key';
const SB_KEY = 'sb-key-through-core';

/** The configured chain inside a real core (memory store) and the REST gateway on port 0. */
describe('anti-phishing check through the core and the REST gateway', () => {
  let dir: string;
  let fake: FakeSafeBrowsing;
  let store: MemoryStore;
  let guard: ConfiguredUrlGuard;
  let core: Core;
  let http: HttpFixture;
  let provisioner: Provisioner;
  const logger = recordingLogger();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'url-guard-'));
    const blocklist = join(dir, 'blocklist.txt');
    await writeFile(blocklist, '# known phishing\nphish.example\n');
    fake = await startFakeSafeBrowsing();
    fake.threats.set('https://reported.example/login', { threatType: 'SOCIAL_ENGINEERING' });

    store = createMemoryStore();
    provisioner = new Provisioner(store, systemClock);
    await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link', secretKey: ORG_KEY });
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
    await provisioner.saveUser({ id: 'alice', organizations: ['acme'] });
    await provisioner.issueToken('alice', { token: TOKEN });

    const config = loadConfig({
      BLOCKED_SHORTENER_DOMAINS: 'bit.ly, tinyurl.com',
      URL_BLOCKLIST_FILE: blocklist,
      URL_BLOCKLIST_POLL_MS: '50',
      SAFE_BROWSING_URL: fake.url,
      SAFE_BROWSING_KEY: SB_KEY,
      SAFE_BROWSING_FAIL: 'closed',
    });
    guard = await createUrlGuardFromConfig(config, logger, store);
    core = createCore({ store, urlGuard: guard.guard });
    http = await startHttp(core);
  });

  afterAll(async () => {
    await http?.close();
    await guard?.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const create = (url: string, extra: Record<string, unknown> = {}) =>
    core
      .createCaller({ authorization: `Bearer ${TOKEN}` })
      .links.create({ organization_key: ORG_KEY, url_group_id: '1', url, ...extra });

  const refusal = async (url: string, extra: Record<string, unknown> = {}) => {
    const error: unknown = await create(url, extra).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ShortlinkError);
    const { reason, messages } = error as ShortlinkError;
    return { reason, messages };
  };

  it.each([
    [
      'http://paypal.com@evil.example/',
      'credentials before the host disguise the real destination',
    ],
    [
      'https://acme.link/abc123',
      "the host is one of this service's own link domains (a link to a link)",
    ],
    [
      'https://bit.ly/xyz',
      'the host is another link shortener, which would hide the real destination',
    ],
    ['https://login.phish.example/', 'the host is on the blocklist'],
    ['https://p\u0430ypal.com/', 'the host mixes Latin and Cyrillic letters'],
    ['https://reported.example/login', 'reported by the reputation service as SOCIAL_ENGINEERING'],
  ])('refuses %s with code 18 and says why', async (url, reason) => {
    expect(await refusal(url)).toEqual({
      reason: 'URL_BLOCKED',
      messages: [`The URL was refused: ${reason}`],
    });
  });

  it('creates a link for a URL every rule lets through, after asking the reputation service', async () => {
    const before = fake.requests.length;
    const link = await create('https://www.example.com/fine');
    expect(link.url).toBe('https://www.example.com/fine');
    expect(fake.requests.length).toBe(before + 1);
    expect(fake.requests.at(-1)?.key).toBe(SB_KEY);
  });

  it('does not ask the reputation service about a URL a local rule refused', async () => {
    const before = fake.requests.length;
    await refusal('https://tinyurl.com/other');
    expect(fake.requests.length).toBe(before);
  });

  it('reports invalid fields before the anti-phishing check', async () => {
    expect(await refusal('https://bit.ly/xyz', { alias: 'not valid!' })).toMatchObject({
      reason: 'ALIAS_INVALID',
    });
  });

  it('sees an organization provisioned in this process once told, and refuses loops to it', async () => {
    await provisioner.saveOrganization({ id: 'beta', domain: 'beta.link:8443' });
    guard.linkDomainsChanged();
    expect((await refusal('https://beta.link:8443/x')).reason).toBe('URL_BLOCKED');
    await expect(create('https://beta.link/x')).resolves.toMatchObject({
      url: 'https://beta.link/x',
    });
  });

  it('stores nothing when a URL is refused', async () => {
    const before = store.links.size;
    await refusal('https://phish.example/a', { alias: 'phish-attempt' });
    await refusal('https://reported.example/login', { alias: 'reported-attempt' });
    expect(store.links.size).toBe(before);
    expect(await store.links.findByAlias('acme.link', 'phish-attempt')).toBeNull();
  });

  it('answers 422 with code 18 and the reason over REST, and stores nothing', async () => {
    const before = store.links.size;
    const answer = await http.create(
      {
        organization_key: ORG_KEY,
        url_group_id: '1',
        url: 'https://user:pw@bank.example.evil.example/',
        alias: 'rest-attempt',
      },
      TOKEN,
    );
    expectError(answer, 422, 'URL_BLOCKED', [
      'The URL was refused: credentials before the host disguise the real destination',
    ]);
    expect(store.links.size).toBe(before);
  });

  it('answers 422 with code 18 over REST for a reported URL too', async () => {
    const answer = await http.create(
      { organization_key: ORG_KEY, url_group_id: 1, url: 'https://reported.example/login' },
      TOKEN,
    );
    expectError(answer, 422, 'URL_BLOCKED', [
      'The URL was refused: reported by the reputation service as SOCIAL_ENGINEERING',
    ]);
  });

  describe('with an Idempotency-Key', () => {
    const keyed = (key: string, url: string, response: ResponseInfo = {}) =>
      core
        .createCaller({ authorization: `Bearer ${TOKEN}`, idempotencyKey: key, response })
        .links.create({ organization_key: ORG_KEY, url_group_id: '1', url });

    afterEach(() => {
      fake.mode = { kind: 'answer' };
    });

    it('keeps a refusal because the reputation service gave no verdict off the key: a retry runs again', async () => {
      fake.mode = { kind: 'status', status: 500 };
      await expectFailure(
        keyed('no-verdict', 'https://www.example.com/while-down'),
        'URL_BLOCKED',
        ['The URL was refused: the reputation service could not check it; please try again later'],
      );
      const before = store.links.size;

      fake.mode = { kind: 'answer' };
      const response: ResponseInfo = {};
      const link = await keyed('no-verdict', 'https://www.example.com/while-down', response);
      expect(link.url).toBe('https://www.example.com/while-down');
      expect(response.idempotentReplayed).toBeUndefined();
      expect(store.links.size).toBe(before + 1);
      // Now the key holds the success.
      const again: ResponseInfo = {};
      await expect(
        keyed('no-verdict', 'https://www.example.com/while-down', again),
      ).resolves.toEqual(link);
      expect(again.idempotentReplayed).toBe(true);
    });

    it('records a refusal the reputation service decided, like every other 18', async () => {
      expect((await failureOf(keyed('reported', 'https://reported.example/login'))).reason).toBe(
        'URL_BLOCKED',
      );
      const again: ResponseInfo = {};
      const replayed = await failureOf(keyed('reported', 'https://reported.example/login', again));
      expect(replayed.reason).toBe('URL_BLOCKED');
      expect(again.idempotentReplayed).toBe(true);
    });
  });

  it('never logs the reputation key', () => {
    expect(JSON.stringify(logger.entries)).not.toContain(SB_KEY);
  });
});
