import type { Page } from 'playwright-core';

/**
 * What a user does in Node-RED's editor, done with the mouse and keyboard in a real browser:
 * drag a node from the palette, open its dialog, wire two ports. Only the function node's code is
 * typed through the code editor's own API (Monaco's setValue), as a paste would.
 */

type RedWindow = {
  requestAnimationFrame(callback: () => void): number;
  RED: { view: { selection(): { nodes?: Array<{ id: string }> } } };
  monaco: {
    editor: {
      getEditors(): Array<{
        getContainerDomNode(): { closest(selector: string): unknown };
        setValue(text: string): void;
      }>;
    };
  };
};

/** Waits two frames: the editor lays out the palette and the canvas on animation frames. */
const frames = (page: Page) =>
  page.evaluate(() => {
    const window = globalThis as unknown as RedWindow;
    return new Promise<void>((done) =>
      window.requestAnimationFrame(() => window.requestAnimationFrame(() => done())),
    );
  });

/**
 * Types `label` in the palette's filter, drags the node of `type` onto the canvas at (x, y) of
 * the workspace and returns the new node's id (the editor selects a node it just added).
 */
export async function dropFromPalette(
  page: Page,
  type: string,
  label: string,
  x: number,
  y: number,
): Promise<string> {
  const search = page.locator('#red-ui-palette-search input');
  await search.fill('');
  await search.pressSequentially(label);
  const item = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`).first();
  await item.waitFor();
  // The palette filters a moment after typing and lays out again: drag once the node is in view
  // and has stopped moving.
  let box: { x: number; y: number; width: number; height: number } | null = null;
  for (let last = ''; ; ) {
    await item.scrollIntoViewIfNeeded();
    box = await item.boundingBox();
    const now = JSON.stringify(box);
    if (box && now === last) break;
    last = now;
    await frames(page);
  }
  const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
  if (!chart) throw new Error('no workspace');
  const before = await selected(page);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(chart.x + x, chart.y + y, { steps: 12 });
  await page.mouse.up();
  const id = await selected(page);
  if (!id || id === before) throw new Error(`dropping ${type} from the palette added no node`);
  await search.fill('');
  await search.press('Escape');
  return id;
}

const selected = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as RedWindow).RED.view.selection().nodes?.[0]?.id);

const nodeOnCanvas = (page: Page, id: string) => page.locator(`[id="${id}"]`);

/** Double-clicks the node to open its edit dialog, runs `fill`, then presses Done. */
export async function editNode(page: Page, id: string, fill: () => Promise<void>): Promise<void> {
  await nodeOnCanvas(page, id).locator('.red-ui-flow-node').dblclick();
  const done = page.locator('#node-dialog-ok');
  await done.waitFor();
  await fill();
  await done.click();
  await done.waitFor({ state: 'detached' });
}

/** In a function node's open dialog: the On Message code, through Monaco's own API. */
export async function setFunctionCode(page: Page, code: string): Promise<void> {
  await page.locator('#node-input-func-editor .monaco-editor').waitFor();
  const set = await page.evaluate((text) => {
    const editor = (globalThis as unknown as RedWindow).monaco.editor
      .getEditors()
      .find((candidate) => candidate.getContainerDomNode().closest('#node-input-func-editor'));
    editor?.setValue(text);
    return editor !== undefined;
  }, code);
  if (!set) throw new Error("no code editor in the function node's dialog");
}

/** Drags a wire from output `port` of one node to the input of another. */
export async function wire(page: Page, from: string, to: string, port = 0): Promise<void> {
  const out = await nodeOnCanvas(page, from).locator('.red-ui-flow-port-output').nth(port).boundingBox();
  const input = await nodeOnCanvas(page, to).locator('.red-ui-flow-port-input').first().boundingBox();
  if (!out || !input) throw new Error(`no port to wire ${from}:${port} → ${to}`);
  await page.mouse.move(out.x + out.width / 2, out.y + out.height / 2);
  await page.mouse.down();
  await page.mouse.move(input.x + input.width / 2, input.y + input.height / 2, { steps: 12 });
  await page.mouse.up();
}
