import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Metadata } from '@grpc/grpc-js';
import {
  CreateShortLinkRequest,
  type CreateShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { Service } from '../../gateway-http/service';
import { connectGrpc } from '../support/grpc-fixture';
import { outcomeOf } from '../support/grpc-call';
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
  /** The README with npm start's default ports replaced by this service's. */
  let onThisService: (text: string) => string;

  beforeAll(async () => {
    // The volatile store, so the README's fixed alias is free on every run whatever the default.
    service = await startInProcessService();
    onThisService = (text) =>
      text
        .replaceAll('localhost:8080', `localhost:${service.http.port}`)
        .replaceAll('127.0.0.1:50051', `127.0.0.1:${service.grpc.port}`);
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

  // grpcurl has no Debian package, so CI cannot count on it: the printed command runs in bash with
  // `grpcurl` standing for a function that reports its arguments, and a grpc-js client sends
  // exactly those (header, JSON body in the proto's field names, address, method) to the service.
  it('creates a link with the arguments of the printed grpcurl command', async () => {
    const grpcurl = readmeCodeBlocks(README, 'The same over gRPC', 'sh').find((code) =>
      code.includes('grpcurl'),
    );
    expect(grpcurl).toBeDefined();
    const script = `grpcurl() { node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "$@"; }
${withBannerSecrets(`TOKEN='slpat_...'\nORG_KEY='slorg_...'\n${grpcurl!}`)}`;
    const printed = await run('bash', ['-c', script]);
    const args = JSON.parse(printed.stdout) as string[];
    expect(args.slice(0, 2)).toEqual(['-plaintext', '-H']);
    const [header, , data, address, method] = args.slice(2);
    expect(args[3]).toBe('-d');
    expect(address).toBe(`127.0.0.1:${service.grpc.port}`);
    expect(method).toBe('shortlink.v1.ShortLinkService/CreateShortLink');

    const [name, value] = header!.split(/:\s*/, 2);
    const metadata = new Metadata();
    metadata.set(name!, value!);
    const request = CreateShortLinkRequest.fromJSON(JSON.parse(data!));
    const connection = connectGrpc(address!);
    try {
      const outcome = await outcomeOf<CreateShortLinkResponse>((callback) =>
        connection.client.createShortLink(request, metadata, callback),
      );
      expect(outcome.error).toBeUndefined();
      const answer = /It answers `(\{"shortLink": .*?\})`/s.exec(readme)?.[1];
      const shortUrl = /"shortUrl": "([^"]+)"/.exec(onThisService(answer ?? ''))?.[1];
      expect(shortUrl).toBeDefined();
      expect(outcome.response?.shortLink?.shortUrl).toBe(shortUrl);
    } finally {
      await connection.close();
    }
  });
});
