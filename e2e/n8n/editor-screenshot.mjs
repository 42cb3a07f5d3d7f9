// Starts the real n8n editor (`n8n start`) on a free port with the package installed, sets up
// the owner account through n8n's REST API, opens a workflow with our nodes in Debian's
// chromium (playwright-core, headless) and takes screenshots of the canvas and of the
// Observation Trigger's parameter panel; then, in the same session, a first user's hour
// (editor-first-hour.mjs) when the caller passes `firstHour`.
import { browserArgs, owner, playwrightFor, startN8nServer } from './n8n-server.mjs';

/**
 * @param {{ packageDir: string, nodeBin: string, n8nBin: string, env: Record<string,string>, port: number,
 *   workflowId: string, canvasPng: string, panelPng: string, eventPng: string, log: (m: string) => void,
 *   liveEventsEmitted: () => number,
 *   afterStart?: (request: import('playwright-core').APIRequestContext, base: string) => Promise<unknown>,
 *   firstHour?: (context: import('playwright-core').BrowserContext, base: string) => Promise<unknown> }} options
 * @returns {Promise<{ canvasHasNodes: boolean, panelShowsParameters: boolean, testEventShown: boolean, testEventMs?: number, production?: unknown, firstHour?: unknown }>}
 */
export async function captureEditor(options) {
  const playwright = playwrightFor(options.packageDir);
  // n8n's editor marks its elements with data-test-id (getByTestId reads that attribute).
  playwright.selectors.setTestIdAttribute('data-test-id');
  const { chromium } = playwright;
  const server = await startN8nServer({
    nodeBin: options.nodeBin,
    n8nBin: options.n8nBin,
    env: options.env,
    port: options.port,
  });
  const { base } = server;
  let browser;
  try {
    options.log(`n8n editor up at ${base}`);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: browserArgs,
    });
    const context = await browser.newContext({
      // The README's screenshots are taken at this size.
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
    });
    const setup = await context.request.post(`${base}/rest/owner/setup`, { data: owner });
    if (!setup.ok()) throw new Error(`owner setup failed: HTTP ${setup.status()} ${await setup.text()}`);
    const production = options.afterStart ? await options.afterStart(context.request, base) : undefined;
    const page = await context.newPage();
    // Requests the editor's page made that failed: what the log says when the canvas stays empty.
    const failed = [];
    page.on('requestfailed', (request) =>
      failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    page.on('response', (response) => {
      if (response.status() >= 400)
        failed.push(`${response.request().method()} ${response.url()}: HTTP ${response.status()}`);
    });
    await page.goto(`${base}/workflow/${options.workflowId}`, { waitUntil: 'networkidle' });
    const canvasNode = page
      .locator('[data-test-id="canvas-node"]')
      .filter({ hasText: 'Observation Trigger' });
    // A CI run on a loaded 2-core machine once found the canvas still empty after 60 s: the log
    // says what the page showed and which requests failed, and the user's next step, a reload,
    // is taken once before the check fails.
    await canvasNode
      .first()
      .waitFor({ timeout: 60_000 })
      .catch(async (error) => {
        const shown = (
          (await page
            .locator('body')
            .textContent()
            .catch(() => '')) ?? ''
        ).replace(/\s+/g, ' ');
        options.log(
          `no canvas node 60 s after opening ${page.url()}: ${String(error).split('\n')[0]}; the page showed "${shown.slice(0, 300)}"; failed requests: ${failed.slice(-5).join('; ') || 'none'}; reloading once`,
        );
        await page.reload({ waitUntil: 'networkidle' });
        await canvasNode.first().waitFor({ timeout: 60_000 });
      });
    await page.waitForTimeout(1500);
    // n8n opens its "Production Checklist" over the canvas of a published workflow: closed, as a
    // user would, so the screenshot shows the nodes.
    const checklistClose = page.getByTestId('suggested-actions-close').filter({ visible: true });
    if ((await checklistClose.count()) > 0) await checklistClose.first().click();
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

    // "Listen for test event" in the real editor: with no live event published meanwhile, the
    // newest matching event from history shows at once, marked as a test event.
    const liveBefore = options.liveEventsEmitted();
    const clickedAt = Date.now();
    await panel
      .getByRole('button', { name: /test this trigger/i })
      .first()
      .click();
    let testEventShown = false;
    let testEventMs;
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
      await panel
        .getByText(/^\s*testEvent\s*$/)
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: 15_000 });
      testEventMs = Date.now() - clickedAt;
      // The pointer off the tab it clicked, so no tooltip covers the table in the screenshot.
      await page.mouse.move(700, 780);
      testEventShown = options.liveEventsEmitted() === liveBefore;
    } catch (error) {
      options.log(`no test event shown: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
      if (process.env.E2E_DEBUG)
        options.log(((await page.locator('body').textContent()) ?? '').slice(0, 2000));
    }
    await page.waitForTimeout(1500);
    await page.screenshot({ path: options.eventPng });
    await page.close();
    // The owner's context (its cached editor files) becomes the first user's.
    const firstHour = options.firstHour ? await options.firstHour(context, base) : undefined;
    return { canvasHasNodes, panelShowsParameters, testEventShown, testEventMs, production, firstHour };
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- n8n output ---\n${server.output().slice(-3000)}`,
    );
  } finally {
    await browser?.close();
    await server.stop();
  }
}
