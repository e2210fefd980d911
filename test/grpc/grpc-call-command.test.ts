import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';

jest.setTimeout(60_000);

const run = promisify(execFile);

/** `npm run grpc`'s program (gateway-grpc/cli/grpc-call.ts), built, against a test server. */
describe('the gRPC command (npm run grpc)', () => {
  let f: CoreFixture;
  let grpc: GrpcFixture;
  let build: TempBuild;

  beforeAll(async () => {
    [{ f, grpc }, build] = await Promise.all([startGrpcOnTestCore(), compileToTemp()]);
  });
  afterAll(async () => {
    await grpc?.close();
    await build?.remove();
  });

  async function grpcCall(args: string[], env: Record<string, string> = {}) {
    const program = join(build.dir, 'gateway-grpc', 'cli', 'grpc-call.js');
    const options = {
      env: { PATH: process.env.PATH ?? '', NODE_PATH: join(ROOT, 'node_modules'), ...env },
      timeout: 30_000,
    };
    try {
      const { stdout, stderr } = await run(process.execPath, [program, ...args], options);
      return { exitCode: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { exitCode: code, stdout, stderr };
    }
  }

  const body = (fields: Record<string, unknown>) =>
    JSON.stringify({ organization_key: f.organizationKey, url_group_id: '1', ...fields });

  it('calls a method with a JSON body and prints the answer as proto3 JSON', async () => {
    const created = await grpcCall(
      ['CreateShortLink', body({ url: 'https://example.com/a', alias: 'by-command' })],
      { SHORTLINK_TOKEN: f.token, GRPC_PORT: grpc.address.split(':')[1]! },
    );
    expect(created).toEqual({ exitCode: 0, stdout: expect.any(String), stderr: '' });
    expect(JSON.parse(created.stdout)).toEqual({
      shortLink: {
        id: expect.stringMatching(/^[1-9]\d*$/),
        shortUrl: `https://${f.domain}/by-command`,
        url: 'https://example.com/a',
        domain: f.domain,
        alias: 'by-command',
        redirectType: 301,
        state: 'LINK_STATE_ACTIVE',
      },
    });
    // The full name, --address and --token in place of the environment.
    const got = await grpcCall([
      'shortlink.v1.ShortLinkService/GetShortLink',
      JSON.stringify({ organizationKey: f.organizationKey, alias: 'by-command' }),
      '--address',
      grpc.address,
      '--token',
      f.token,
    ]);
    expect(got.exitCode).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({
      shortLink: { alias: 'by-command', urlGroupId: '1', createdAt: expect.any(String) },
    });
    const health = await grpcCall(['grpc.health.v1.Health/Check', '--address', grpc.address]);
    expect(JSON.parse(health.stdout)).toEqual({ status: 'SERVING' });
  });

  it('sends --header fields: an idempotency-key answers the same link twice', async () => {
    const args = [
      'CreateShortLink',
      body({ url: 'https://example.com/keyed' }),
      '--address',
      grpc.address,
      '--header',
      'idempotency-key: command-key-1',
    ];
    const first = await grpcCall(args, { SHORTLINK_TOKEN: f.token });
    const second = await grpcCall(args, { SHORTLINK_TOKEN: f.token });
    expect(first.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout));
  });

  it('prints a failure as JSON on stderr (status, code, reason, message, trailers) and exits with 1', async () => {
    const failed = await grpcCall(
      ['CreateShortLink', body({ url: 'https://example.com/b', alias: 'by-command' })],
      { SHORTLINK_TOKEN: f.token, GRPC_PORT: grpc.address.split(':')[1]! },
    );
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toBe('');
    expect(JSON.parse(failed.stderr)).toEqual({
      status: 'ALREADY_EXISTS',
      grpcStatus: 6,
      code: 15,
      reason: 'ALIAS_TAKEN',
      message: 'This alias is already taken on this link domain.',
      trailers: expect.objectContaining({ 'x-ratelimit-limit': expect.any(String) }),
    });
    const unauthenticated = await grpcCall([
      'GetShortLink',
      JSON.stringify({ organization_key: f.organizationKey, id: 1 }),
      '--address',
      grpc.address,
    ]);
    expect(unauthenticated.exitCode).toBe(1);
    expect(JSON.parse(unauthenticated.stderr)).toMatchObject({
      status: 'UNAUTHENTICATED',
      code: 3,
      reason: 'TOKEN_MISSING',
    });
  });

  it('exits with 1 and the status when the server cannot be reached', async () => {
    const unreachable = await grpcCall(['GetShortLink', '{}', '--address', '127.0.0.1:1']);
    expect(unreachable.exitCode).toBe(1);
    expect(JSON.parse(unreachable.stderr)).toMatchObject({ status: 'UNAVAILABLE', grpcStatus: 14 });
  });

  it.each([
    [['NoSuchMethod'], /ShortLinkService has no method NoSuchMethod; it has CreateShortLink, /],
    [['no.such.Service/Call'], /the server has no service no\.such\.Service; it has /],
    [['GetShortLink', '{not json'], /the body is not JSON/],
    [
      ['GetShortLink', '{"no_such_field":1}'],
      /the body is not a shortlink\.v1\.GetShortLinkRequest: .*no_such_field/,
    ],
    [['grpc.health.v1.Health/Watch'], /is a streaming method; only unary calls are made/],
    [['GetShortLink', '--header', 'no colon'], /--header "no colon" is not "<name>: <value>"/],
    [['GetShortLink', '--timeout', '0'], /--timeout must be a number of seconds above 0/],
    [['GetShortLink', '--no-such-option'], /Unknown option '--no-such-option'/],
    [[], /which method\?/],
  ])('refuses %j with a line saying why, exit status 2', async (args, message) => {
    const refused = await grpcCall([...args, '--address', grpc.address]);
    expect(refused).toEqual({ exitCode: 2, stdout: '', stderr: expect.stringMatching(message) });
    expect(refused.stderr).toMatch(/^grpc: [^\n]+\n$/);
  });

  it('prints its usage with --help', async () => {
    const help = await grpcCall(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run grpc -- <method> \['<json body>'\] \[options\]/);
  });
});
