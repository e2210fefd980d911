import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './compile-to-temp';

export interface AdminRun {
  /** The exit status (0 on success). */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled admin CLI of `buildDir` (a compileToTemp build) as `npm run admin -- <args>`
 * does, with only the environment given, and resolves with its exit status and output whatever
 * the status. Its standard input is empty.
 */
export function runAdmin(
  buildDir: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<AdminRun> {
  return runAdminWithInput(buildDir, env, '', ...args);
}

/** Like runAdmin, with `input` as the CLI's standard input (`token revoke` reads a token there). */
export function runAdminWithInput(
  buildDir: string,
  env: Record<string, string>,
  input: string,
  ...args: string[]
): Promise<AdminRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(buildDir, 'core', 'cli', 'admin.js'), ...args],
      { env: { PATH: process.env.PATH ?? '', NODE_PATH: join(ROOT, 'node_modules'), ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // A CLI that exits without reading its input closes the pipe: that is no failure here.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** The secret an admin command printed once. */
export const shownOnce = (output: string) => /\(shown once\): (\S+)/.exec(output)?.[1] ?? '';

/** Runs the CLI as runAdmin does and expects it to succeed silently on standard error: its output. */
export async function adminSucceeds(
  buildDir: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<string> {
  const run = await runAdmin(buildDir, env, ...args);
  expect({ args, ...run }).toMatchObject({ args, code: 0, stderr: '' });
  return run.stdout;
}

/** Runs the CLI as runAdmin does and expects it refused: exit status 2, nothing on standard output. */
export async function adminRefused(
  buildDir: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<AdminRun> {
  const run = await runAdmin(buildDir, env, ...args);
  expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
  return run;
}
