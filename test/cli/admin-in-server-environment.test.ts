import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '../../core';
import { runAdmin, runAdminWithInput, type AdminRun } from '../support/admin-cli';
import { adminBesideServer, createWithAlias } from '../support/admin-beside-server';
import { sendRaw } from '../support/raw-http';

jest.setTimeout(120_000);

const { dirs, buildDir, startServer } = adminBesideServer('admin-server-env');

/** The bound the server is given here; a change must be seen within it (and a poll's slack). */
const PROPAGATION_SECONDS = 1;
const SLACK_MS = 1500;

const ACME_KEY = 'slorg_acme-organization-secret-key-01';
const BETA_KEY = 'slorg_beta-organization-secret-key-01';
const ALICE_TOKEN = 'slpat_alice-personal-token-0123456789';
const BOB_TOKEN = 'slpat_bob-personal-token-01234567890';

const SEED = JSON.stringify({
  organizations: [
    {
      id: 'acme',
      secret_key: ACME_KEY,
      domain: 'acme.link',
      active: true,
      groups: [{ api_id: '1' }],
    },
    { id: 'beta', secret_key: BETA_KEY, domain: 'beta.link', groups: [{ api_id: '1' }] },
  ],
  users: [
    { id: 'alice', tokens: [ALICE_TOKEN], organizations: ['acme'] },
    { id: 'bob', tokens: [BOB_TOKEN], organizations: ['beta'] },
  ],
});

/** A follow of `host`/`alias` asking for JSON: its status and the envelope's code, if any. */
async function follow(port: number, host: string, alias: string) {
  const answer = await sendRaw({
    port,
    method: 'GET',
    path: `/${alias}`,
    headers: { Host: host, Accept: 'application/json' },
  });
  const code = answer.status === 410 ? (JSON.parse(answer.text) as { code: number }).code : null;
  return { status: answer.status, code };
}

/**
 * Milliseconds from now until `check` answers `wanted` (asked every 50 ms); fails past the bound
 * and its slack.
 */
async function msUntil<T>(check: () => Promise<T>, wanted: T): Promise<number> {
  const start = Date.now();
  const deadline = start + PROPAGATION_SECONDS * 1000 + SLACK_MS;
  for (;;) {
    if (JSON.stringify(await check()) === JSON.stringify(wanted)) return Date.now() - start;
    if (Date.now() > deadline) throw new Error(`not ${JSON.stringify(wanted)} within the bound`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const succeeded = (run: AdminRun) => ({ code: run.code, stderr: run.stderr });

/**
 * Issue 49: the admin CLI run in the server's own environment (DATA_DIR and SHORTLINK_SEED_FILE
 * both set, as a container or a systemd unit has them) acts on the server's store, and the running
 * server sees it within CHANGE_PROPAGATION_SECONDS; the seed file is left as it is.
 */
describe.each(['1', '2'])(
  'admin CLI in the server’s own environment (DATA_DIR and SHORTLINK_SEED_FILE), WORKERS=%s',
  (workers) => {
    it('org deactivate, link update, link disable and token revoke reach the running server within the bound', async () => {
      const dir = await dirs.make();
      const seedFile = join(dir, 'seed.json');
      await writeFile(seedFile, SEED, { mode: 0o600 });
      const env = {
        DATA_DIR: join(dir, 'data'),
        SHORTLINK_SEED_FILE: seedFile,
        CHANGE_PROPAGATION_SECONDS: String(PROPAGATION_SECONDS),
        WORKERS: workers,
      };
      // The identity cache's own TTL is longer: the propagation bound caps it.
      const server = await startServer(env.DATA_DIR, { ...env, IDENTITY_CACHE_TTL_SECONDS: '10' });
      if (workers !== '1') await server.logged('workers ready');
      const port = server.httpPort;
      expect((await createWithAlias(port, ALICE_TOKEN, ACME_KEY, 'promo')).status).toBe(200);
      expect((await createWithAlias(port, BOB_TOKEN, BETA_KEY, 'offer')).status).toBe(200);
      expect((await createWithAlias(port, BOB_TOKEN, BETA_KEY, 'moved')).status).toBe(200);
      // Followed once each, so the server's caches hold the links and organizations.
      await expect(follow(port, 'acme.link', 'promo')).resolves.toEqual({
        status: 301,
        code: null,
      });
      await expect(follow(port, 'beta.link', 'offer')).resolves.toEqual({
        status: 301,
        code: null,
      });

      const deactivated = await runAdmin(buildDir(), env, 'org', 'deactivate', '--id', 'acme');
      expect(succeeded(deactivated)).toEqual({ code: 0, stderr: '' });
      expect(deactivated.stdout).toContain('organization acme is inactive');
      // The seed file says "active": true and is applied at every start: the output says so.
      expect(deactivated.stdout).toContain(
        `the seed file ${seedFile} declares organization acme "active": true`,
      );
      expect(
        await msUntil(() => follow(port, 'acme.link', 'promo'), { status: 410, code: 28 }),
      ).toBeLessThanOrEqual(PROPAGATION_SECONDS * 1000 + SLACK_MS);

      // An edit: every process (each worker) redirects to the new target within the bound.
      const target = async () =>
        (
          await sendRaw({
            port,
            method: 'GET',
            path: '/moved',
            headers: { Host: 'beta.link', Connection: 'close' },
          })
        ).headers.location;
      expect(await target()).toBe('https://example.com/moved');
      const updated = await runAdmin(
        buildDir(),
        env,
        ...['link', 'update', '--domain', 'beta.link', '--alias', 'moved'],
        ...['--url', 'https://example.com/moved-again'],
      );
      expect(succeeded(updated)).toEqual({ code: 0, stderr: '' });
      // The edit was committed before the CLI exited.
      const updatedAt = Date.now();
      await msUntil(target, 'https://example.com/moved-again');
      // Once the bound has passed since the edit, every process answers the new target (each
      // worker's cache trusted the old link at most the bound).
      const boundPassed = updatedAt + PROPAGATION_SECONDS * 1000 + 250 - Date.now();
      if (boundPassed > 0) await new Promise((resolve) => setTimeout(resolve, boundPassed));
      // Fresh connections, so that with WORKERS each worker is asked.
      for (let i = 0; i < 8; i += 1) expect(await target()).toBe('https://example.com/moved-again');

      const disabled = await runAdmin(
        buildDir(),
        env,
        ...['link', 'disable', '--domain', 'beta.link', '--alias', 'offer', '--reason', 'kit'],
      );
      expect(succeeded(disabled)).toEqual({ code: 0, stderr: '' });
      await msUntil(() => follow(port, 'beta.link', 'offer'), { status: 410, code: 28 });

      const createCode = async () =>
        (
          JSON.parse((await createWithAlias(port, BOB_TOKEN, BETA_KEY, 'next')).text) as {
            code: number;
          }
        ).code;
      // Bob's token is cached by the creates above; it still works until revoked.
      expect([0, ErrorCode.ALIAS_TAKEN]).toContain(await createCode());
      const revoked = await runAdminWithInput(buildDir(), env, `${BOB_TOKEN}\n`, 'token', 'revoke');
      expect(succeeded(revoked)).toEqual({ code: 0, stderr: '' });
      expect(revoked.stdout).toContain('revoked a token of user bob');
      await msUntil(createCode, ErrorCode.TOKEN_UNKNOWN);

      // The seed file was not the target: it is as it was written.
      expect(await readFile(seedFile, 'utf8')).toBe(SEED);
      server.child.kill('SIGTERM');
      await server.exited;
    });
  },
);
