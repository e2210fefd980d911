import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ErrorCode } from '../../core';
import { compileToTemp, ROOT, type TempBuild } from '../support/compile-to-temp';
import type { CoreFixture } from '../support/core-fixture';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';
import { readmeCodeBlock } from '../support/readme-code';
import { tempDirs } from '../support/temp-dirs';

jest.setTimeout(60_000);

const run = promisify(execFile);
const dirs = tempDirs('readme-client');

/**
 * A node that runs TypeScript by stripping its types (Node 22.18+, 24): this one, else the Node 24
 * that .ci/run installs (its Node 24 run runs this test on its own node anyway).
 */
function typeStrippingNode(): string | undefined {
  if ((process.features as { typescript?: unknown }).typescript) return process.execPath;
  const installed = ['/opt', join(homedir(), '.cache')].map((dir) =>
    join(dir, 'shortlink-node24', 'node_modules', '.bin', 'node'),
  );
  return installed.find((node) => existsSync(node));
}
const node = typeStrippingNode();

/**
 * The gateway-grpc/README.md Node client example, saved as `client.mts` at the root of a project
 * holding a build of this tree as `dist/` and the repository's node_modules, run with `node
 * client.mts` as the README says, against a test server.
 */
(node ? describe : describe.skip)(
  `the gateway-grpc/README.md Node client, run by node${node ? '' : ' (skipped: this Node does not strip types and no Node 24 is installed)'}`,
  () => {
    let f: CoreFixture;
    let grpc: GrpcFixture;
    let build: TempBuild;
    let project: string;

    beforeAll(async () => {
      [{ f, grpc }, build, project] = await Promise.all([
        startGrpcOnTestCore(),
        compileToTemp(),
        dirs.make(),
      ]);
      await symlink(join(ROOT, 'node_modules'), join(build.dir, 'node_modules'), 'dir');
      await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
      await symlink(build.dir, join(project, 'dist'), 'dir');
      const printed = readmeCodeBlock('gateway-grpc/README.md', 'Calling it from a Node service');
      expect(printed).toContain("'127.0.0.1:50051'");
      const onThisServer = printed.replace("'127.0.0.1:50051'", `'${grpc.address}'`);
      await writeFile(join(project, 'client.mts'), onThisServer);
    });
    afterAll(async () => {
      await grpc?.close();
      await build?.remove();
      await dirs.removeAll();
    });

    async function client(token: string) {
      const env = {
        PATH: process.env.PATH ?? '',
        SHORTLINK_TOKEN: token,
        SHORTLINK_ORGANIZATION_KEY: f.organizationKey,
      };
      return run(node!, ['client.mts'], { cwd: project, env, timeout: 30_000 });
    }

    it('creates a link and prints its short URL', async () => {
      const { stdout, stderr } = await client(f.token);
      expect(stderr).toBe('');
      expect(stdout).toMatch(new RegExp(`^https://${f.domain}/[0-9A-Za-z]{7}\\n$`));
    });

    it('prints a failure as its code and reason', async () => {
      const { stdout, stderr } = await client('slpat_unknown');
      expect(stdout).toBe('');
      expect(stderr).toContain(`code: ${ErrorCode.TOKEN_UNKNOWN},`);
      expect(stderr).toContain("reason: 'TOKEN_UNKNOWN',");
    });
  },
);
