import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCore,
  createMemoryRateLimiter,
  ErrorCode,
  silentLogger,
  type Core,
} from '../../core';
import { createUrlGuardFromConfig, loadConfig, type ConfiguredUrlGuard } from '../../core/runtime';
import { startGrpc, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { startHttp, type HttpFixture } from '../support/http-fixture';

const PRIVATE = 'private targets are refused (ALLOW_PRIVATE_TARGETS=1 allows them)';

interface Served {
  fixture: CoreFixture;
  guard: ConfiguredUrlGuard;
  http: HttpFixture;
  grpc: GrpcFixture;
}

/** The configured chain in a core served over REST and gRPC on port 0. */
async function serve(env: Record<string, string>): Promise<Served> {
  const base = await createTestCore();
  const guard = await createUrlGuardFromConfig(loadConfig(env), silentLogger, base.store);
  const core: Core = createCore({
    ...base.core.deps,
    urlGuard: guard.guard,
    // Every case here is two requests (REST and gRPC) of one token.
    rateLimiter: createMemoryRateLimiter({ limit: 10_000, keyPrefix: 'abuse-rules' }),
  });
  const fixture = { ...base, core };
  return { fixture, guard, http: await startHttp(core), grpc: await startGrpc(core) };
}

async function stop(served: Served | undefined): Promise<void> {
  await served?.http.close();
  await served?.grpc.close();
  await served?.guard.close();
}

/** The spec code and messages a URL gets, over REST and over gRPC (they must agree). */
async function outcome(served: Served, url: string): Promise<{ code: number; errors: string[] }> {
  const rest = (
    await served.http.create(served.fixture.body({ url }), served.fixture.token)
  ).json() as {
    code: number;
    errors: string[];
  };
  const grpc = await served.grpc.create(
    validRequest(served.fixture, { url }),
    served.fixture.token,
  );
  const [code] = grpc.status.metadata.get('shortlink-error-code');
  expect({ code: code === undefined ? 0 : Number(code), details: grpc.status.details }).toEqual({
    code: rest.code,
    details: rest.code === 0 ? 'OK' : rest.errors.join('; '),
  });
  return { code: rest.code, errors: rest.errors };
}

describe('anti-phishing rules against abuse (REST and gRPC)', () => {
  let dir: string;
  let served: Served | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'abuse-rules-'));
    await writeFile(join(dir, 'blocklist.txt'), '198.51.100.7\n[::ffff:203.0.113.9]\n');
    served = await serve({ URL_BLOCKLIST_FILE: join(dir, 'blocklist.txt') });
  });

  afterAll(async () => {
    await stop(served);
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    'http://[::ffff:198.51.100.7]/',
    'http://[::ffff:c633:6407]/login',
    'http://[0:0:0:0:0:ffff:198.51.100.7]:8080/',
    'http://203.0.113.9/',
  ])('compares the IPv4-mapped form %s as the blocklisted IPv4 address', async (url) => {
    expect(await outcome(served!, url)).toEqual({
      code: ErrorCode.URL_BLOCKED,
      errors: ['The URL was refused: the host is on the blocklist'],
    });
  });

  it.each([
    ['https://xn--80ak6aa92e.com/', 'аррӏе', 'Cyrillic', 'apple'],
    ['https://аррӏе.com/', 'аррӏе', 'Cyrillic', 'apple'],
    ['https://login.xn--80ak6aa92e.com/', 'аррӏе', 'Cyrillic', 'apple'],
    ['https://gıthub.com/login', 'gıthub', 'Latin', 'github'],
    // A combining dot above makes the dotless ı (or a plain i) draw exactly as "i".
    ['https://g\u0131\u0307thub.com/', 'g\u0131\u0307thub', 'Latin', 'github'],
    ['https://gi\u0307thub.com/', 'gi\u0307thub', 'Latin', 'github'],
    ['https://xn--gthub-n4a404a.com/', 'g\u0131\u0307thub', 'Latin', 'github'],
    ['https://οκ.com/', 'οκ', 'Greek', 'ok'],
  ])('refuses the whole-script look-alike %s', async (url, label, script, reading) => {
    expect(await outcome(served!, url)).toEqual({
      code: ErrorCode.URL_BLOCKED,
      errors: [
        `The URL was refused: whole-script look-alike: the label "${label}" is written in ${script} letters that read as the Latin "${reading}"`,
      ],
    });
  });

  it.each([
    'https://xn--80ak6aa92e.xn--p1ai/', // аррӏе.рф: a Cyrillic name under a Cyrillic TLD
    'https://аррӏе.ru/',
    'https://пример.com/', // Cyrillic, but not every letter reads as Latin
    'https://bücher.de/',
    'https://ılık.com.tr/',
    'https://i\u0307stanbul.com.tr/', // İSTANBUL in lower case, where Turkish is written
    'https://paypa\u0301l.com/', // an accent that draws no ASCII letter
    'https://www.example.com/',
  ])('lets %s through', async (url) => {
    expect((await outcome(served!, url)).code).toBe(0);
  });

  it.each([
    ['http://127.0.0.1/', 'a loopback address'],
    ['http://2130706433/', 'a loopback address'],
    ['http://[::1]:8080/', 'a loopback address'],
    ['http://[::ffff:127.0.0.1]/', 'a loopback address'],
    ['http://10.1.2.3/', 'a private address'],
    ['http://192.168.0.1/', 'a private address'],
    ['http://172.16.5.4/', 'a private address'],
    ['http://[64:ff9b::a00:1]/', 'a private address'],
    ['http://169.254.1.1/', 'a link-local address'],
    ['http://[fe80::1]/', 'a link-local address'],
    ['http://[fc00::1]/', 'a unique-local address'],
    ['http://0.0.0.0/', 'an unspecified address'],
    ['http://[::]/', 'an unspecified address'],
    ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
    ['http://localhost:3000/', 'a localhost name'],
    ['http://LOCALHOST./', 'a localhost name'],
    ['http://admin.localhost/', 'a localhost name'],
    // Carrier-grade NAT (100.64.0.0/10), where Alibaba Cloud's metadata service lives.
    ['http://100.64.0.1/', 'a carrier-grade NAT address'],
    ['http://100.127.255.254/', 'a carrier-grade NAT address'],
    ['http://100.100.100.200/latest/meta-data/', 'a cloud metadata address'],
    ['http://[64:ff9b::6440:1]/', 'a carrier-grade NAT address'],
    // The clouds' metadata names: GCP's, AWS's, Tencent Cloud's; any case, a trailing dot.
    ['http://metadata.google.internal/computeMetadata/v1/', 'a cloud metadata name'],
    ['http://METADATA.Google.Internal./', 'a cloud metadata name'],
    ['http://metadata/computeMetadata/v1/', 'a cloud metadata name'],
    ['http://metadata.goog/computeMetadata/v1/', 'a cloud metadata name'],
    ['http://Metadata.GOOG./', 'a cloud metadata name'],
    ['http://instance-data/latest/meta-data/', 'a cloud metadata name'],
    ['http://INSTANCE-DATA./latest/meta-data/', 'a cloud metadata name'],
    ['http://instance-data.ec2.internal/latest/meta-data/', 'a cloud metadata name'],
    ['https://Instance-Data.EC2.Internal.:443/', 'a cloud metadata name'],
    ['http://metadata.tencentyun.com/latest/meta-data/', 'a cloud metadata name'],
    ['http://METADATA.TencentYun.com./', 'a cloud metadata name'],
    // IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d) IPv6 forms.
    ['http://[::7f00:1]/', 'a loopback address'],
    ['http://[::127.0.0.1]/', 'a loopback address'],
    ['http://[::ffff:0:7f00:1]/', 'a loopback address'],
    ['http://[::ffff:0:127.0.0.1]/', 'a loopback address'],
    ['http://[::a00:1]/', 'a private address'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'a cloud metadata address'],
    ['http://[::100.64.0.1]/', 'a carrier-grade NAT address'],
    // The other classes that reach no public host.
    ['http://[fec0::1]/', 'a site-local address'],
    ['http://240.0.0.1/', 'a reserved address'],
    ['http://192.0.2.1/', 'a reserved address'],
    ['http://[2001:db8::1]/', 'a reserved address'],
    ['http://255.255.255.255/', 'a broadcast address'],
    ['http://224.0.0.1/', 'a multicast address'],
    ['http://[ff02::1]/', 'a multicast address'],
  ])('refuses the private target %s', async (url, kind) => {
    expect(await outcome(served!, url)).toEqual({
      code: ErrorCode.URL_BLOCKED,
      errors: [`The URL was refused: the host is ${kind}: ${PRIVATE}`],
    });
  });

  it.each([
    'http://8.8.8.8/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[::8.8.8.8]/',
    'http://[::ffff:0:808:808]/',
    'http://[64:ff9b::808:808]/',
    'http://metadata.example.com/',
    'http://google.internal.example/',
    'http://www.metadata.goog/',
    'http://instance-data.example/',
    'http://tencentyun.com/',
  ])('lets the public target %s through', async (url) => {
    expect((await outcome(served!, url)).code).toBe(0);
  });

  it('refuses a host over 253 characters as an invalid URL (7), before any rule', async () => {
    const long = `https://${'a.'.repeat(1000)}example/`;
    const answer = await outcome(served!, long);
    expect(answer).toEqual({
      code: ErrorCode.URL_INVALID,
      errors: ["url's host must be at most 253 characters."],
    });
    const host = (last: number) =>
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(last)}.com`;
    expect(host(57)).toHaveLength(253);
    expect((await outcome(served!, `https://${host(57)}/`)).code).toBe(0);
    expect((await outcome(served!, `https://${host(57)}./`)).code).toBe(0);
    expect((await outcome(served!, `https://${host(58)}/`)).code).toBe(ErrorCode.URL_INVALID);
  });
});

describe('ALLOW_PRIVATE_TARGETS=1', () => {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await serve({ ALLOW_PRIVATE_TARGETS: '1' });
  });
  afterAll(() => stop(served));

  it.each([
    'http://127.0.0.1:8080/',
    'http://intranet.localhost/',
    'http://10.0.0.5/wiki',
    'http://100.64.0.1/',
    'http://metadata.google.internal/',
    'http://instance-data.ec2.internal/',
    'http://metadata.tencentyun.com/',
    'http://[::7f00:1]/',
  ])('lets %s through for an intranet deployment', async (url) => {
    expect((await outcome(served!, url)).code).toBe(0);
  });

  it('is off unless set to 1 or true, and refuses anything else', () => {
    expect(loadConfig({}).ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadConfig({ ALLOW_PRIVATE_TARGETS: 'true' }).ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(() => loadConfig({ ALLOW_PRIVATE_TARGETS: 'yes' })).toThrow(/ALLOW_PRIVATE_TARGETS/);
  });
});
