import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ROOT } from '../support/compile-to-temp';
import { describeNeeding } from '../support/system-tools';

/**
 * The container image of gateway-http/Containerfile, built and run with podman as an operator
 * would: built from the repository's root, started with a named volume for /data and published
 * ports, its demo banner read from `podman logs`, a link created over REST and followed, the
 * container stopped (SIGTERM) and removed, a new one started on the same volume, and the link
 * followed again. Prints the image's size and how long the build took.
 *
 * The base is SHORTLINK_NODE_IMAGE when set (e.g. docker.io/library/node:24-bookworm-slim where a
 * registry is reachable), else localhost/shortlink-node24-base, made by make-base.sh beside this
 * file when missing and kept for the next run. Everything else it makes (image, containers,
 * volume) is removed at the end.
 *
 * Needs podman (root; debootstrap for the base): skipped where it is missing, failing under
 * CI=true. SHORTLINK_CONTAINER_TEST=0 skips it: .ci/run sets that on its first (machine Node) run
 * so that the image is built once per CI run, on the Node 24 run.
 */

const LOCAL_BASE = 'localhost/shortlink-node24-base';
const BASE = process.env.SHORTLINK_NODE_IMAGE || LOCAL_BASE;
const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
const IMAGE = `localhost/shortlink-image-test:${RUN_ID}`;
const VOLUME = `shortlink-image-test-${RUN_ID}`;
const FIRST = `shortlink-image-test-${RUN_ID}-first`;
const SECOND = `shortlink-image-test-${RUN_ID}-second`;
/** The demo's link domain inside the container: localhost on the container's own PORT. */
const LINK_HOST = 'localhost:8080';

const MINUTE = 60_000;
/** Bounds: making the base (debootstrap and npm) and building the image each take 1 to 3 minutes. */
const BASE_TIMEOUT_MS = 15 * MINUTE;
const BUILD_TIMEOUT_MS = 15 * MINUTE;
const COMMAND_TIMEOUT_MS = 2 * MINUTE;

const env = {
  ...process.env,
  // runc and lower default ulimits (the file says why), unless the caller has its own settings.
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(__dirname, 'containers.conf'),
};

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command from the repository's root, bounded in time; never rejects. */
function run(file: string, args: string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: ROOT, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const exited = typeof error?.code === 'number';
        const code = error ? (exited ? (error.code as number) : -1) : 0;
        // Why it did not finish or run: the time bound reached, or the program missing.
        const why = error?.killed
          ? `(killed after ${timeoutMs} ms)`
          : error && !exited
            ? error.message
            : '';
        resolve({ code, stdout, stderr: `${stderr}\n${why}`.trim() });
      },
    );
  });
}

