// Starts the real n8n editor (`n8n start`) on a free port with the package installed, sets up
// the owner account through n8n's REST API, opens a workflow with our nodes in Debian's
// chromium (playwright-core, headless) and takes screenshots of the canvas and of the
// Observation Trigger's parameter panel.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const browserArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

async function waitForHttp(url, child, timeoutMs) {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`n8n did not answer ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * @param {{ packageDir: string, nodeBin: string, n8nBin: string, env: Record<string,string>, port: number,
 *   workflowId: string, canvasPng: string, panelPng: string, eventPng: string, log: (m: string) => void,
 *   startEvents: () => void, stopEvents: () => void,
 *   afterStart?: (request: import('playwright-core').APIRequestContext, base: string) => Promise<unknown> }} options
 * @returns {Promise<{ canvasHasNodes: boolean, panelShowsParameters: boolean, testEventShown: boolean }>}
 */
export async function captureEditor(options) {
  const require = createRequire(join(options.packageDir, 'package.json'));
  const { chromium } = require('playwright-core');
  const base = `http://127.0.0.1:${options.port}`;
  const child = spawn(options.nodeBin, [options.n8nBin, 'start'], {
    env: {
      ...options.env,
      N8N_PORT: String(options.port),
      N8N_LISTEN_ADDRESS: '127.0.0.1',
      N8N_HOST: '127.0.0.1',
      N8N_SECURE_COOKIE: 'false',
      N8N_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  let browser;
  try {
    // /healthz answers before the REST routes are mounted; the settings route means ready.
    await waitForHttp(`${base}/rest/settings`, child, 120_000);
    options.log(`n8n editor up at ${base}`);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: browserArgs,
    });
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      deviceScaleFactor: 1,
    });
    const setup = await context.request.post(`${base}/rest/owner/setup`, {
      data: {
        email: 'owner@example.com',
        firstName: 'Demo',
        lastName: 'Owner',
        password: 'Owner-pass-2024!',
      },
    });
    if (!setup.ok()) throw new Error(`owner setup failed: HTTP ${setup.status()} ${await setup.text()}`);
    const production = options.afterStart ? await options.afterStart(context.request, base) : undefined;
    const page = await context.newPage();
    await page.goto(`${base}/workflow/${options.workflowId}`, { waitUntil: 'networkidle' });
    const canvasNode = page
      .locator('[data-test-id="canvas-node"]')
      .filter({ hasText: 'Observation Trigger' });
    await canvasNode.first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: options.canvasPng });
    const canvasHasNodes = (await canvasNode.count()) > 0;
    await canvasNode.first().dblclick();
    const panel = page.locator('[data-test-id="ndv"]');
    await panel.waitFor({ timeout: 30_000 });
    await page
      .getByText('Catch Up on Missed Events')
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: options.panelPng });
    const panelText = (await panel.textContent()) ?? '';
    const panelShowsParameters = /Tasks/.test(panelText) && /Filters/.test(panelText);

    // "Listen for test event" in the real editor: the first matching event shows in the output.
    await panel
      .getByRole('button', { name: /test this trigger/i })
      .first()
      .click();
    options.startEvents();
    let testEventShown = false;
    try {
      // The canvas also says "1 item" (behind the panel): only the visible one counts.
      await panel
        .getByText(/^\s*1 item\s*$/)
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: 60_000 });
      // n8n opens on the Binary view when an item has binary data; the table shows the fields.
      await panel
        .getByText(/^\s*Table\s*$/)
        .filter({ visible: true })
        .first()
        .click();
      await panel
        .getByText(/^\s*eventName\s*$/)
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: 15_000 });
      testEventShown = true;
    } catch (error) {
      options.log(`no test event shown: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
      if (process.env.E2E_DEBUG)
        options.log(((await page.locator('body').textContent()) ?? '').slice(0, 2000));
    } finally {
      options.stopEvents();
    }
    await page.waitForTimeout(1500);
    await page.screenshot({ path: options.eventPng });
    return { canvasHasNodes, panelShowsParameters, testEventShown, production };
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- n8n output ---\n${output.slice(-3000)}`,
    );
  } finally {
    await browser?.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve();
      else child.on('exit', resolve);
    });
  }
}
