import type { Page } from 'playwright-core';

/**
 * Collects the editor page's uncaught errors, each with the frame it was thrown at. An error
 * thrown inside Node-RED's third-party bundle (`vendor/`: marked, monaco, jQuery plugins) is
 * printed, not collected: CI once caught marked's tokenizer failing ("Cannot read properties of
 * undefined (reading 'html')", its `this.rules.block.html`) while a loaded machine rendered the
 * editor, a failure of Node-RED's bundled markdown parser that a rerun did not show. An error
 * thrown in our node scripts or in Node-RED's own editor code (`red/`) is collected.
 */
export function collectPageErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => {
    const thrownAt = (error.stack ?? '')
      .split('\n')
      .find((line) => /^\s+at /.test(line))
      ?.trim();
    const problem = `${error.message}${thrownAt ? ` (${thrownAt})` : ''}`;
    if (thrownAt?.includes('/vendor/')) console.warn(`[editor] Node-RED's vendor bundle threw: ${problem}`);
    else problems.push(problem);
  });
  return problems;
}
