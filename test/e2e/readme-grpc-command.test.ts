import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../gateway-http/service';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import { startInProcessService } from '../support/in-process-service';
import { readmeCodeBlocks } from '../support/readme-code';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(120_000);

const run = promisify(execFile);
const README = 'README.md';
const HEADING = 'The same over gRPC';
const readme = readFileSync(join(ROOT, README), 'utf8');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;
const dirs = tempDirs('grpc-command');

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** What the CLI printed, without the lines npm prints around it (`> grpc`, `npm error ...`). */
function printedText(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^(>|npm )/.test(line) && line.trim() !== '')
    .join('\n');
}

/**
 * The root README's `npm run grpc` lines, run as printed in bash against `npm start`'s composition:
 * in a project holding the repository's `grpc` script, node_modules and a build of this tree (as
 * `dist/`), with the banner's secrets for `TOKEN` and `ORG_KEY` and this service's ports.
 */
describe('the root README: npm run grpc', () => {
  let service: Service;
  let build: TempBuild;
  let project: string;
  let onThisService: (text: string) => string;

  beforeAll(async () => {
    [service, build] = await Promise.all([startInProcessService(), compileToTemp()]);
    await symlink(join(ROOT, 'node_modules'), join(build.dir, 'node_modules'), 'dir');
    project = await dirs.make();
    await symlink(build.dir, join(project, 'dist'), 'dir');
    const manifest = { name: 'grpc-command-probe', private: true, scripts: { grpc: scripts.grpc } };
    await writeFile(join(project, 'package.json'), JSON.stringify(manifest));
    onThisService = (text) => text.replaceAll('localhost:8080', `localhost:${service.http.port}`);
  });
  afterAll(async () => {
    await service?.shutdown();
    await build?.remove();
    await dirs.removeAll();
  });

  /** Runs `line` in bash after the banner's secrets and the block's set-up lines. */
  async function shell(setUp: string[], line: string): Promise<Outcome> {
    const { token, organizationKey } = service.demo!;
    const script = [`TOKEN='${token}'`, `ORG_KEY='${organizationKey}'`, ...setUp, line].join('\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GRPC_PORT: String(service.grpc.port),
      npm_config_update_notifier: 'false',
    };
    delete env.SHORTLINK_TOKEN;
    try {
      const { stdout, stderr } = await run('bash', ['-c', onThisService(script)], {
        cwd: project,
        env,
        timeout: 60_000,
      });
      return { exitCode: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { exitCode: code, stdout, stderr };
    }
  }

  it('creates, resolves and reports a failure as the README prints them', async () => {
    const block = readmeCodeBlocks(README, HEADING, 'sh').find((code) =>
      code.includes('npm run grpc'),
    );
    expect(block).toBeDefined();
    const lines = block!.split('\n').filter((line) => line.trim() !== '');
    const commands = lines.filter((line) => line.startsWith('npm run grpc'));
    const setUp = lines.filter((line) => !line.startsWith('npm run grpc'));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    const printed = /The create prints `(\{"shortLink": .*?\})`/s.exec(readme)?.[1];
    const shortUrl = /"shortUrl": "([^"]+)"/.exec(onThisService(printed ?? ''))?.[1];
    expect(shortUrl).toBeDefined();

    const answers: unknown[] = [];
    let failures = 0;
    for (const command of commands) {
      const outcome = await shell(setUp, command);
      // A line the README marks `# <STATUS>, code <n>` fails with them; every other line answers.
      const expected = /#\s*([A-Z_]+), code (\d+)/.exec(command);
      if (expected) {
        failures += 1;
        const { exitCode, stdout } = outcome;
        expect({ command, exitCode, stdout: printedText(stdout) }).toEqual({
          command,
          exitCode: 1,
          stdout: '',
        });
        expect(JSON.parse(printedText(outcome.stderr))).toMatchObject({
          status: expected[1],
          code: Number(expected[2]),
          reason: expect.any(String),
          message: expect.any(String),
        });
      } else {
        const { exitCode, stderr } = outcome;
        expect({ command, exitCode, stderr: printedText(stderr) }).toEqual({
          command,
          exitCode: 0,
          stderr: '',
        });
        answers.push(JSON.parse(printedText(outcome.stdout)));
      }
    }
    expect(failures).toBeGreaterThan(0);
    const [created, resolved] = answers as Array<{ shortLink: Record<string, unknown> }>;
    expect(created!.shortLink).toMatchObject({ id: expect.stringMatching(/^\d+$/), shortUrl });
    expect(resolved!.shortLink).toMatchObject({ shortUrl });
  });
});
