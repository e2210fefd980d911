import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Service } from '../../../gateway-http/service';
import { startInProcessService } from '../../support/in-process-service';
import { sendRaw } from '../../support/raw-http';
import { tempDirs } from '../../support/temp-dirs';

const X_KEY = 'slorg_x-organization-secret-key-0123';
const Y_KEY = 'slorg_y-organization-secret-key-0123';
const ALICE_TOKEN = 'slpat_alice-personal-token-0123456789';

/** A seed file: x on `xDomain`, and y on `yDomain` when given; alice a member of both. */
function seed(xDomain: string, yDomain?: string) {
  const organizations = [
    { id: 'x', secret_key: X_KEY, domain: xDomain, groups: [{ api_id: '1' }] },
    ...(yDomain
      ? [{ id: 'y', secret_key: Y_KEY, domain: yDomain, groups: [{ api_id: '1' }] }]
      : []),
  ];
  const members = organizations.map((organization) => organization.id);
  return JSON.stringify({
    organizations,
    users: [{ id: 'alice', tokens: [ALICE_TOKEN], organizations: members }],
  });
}

/** The service's answer to a follow of `host`/`alias`: its status and Location. */
async function follow(service: Service, host: string, alias: string) {
  const response = await sendRaw({
    port: service.http.port,
    method: 'GET',
    path: `/${alias}`,
    headers: { Host: host },
  });
  return { status: response.status, location: response.headers.location };
}

/**
 * Issue 49: a seed file that moves organization x off the link domain holding its links and gives
 * that domain to organization y must not start, or d1.link/promo would still redirect to x's
 * target, out of y's reach (24 on every read, 15 on a create of the alias).
 */
describe('a link domain holding links stays with its organization across a seed file change', () => {
  const dirs = tempDirs('link-domain-stays');
  afterAll(() => dirs.removeAll());

  it('refuses at start a seed file that moves x off d1.link and gives d1.link to y', async () => {
    const dir = await dirs.make();
    const seedFile = join(dir, 'seed.json');
    const env = { DATA_DIR: join(dir, 'data'), SHORTLINK_SEED_FILE: seedFile };
    await writeFile(seedFile, seed('d1.link'));
    const first = await startInProcessService(env);
    try {
      const created = await sendRaw({
        port: first.http.port,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ALICE_TOKEN}` },
        body: JSON.stringify({
          organization_key: X_KEY,
          url_group_id: '1',
          url: 'https://x.example/offer',
          alias: 'promo',
        }),
      });
      expect(created.status).toBe(200);
    } finally {
      await first.shutdown();
    }

    await writeFile(seedFile, seed('d2.link', 'd1.link'));
    const refusal = await startInProcessService(env).then(
      async (service) => {
        await service.shutdown();
        return 'started';
      },
      (error: unknown) => (error as Error).message,
    );
    expect(refusal).toContain(
      'organization "x" cannot move to link domain "d2.link": link domain "d1.link" holds 1 link; it stays with organization "x"',
    );

    // The store is as the first start left it: x keeps d1.link, its link answers there.
    await writeFile(seedFile, seed('d1.link'));
    const again = await startInProcessService(env);
    try {
      await expect(follow(again, 'd1.link', 'promo')).resolves.toEqual({
        status: 301,
        location: 'https://x.example/offer',
      });
    } finally {
      await again.shutdown();
    }
  });
});
