import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../gateway-http/service';
import { startInProcessService } from '../support/in-process-service';
import { readmeCodeBlocks } from '../support/readme-code';
import { operatorActing } from '../../core/links/link-actor';
import { ADMIN_ACTOR } from '../../core/ports/link-store';

const run = promisify(execFile);
const README = 'README.md';
const readme = readFileSync(path.resolve(__dirname, '../..', README), 'utf8');

/** The root README's quick start, run as printed against `npm start`'s composition on free ports. */
describe('the root README quick start', () => {
  let service: Service;
  /** The README with npm start's default port replaced by this service's. */
  let onThisService: (text: string) => string;

  beforeAll(async () => {
    // The volatile store, so the README's fixed alias is free on every run whatever the default.
    service = await startInProcessService();
    onThisService = (text) => text.replaceAll('localhost:8080', `localhost:${service.http.port}`);
  });
  afterAll(() => service.shutdown());

  /** A shell block of the README with the banner's secrets filled in where it says so. */
  function withBannerSecrets(block: string): string {
    const { token, organizationKey } = service.demo!;
    return onThisService(block)
      .replace("TOKEN='slpat_...'", `TOKEN='${token}'`)
      .replace("ORG_KEY='slorg_...'", `ORG_KEY='${organizationKey}'`);
  }

  it('creates the link with the printed curl, refuses it the second time, and follows it', async () => {
    const [curl] = readmeCodeBlocks(README, 'Create a short link', 'sh');
    const [success, taken] = readmeCodeBlocks(README, 'Create a short link', 'json');
    expect(curl).toContain("TOKEN='slpat_...'");

    const first = await run('bash', ['-c', withBannerSecrets(curl!)]);
    expect(JSON.parse(first.stdout)).toEqual(JSON.parse(onThisService(success!)));
    const second = await run('bash', ['-c', withBannerSecrets(curl!)]);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(taken!));

    const follow =
      /Follow it: `(curl [^`]+)` answers `([^`]+)` with\s+`([^`]+)` and `([^`]+)`/.exec(readme);
    expect(follow).not.toBeNull();
    const [, command, statusLine, location, cacheControl] = follow!;
    const followed = await run('bash', ['-c', onThisService(command!)]);
    expect(followed.stdout).toMatch(new RegExp(`^HTTP/1\\.1 ${statusLine}\\r\\n`));
    expect(followed.stdout).toContain(`${location}\r\n`);
    expect(followed.stdout).toContain(`${cacheControl}\r\n`);

    // Taken down (here through the store, as the admin CLI does on a shared one), the printed
    // follow answers the JSON 410 with code 28.
    const [takedown] = readmeCodeBlocks(README, 'Take a link down', 'sh');
    const printedFollow = /^curl .*$/m.exec(takedown!)?.[0];
    expect(printedFollow).toContain('# 410 Gone, code 28');
    const link = await service.runtime.core.deps.store.links.findByAlias(
      `localhost:${service.http.port}`,
      'hello',
    );
    await service.runtime.core.deps.store.links.setDisabled(
      link!.id,
      { reason: 'reported as phishing', at: new Date(), by: ADMIN_ACTOR },
      operatorActing({ now: () => new Date() }, ADMIN_ACTOR),
    );
    const gone = await run('bash', ['-c', onThisService(printedFollow!)]);
    expect(gone.stdout).toMatch(/^HTTP\/1\.1 410 Gone\r\n/);
    expect(JSON.parse(gone.stdout.split('\r\n\r\n')[1]!)).toMatchObject({ code: 28 });
  });
});
