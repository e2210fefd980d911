// A jest reporter: when tests were skipped because a system program is missing here (see
// system-tools.ts), the run ends with one line saying which and how to install it.
const { SYSTEM_TOOLS, mustRun, missingTools } = require('./system-tool-list.js');

class MissingToolsReporter {
  onRunComplete(_contexts, results) {
    const missing = missingTools();
    if (mustRun() || missing.length === 0 || results.numPendingTests === 0) return;
    const named = missing.map((name) => `${name} (${SYSTEM_TOOLS[name].install})`).join('; ');
    process.stderr.write(
      `Skipped the tests that need ${named}: not installed here; CI=true makes them fail.\n`,
    );
  }
}

module.exports = MissingToolsReporter;
