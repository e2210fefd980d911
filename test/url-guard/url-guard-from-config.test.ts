import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, Provisioner, systemClock } from '../../core';
import { ConfigError, loadConfig } from '../../core/runtime';
import { createUrlGuardFromConfig } from '../../core/runtime/url-guard-from-config';
import { organization, recordingLogger } from './fixtures';

/** The URL guard the service would build from `env` (a fresh memory store unless given). */
const guardFrom = (env: Record<string, string>, store = createMemoryStore()) =>
  createUrlGuardFromConfig(loadConfig(env), recordingLogger(), store);

describe('the URL guard from the configuration', () => {
  it('has defaults: fail open, quotas, no blocklist, no reputation lookup', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      BLOCKED_SHORTENER_DOMAINS: [],
      SAFE_BROWSING_FAIL: 'open',
      SAFE_BROWSING_PER_MINUTE: 600,
      SAFE_BROWSING_TIMEOUT_MS: 2000,
      LINK_DOMAINS_REFRESH_SECONDS: 10,
    });
    expect(config.SAFE_BROWSING_THREAT_TYPES).toContain('SOCIAL_ENGINEERING');
    expect(config.URL_BLOCKLIST_FILE).toBeUndefined();
    expect(config.SAFE_BROWSING_URL).toBeUndefined();
  });

  it('refuses an invalid fail mode or reputation URL', () => {
    expect(() => loadConfig({ SAFE_BROWSING_FAIL: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ SAFE_BROWSING_URL: 'ftp://sb.example' })).toThrow(ConfigError);
  });

  it('always runs the built-in rules, even with nothing configured', async () => {
    const store = createMemoryStore();
    await new Provisioner(store, systemClock).saveOrganization({
      id: 'acme',
      domain: 'acme.link',
    });
    const { guard, close } = await guardFrom({}, store);
    try {
      const check = (url: string) => guard.check(new URL(url), { organization });
      expect((await check('https://a@b.example/')).blocked).toBe(true);
      expect((await check('https://acme.link/x')).blocked).toBe(true);
      expect((await check('https://\u0440aypal.com/')).blocked).toBe(true);
      expect(await check('https://bit.ly/x')).toEqual({ blocked: false });
      expect(await check('https://example.com/')).toEqual({ blocked: false });
    } finally {
      await close();
    }
  });

  it('refuses a key without a URL (the key goes only where the operator said)', () => {
    expect(() => loadConfig({ SAFE_BROWSING_KEY: 'k' })).toThrow(ConfigError);
    expect(() => loadConfig({ SAFE_BROWSING_KEY: 'k' })).toThrow(
      'invalid configuration: SAFE_BROWSING_KEY: is set but SAFE_BROWSING_URL is not',
    );
  });

  it('refuses a shortener entry that is not a domain, and a broken blocklist at start', async () => {
    await expect(guardFrom({ BLOCKED_SHORTENER_DOMAINS: 'bit.ly,https://t.co/' })).rejects.toThrow(
      /BLOCKED_SHORTENER_DOMAINS.*https:\/\/t\.co\//,
    );

    const dir = await mkdtemp(join(tmpdir(), 'url-guard-config-'));
    try {
      const path = join(dir, 'list.txt');
      await writeFile(path, 'ok.example\nnot ok\n');
      await expect(guardFrom({ URL_BLOCKLIST_FILE: path })).rejects.toThrow(
        /URL_BLOCKLIST_FILE.*line 2/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
