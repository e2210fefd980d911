// The system programs some tests drive (not npm packages): where each is looked for and how to
// install it. CommonJS, so that both the tests (through system-tools.ts) and the jest reporter that
// prints the closing line (missing-tools-reporter.js) read the same list.
const { accessSync, constants } = require('node:fs');
const { delimiter, join } = require('node:path');

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && executable(join(dir, name)));
}

const SYSTEM_TOOLS = {
  promtool: {
    found: () => onPath('promtool'),
    install: 'apt-get install prometheus',
  },
  chromium: {
    found: () => executable(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'),
    install: 'apt-get install chromium, or set CHROMIUM_PATH',
  },
  podman: {
    found: () => onPath('podman'),
    install: 'apt-get install podman runc debootstrap',
  },
};

/** Under CI=true a missing tool is not skipped: its tests run and fail. */
function mustRun() {
  return process.env.CI === 'true' || process.env.CI === '1';
}

/** The tools that are missing here, by name. */
function missingTools() {
  return Object.keys(SYSTEM_TOOLS).filter((name) => !SYSTEM_TOOLS[name].found());
}

module.exports = { SYSTEM_TOOLS, mustRun, missingTools };
