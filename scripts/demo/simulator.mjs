// Both demos (Node-RED and n8n) run the same simulator: the built package, both forms, the
// demo's host, port, seed and rate.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { portMessage } from './ports.mjs';

/** Starts the demo simulator; a failure (usually a taken port) throws with a message for people. */
export async function startDemoSimulator(root, settings) {
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  try {
    return await startSimulator({
      port: settings.simulatorPort,
      host: settings.host,
      form: 'both',
      seed: settings.seed,
      rate: settings.rate,
      // Like a real deployment, mildly: per-camera latency, a few late (VLM) events, capped pages.
      realism: 'mild',
    });
  } catch (error) {
    throw new Error(portMessage(error, 'simulator', settings.simulatorPort, 'SIMULATOR_PORT'));
  }
}
