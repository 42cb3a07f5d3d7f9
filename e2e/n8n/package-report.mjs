// Adds an e2e script's checks to packages/n8n-nodes/.vitest-report.json, so `npm test`'s closing
// summary (scripts/run.mjs) counts them with the package's vitest tests.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from './n8n-install.mjs';

/** `checks`: [{ name, ok, detail? }]; `file` names the script, `suite` prefixes each title. */
export function mergeIntoPackageReport(checks, file, suite) {
  const reportPath = join(packageDir, '.vitest-report.json');
  if (!existsSync(reportPath)) return;
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  const passed = checks.filter((check) => check.ok).length;
  const failed = checks.length - passed;
  report.numTotalTests += checks.length;
  report.numPassedTests += passed;
  report.numFailedTests += failed;
  report.numTotalTestSuites += 1;
  if (failed > 0) report.success = false;
  report.testResults.push({
    name: file,
    status: failed > 0 ? 'failed' : 'passed',
    assertionResults: checks.map((check) => ({
      title: check.name,
      fullName: `${suite} > ${check.name}`,
      status: check.ok ? 'passed' : 'failed',
      failureMessages: check.ok ? [] : [check.detail ?? 'failed'],
    })),
  });
  writeFileSync(reportPath, JSON.stringify(report));
}