/** `podman ...`, expecting exit code 0; its stdout, trimmed. */
async function podman(args: string[], timeoutMs = COMMAND_TIMEOUT_MS): Promise<string> {
  const ran = await run('podman', args, timeoutMs);
  if (ran.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited ${ran.code}:\n${ran.stderr}\n${ran.stdout}`);
  }
  return ran.stdout.trim();
}

/** The CA bundle this host's npm trusts, if it names one: the build's npm needs it too. */
async function npmCaFile(): Promise<string | undefined> {
  const fromNpm = (await run('npm', ['config', 'get', 'cafile'])).stdout.trim();
  for (const candidate of [fromNpm, process.env.NODE_EXTRA_CA_CERTS ?? '']) {
    if (candidate.startsWith('/') && existsSync(candidate)) return candidate;
  }
  return undefined;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request to 127.0.0.1:`port` with the given Host, bounded in time. */
function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { host: LINK_HOST, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a container of the image on the volume, its REST port published on a free local port. */
async function start(name: string): Promise<number> {
  await podman([
    'run',
    '--detach',
    '--name',
    name,
    '--volume',
    `${VOLUME}:/data`,
    '--publish',
    '127.0.0.1::8080',
    '--publish',
    '127.0.0.1::50051',
    IMAGE,
  ]);
  const port = Number(/:(\d+)\s*$/.exec(await podman(['port', name, '8080/tcp']))?.[1]);
  expect(port).toBeGreaterThan(0);
  // Up once /healthz answers 200 through the published port (or the container has stopped).
  const deadline = Date.now() + MINUTE;
  for (;;) {
    const answer = await http(port, 'GET', '/healthz').catch(() => undefined);
    if (answer?.status === 200) return port;
    const state = await podman(['inspect', '--format', '{{.State.Status}}', name]);
    if (state !== 'running' || Date.now() > deadline) {
      throw new Error(`${name} is ${state}, /healthz not answering:\n${await logs(name)}`);
    }
    await sleep(250);
  }
}

/** Everything the container printed (stdout and stderr). */
async function logs(name: string): Promise<string> {
  const ran = await run('podman', ['logs', name]);
  return ran.stdout + ran.stderr;
}

/** The JSON log lines of a container. */
function logLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Stops a container as `podman stop` does (SIGTERM, then SIGKILL after 30 s); its exit code. */
async function stop(name: string): Promise<number> {
  await podman(['stop', '--time', '30', name]);
  return Number(await podman(['inspect', '--format', '{{.State.ExitCode}}', name]));
}

describeNeeding('podman')('the container image (gateway-http/Containerfile)', () => {
  if (process.env.SHORTLINK_CONTAINER_TEST === '0') {
    it.skip('is not built on this run (SHORTLINK_CONTAINER_TEST=0)', () => undefined);
    return;
  }

  afterAll(async () => {
    await run('podman', ['rm', '--force', '--time', '0', FIRST, SECOND]);
    await run('podman', ['volume', 'rm', '--force', VOLUME]);
    await run('podman', ['rmi', '--force', IMAGE]);
  }, 2 * COMMAND_TIMEOUT_MS);

  it(
    'builds from the repository root: dist/ and production dependencies, a user of its own',
    async () => {
      if (BASE === LOCAL_BASE && (await run('podman', ['image', 'exists', BASE])).code !== 0) {
        const started = Date.now();
        const made = await run('bash', [join(__dirname, 'make-base.sh'), BASE], BASE_TIMEOUT_MS);
        if (made.code !== 0) throw new Error(`make-base.sh failed:\n${made.stdout}${made.stderr}`);
        process.stdout.write(
          `container image test: made the base ${BASE} in ${Math.round((Date.now() - started) / 1000)} s\n`,
        );
      }
      const ca = await npmCaFile();
      const started = Date.now();
      await podman(
        [
          'build',
          '--format',
          'docker',
          // The npm registry through this host's network (and CA bundle, as a secret).
          '--network',
          'host',
          ...(ca ? ['--secret', `id=npm_ca,src=${ca}`] : []),
          // No intermediate images left behind (each run builds from scratch).
          '--layers=false',
          '--build-arg',
          `NODE_IMAGE=${BASE}`,
          '--tag',
          IMAGE,
          '--file',
          'gateway-http/Containerfile',
          '.',
        ],
        BUILD_TIMEOUT_MS,
      );
      const seconds = Math.round((Date.now() - started) / 1000);
      const [inspected] = JSON.parse(await podman(['image', 'inspect', IMAGE])) as Array<{
        Size: number;
        Config: {
          User?: string;
          Env?: string[];
          Cmd?: string[];
          Volumes?: Record<string, unknown>;
          ExposedPorts?: Record<string, unknown>;
        };
        Healthcheck?: { Test?: string[] };
      }>;
      process.stdout.write(
        `container image test: built ${IMAGE} on ${BASE} in ${seconds} s, ` +
          `${(inspected!.Size / 1e6).toFixed(0)} MB\n`,
      );
      const config = inspected!.Config;
      expect(config.User).toBe('shortlink');
      expect(config.Cmd).toEqual(['node', 'dist/gateway-http/main.js']);
      expect(config.Env).toEqual(
        expect.arrayContaining(['HOST=0.0.0.0', 'DATA_DIR=/data', 'METRICS_HOST=127.0.0.1']),
      );
      expect(Object.keys(config.Volumes ?? {})).toEqual(['/data']);
      expect(Object.keys(config.ExposedPorts ?? {}).sort()).toEqual([
        '50051/tcp',
        '8080/tcp',
        '9464/tcp',
      ]);
      expect(inspected!.Healthcheck?.Test?.join(' ')).toContain('/healthz');

      // Only the compiled service and its production dependencies: no sources, no TypeScript.
      const contents = await podman([
        'run',
        '--rm',
        IMAGE,
        'sh',
        '-c',
        'ls; ls node_modules | grep -x -e typescript -e jest -e lmdb -e express; stat -c "%U %a" /data',
      ]);
      expect(contents.split('\n')).toEqual([
        'dist',
        'node_modules',
        'package-lock.json',
        'package.json',
        'express',
        'lmdb',
        'shortlink 700',
      ]);
    },
    BASE_TIMEOUT_MS + BUILD_TIMEOUT_MS,
  );

  it(
    'serves the demo, keeps a link on its volume across containers, stops on SIGTERM',
    async () => {
      await podman(['volume', 'create', VOLUME]);
      const port = await start(FIRST);

      // The demo banner, printed once on the empty volume.
      let banner = '';
      const deadline = Date.now() + 30_000;
      while (!/organization secret key:/.test(banner) && Date.now() < deadline) {
        banner = await logs(FIRST);
        if (!/organization secret key:/.test(banner)) await sleep(250);
      }
      const token = /personal access token:\s+(slpat_\S+)/.exec(banner)?.[1];
      const organizationKey = /organization secret key:\s+(slorg_\S+)/.exec(banner)?.[1];
      expect(token).toBeDefined();
      expect(organizationKey).toBeDefined();
      expect(banner).toContain('the embedded LMDB store in /data (kept across restarts)');
      expect(banner).toContain(`link domain:             ${LINK_HOST}`);

      // Metrics answer inside the container only: bound to its loopback, not published.
      const metrics = logLines(banner).find((line) => line.msg === 'metrics gateway listening');
      expect(metrics).toMatchObject({ host: '127.0.0.1', port: 9464 });
      expect(await podman(['port', FIRST])).not.toContain('9464');
      await podman([
        'exec',
        FIRST,
        'node',
        '-e',
        "fetch('http://127.0.0.1:9464/metrics').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))",
      ]);
      // The image's HEALTHCHECK (node, no curl) passes; the service runs as its own user.
      await podman(['healthcheck', 'run', FIRST]);
      expect(await podman(['exec', FIRST, 'id', '-un'])).toBe('shortlink');

      const target = 'https://example.com/from/a/container';
      const created = await http(
        port,
        'POST',
        '/api/create',
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        JSON.stringify({
          organization_key: organizationKey,
          url_group_id: '1',
          url: target,
          alias: 'boxed',
          redirect_type: 302,
        }),
      );
      expect(JSON.parse(created.body)).toMatchObject({
        code: 0,
        data: { short_url: `http://${LINK_HOST}/boxed`, url: target },
      });
      const followed = await http(port, 'GET', '/boxed');
      expect(followed.status).toBe(302);
      expect(followed.headers.location).toBe(target);
      // The admin CLI runs beside the server in the same container, on the same store.
      const admin = ['node', 'dist/core/cli/admin.js'];
      const shown = await podman([
        'exec',
        FIRST,
        ...admin,
        'link',
        'show',
        '--domain',
        LINK_HOST,
        '--alias',
        'boxed',
      ]);
      expect(JSON.parse(shown)).toMatchObject({ url: target, state: 'active' });

      // SIGTERM: a graceful stop, exit code 0.
      expect(await stop(FIRST)).toBe(0);
      expect(logLines(await logs(FIRST))).toContainEqual(
        expect.objectContaining({ msg: 'shutting down', signal: 'SIGTERM' }),
      );
      await podman(['rm', FIRST]);

      // A new container on the same volume: no new demo, the link and the credentials kept.
      const again = await start(SECOND);
      expect(await logs(SECOND)).not.toContain('These secrets are shown once');
      const refollowed = await http(again, 'GET', '/boxed');
      expect(refollowed.status).toBe(302);
      expect(refollowed.headers.location).toBe(target);
      const retaken = await http(
        again,
        'POST',
        '/api/create',
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        JSON.stringify({
          organization_key: organizationKey,
          url_group_id: '1',
          url: target,
          alias: 'boxed',
        }),
      );
      expect(JSON.parse(retaken.body)).toMatchObject({ code: 15 });
      expect(await stop(SECOND)).toBe(0);
    },
    5 * MINUTE,
  );
});
