import type { Page } from 'playwright-core';

/**
 * Collects the editor page's uncaught errors, each with the frame it was thrown at, so that a
 * failure says whose code threw (our node scripts, or Node-RED's `red/` and `vendor/` bundles).
 * Every error counts: the one Node-RED error CI met ("reading 'html'", the info tips' timer) is
 * kept from happening by the harness, which turns the tips off, not filtered here.
 */
export function collectPageErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => {
    const thrownAt = (error.stack ?? '')
      .split('\n')
      .find((line) => /^\s+at /.test(line))
      ?.trim();
    problems.push(`${error.message}${thrownAt ? ` (${thrownAt})` : ''}`);
  });
  return problems;
}
