// Writes an e2e script's checks as a report of its own beside the n8n package's vitest report
// (packages/n8n-nodes/.vitest-report.<part>.json), in vitest's JSON shape, so `npm test`'s
// closing summary (scripts/run.mjs counts every `.vitest-report*.json`) counts them. A report of
// its own, not a merge into vitest's: the e2e and the queue-mode e2e run as tasks of their own,
// beside the package's vitest run, which writes its report whenever it ends.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from './n8n-install.mjs';

/** `checks`: [{ name, ok, detail? }]; `file` names the script, `suite` prefixes each title. */
export function writePackageReport(checks, { part, file, suite }) {
  const passed = checks.filter((check) => check.ok).length;
  const failed = checks.length - passed;
  const report = {
    numTotalTests: checks.length,
    numPassedTests: passed,
    numFailedTests: failed,
    numPendingTests: 0,
    numTodoTests: 0,
    numTotalTestSuites: 1,
    success: failed === 0,
    testResults: [
      {
        name: file,
        status: failed > 0 ? 'failed' : 'passed',
        assertionResults: checks.map((check) => ({
          title: check.name,
          fullName: `${suite} > ${check.name}`,
          status: check.ok ? 'passed' : 'failed',
          failureMessages: check.ok ? [] : [check.detail ?? 'failed'],
        })),
      },
    ],
  };
  writeFileSync(join(packageDir, `.vitest-report.${part}.json`), JSON.stringify(report));
}

/**
 * The end of an e2e script: its checks reported (as above), "<label>: N passed, N failed"
 * printed, and the exit code set (1 when a check failed).
 */
export function reportChecks(checks, { part, file, suite, label }) {
  writePackageReport(checks, { part, file, suite });
  const passed = checks.filter((check) => check.ok).length;
  const failed = checks.length - passed;
  console.log(`${label}: ${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}
