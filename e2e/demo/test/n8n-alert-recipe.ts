import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Locator, type Page, selectors } from 'playwright-core';

// The n8n package README's alert ("Alerts: …": Observation Trigger, persons, snapshot attached →
// a chat or ticket node), built by clicks and typing in n8n's editor, and the chat it posts to: a
// stand-in server on a free port that keeps each request whole.

export interface Received {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

export interface StandInChat {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** The stand-in chat: answers every request 200 `{"ok":true}` and keeps it. */
export async function startStandInChat(): Promise<StandInChat> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        contentType: request.headers['content-type'] ?? '',
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/chat/alerts`,
    received,
    close: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/** A multipart body's parts, parsed by the platform's own (undici's) form-data parser. */
export async function multipartParts(
  request: Received,
): Promise<Array<{ field: string; filename?: string; type?: string; bytes: Buffer }>> {
  const form = await new Response(new Uint8Array(request.body), {
    headers: { 'content-type': request.contentType },
  }).formData();
  const parts: Array<{ field: string; filename?: string; type?: string; bytes: Buffer }> = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') parts.push({ field, bytes: Buffer.from(value) });
    else
      parts.push({
        field,
        filename: value.name,
        type: value.type,
        bytes: Buffer.from(await value.arrayBuffer()),
      });
  }
  return parts;
}

/** The image format a file's first bytes name, or undefined. */
export function imageMagic(bytes: Buffer): 'jpeg' | 'png' | 'webp' | 'gif' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'webp';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  return undefined;
}

// n8n's editor marks its elements with data-test-id, not Playwright's default data-testid.
selectors.setTestIdAttribute('data-test-id');

const trace = process.env.E2E_DEBUG
  ? (message: string) => console.log(`  [alert recipe ${new Date().toISOString().slice(11, 23)}] ${message}`)
  : () => {};

/** The NDV's parameter input `name` (n8n's `parameter-input-<name>` test id), the visible one. */
const parameter = (page: Page, name: string): Locator =>
  page.getByTestId('ndv').getByTestId(`parameter-input-${name}`).filter({ visible: true }).first();

/** Types into a parameter's text field (n8n's inputs take typing; `fill` alone can skip its update). */
async function typeInto(page: Page, name: string, value: string): Promise<void> {
  const input = parameter(page, name).locator('input, textarea, [contenteditable="true"]').first();
  await input.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(value);
  // Blurred, not tabbed away from: Tab would open the next drop-down.
  await input.blur();
}

/** Chooses `option` in a parameter's drop-down. */
async function choose(page: Page, name: string, option: string): Promise<void> {
  await parameter(page, name).click();
  await page.getByRole('option', { name: option, exact: true }).filter({ visible: true }).first().click();
}

/** A collection's "Add …" drop-down (placeholder `addLabel`), then its option `option`. */
async function addCollectionOption(page: Page, addLabel: string, option: string): Promise<void> {
  await page
    .getByTestId('ndv')
    .getByPlaceholder(addLabel, { exact: true })
    .filter({ visible: true })
    .first()
    .click();
  await page.getByRole('option', { name: option, exact: true }).filter({ visible: true }).first().click();
}

/**
 * Opens the node creator (`open`), searches `search` and picks the items `path` in turn (n8n groups
 * a package's nodes under one entry: "Observation", then the trigger in it).
 */
async function addNode(page: Page, open: () => Promise<void>, search: string, path: string[]): Promise<void> {
  await open();
  const creator = page.getByTestId('node-creator');
  await creator.getByTestId('node-creator-search-bar').fill(search);
  for (const name of path) {
    await creator.getByText(name, { exact: true }).filter({ visible: true }).first().click();
  }
  await page.getByTestId('ndv').filter({ visible: true }).waitFor({ state: 'visible' });
}

async function closeNdv(page: Page): Promise<void> {
  await page.getByTestId('ndv-close-button').filter({ visible: true }).first().click();
  await page.getByTestId('ndv').filter({ visible: true }).waitFor({ state: 'hidden' });
}

export interface AlertRecipe {
  /** The new workflow's id, from the editor's address. */
  workflowId: string;
  /** What the trigger's Credential field shows. */
  credentialShown: string;
}

/**
 * Signs in, then as the README's reader: a new workflow; the Observation Trigger (its credential
 * the one n8n offers), Object Names `person`, Attach Snapshot on; then an HTTP Request node
 * POSTing multipart form-data to `chatUrl` with one "n8n Binary File" field taken from the input
 * field `data`, the README's field name; saved. Publishing is the caller's.
 */
export async function buildAlertRecipe(
  page: Page,
  {
    base,
    login,
    chatUrl,
    fileField,
  }: { base: string; login: { email: string; password: string }; chatUrl: string; fileField: string },
): Promise<AlertRecipe> {
  await page.goto(`${base}/signin`);
  await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(login.email);
  await page.locator('input[type="password"]').first().fill(login.password);
  await page.getByRole('button', { name: /sign in/i }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  trace('signed in');
  await page.goto(`${base}/workflow/new`);
  await page
    .getByTestId('canvas-plus-button')
    .filter({ visible: true })
    .first()
    .waitFor({ state: 'visible' });
  trace('new workflow');

  // The trigger.
  await addNode(
    page,
    () => page.getByTestId('canvas-plus-button').filter({ visible: true }).first().click(),
    'Observation',
    ['Observation', 'On new Observation event'],
  );
  trace('trigger added');
  const credentialSelect = page.getByTestId('ndv').getByTestId('node-credentials-select').first();
  await credentialSelect.waitFor({ state: 'visible' });
  const credentialShown =
    (await credentialSelect
      .locator('input')
      .first()
      .inputValue()
      .catch(() => '')) || ((await credentialSelect.textContent()) ?? '').trim();
  await addCollectionOption(page, 'Add Filter', 'Object Names');
  await typeInto(page, 'objectNames', 'person');
  await addCollectionOption(page, 'Add Option', 'Attach Snapshot');
  await parameter(page, 'attachSnapshot').locator('.el-switch, [role="switch"]').first().click();
  trace('trigger set');
  await closeNdv(page);

  // The chat: HTTP Request after the trigger (the trigger is selected: the creator's "+" connects to it).
  await addNode(page, () => page.getByTestId('node-creator-plus-button').first().click(), 'HTTP Request', [
    'HTTP Request',
  ]);
  trace('http request added');
  await choose(page, 'method', 'POST');
  await typeInto(page, 'url', chatUrl);
  await parameter(page, 'sendBody').locator('.el-switch, [role="switch"]').first().click();
  await choose(page, 'contentType', 'Form-Data');
  await choose(page, 'parameterType', 'n8n Binary File');
  await typeInto(page, 'name', fileField);
  await typeInto(page, 'inputDataFieldName', 'data');
  trace('http request set');
  await closeNdv(page);

  await page.keyboard.press('ControlOrMeta+s');
  const workflowId = await waitFor(
    async () => /\/workflow\/([^/?#]+)$/.exec(new URL(page.url()).pathname)?.[1],
    'the workflow saved (its id in the address)',
  );
  return { workflowId: workflowId === 'new' ? '' : workflowId, credentialShown };
}

/** Publish, then Publish in n8n's dialog; n8n's confirmation closed with "Got it". */
export async function publishOpenWorkflow(page: Page): Promise<void> {
  await page.getByTestId('workflow-open-publish-modal-button').click();
  await page.getByTestId('workflow-publish-button').click();
  const confirmation = page.getByTestId('activation-modal');
  await confirmation.getByText('Got it', { exact: true }).click();
  await confirmation.waitFor({ state: 'hidden' });
}

/** The Publish button's menu → Unpublish, confirmed in n8n's dialog. */
export async function unpublishOpenWorkflow(page: Page): Promise<void> {
  const item = page.getByText('Unpublish', { exact: true }).filter({ visible: true }).first();
  await page.getByTestId('version-menu-button').click();
  await item.click();
  const dialog = page.getByTestId('workflow-history-version-unpublish-modal');
  await dialog.getByRole('button', { name: 'Unpublish', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && (value as unknown) !== 'new') return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 250));
  }
}
