/**
 * Tests that need a system program (promtool, Chromium, podman) run where it is installed; where it
 * is not, they are reported as skipped and the run ends with one line naming the tool and its
 * install command (missing-tools-reporter.js). Under `CI=true` they run anyway and fail, so CI never passes
 * without them.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tools = require('./system-tool-list.js') as {
  SYSTEM_TOOLS: Record<SystemTool, { found(): boolean; install: string }>;
  mustRun(): boolean;
};

export type SystemTool = 'promtool' | 'chromium' | 'podman';

function runs(tool: SystemTool): boolean {
  return tools.mustRun() || tools.SYSTEM_TOOLS[tool].found();
}

/** `it`, or `it.skip` where `tool` is missing outside CI. */
export function itNeeding(tool: SystemTool): jest.It {
  return runs(tool) ? it : it.skip;
}

/** `describe`, or `describe.skip` where `tool` is missing outside CI. */
export function describeNeeding(tool: SystemTool): jest.Describe {
  return runs(tool) ? describe : describe.skip;
}
