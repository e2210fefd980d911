import { startChildService, type ChildService } from './child-service';
import { sendRaw } from './raw-http';
import { UNLIMITED } from './in-process-service';
import { compileToTemp, type TempBuild } from './compile-to-temp';
import { tempDirs } from './temp-dirs';

/**
 * For a test file that runs the compiled admin CLI beside a real server: the build is compiled
 * once before the file's tests; after them, every server still running is killed and the build and
 * the temporary folders are removed.
 */
export function adminBesideServer(name: string) {
  const dirs = tempDirs(name);
  let build: TempBuild | undefined;
  const servers: ChildService[] = [];

  beforeAll(async () => {
    build = await compileToTemp();
  });
  afterAll(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
    await build?.remove();
    await dirs.removeAll();
  });

  const buildDir = (): string => {
    if (!build) throw new Error('the build is made in beforeAll');
    return build.dir;
  };
  return {
    dirs,
    buildDir,
    /**
     * The compiled server on `dataDir`, unlimited, with `env` over that. The CLI is another
     * process: the server sees its changes within IDENTITY_CACHE_TTL_SECONDS, here 1 s.
     */
    async startServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildService> {
      const server = await startChildService(buildDir(), {
        ...UNLIMITED,
        DATA_DIR: dataDir,
        IDENTITY_CACHE_TTL_SECONDS: '1',
        ...env,
      });
      servers.push(server);
      return server;
    },
  };
}

/** A REST create in URL group "1" with a chosen alias, its target named after the alias. */
export function createWithAlias(
  port: number,
  token: string,
  organizationKey: string,
  alias: string,
) {
  return sendRaw({
    port,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      organization_key: organizationKey,
      url_group_id: '1',
      url: `https://example.com/${alias}`,
      alias,
    }),
  });
}
