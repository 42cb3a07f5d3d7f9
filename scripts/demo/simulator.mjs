// Both demos (Node-RED and n8n) run the same simulator: the built package, both forms, the
// demo's host, port, seed and rate, and record ids that continue from the last run in the same
// demo folder (see record-ids.mjs).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { portMessage } from './ports.mjs';
import { keepRecordIds, nextFirstRecordId, recordIdFile } from './record-ids.mjs';

/**
 * Starts the demo simulator; a failure (usually a taken port) throws with a message for people.
 * `log` gets a line when the record ids could not simply continue from the last run.
 */
export async function startDemoSimulator(root, settings, log = () => {}) {
  const { startSimulator } = await import(
    pathToFileURL(join(root, 'packages', 'simulator', 'dist', 'index.js')).href
  );
  const file = recordIdFile(settings.dir);
  const { firstRecordId, note } = nextFirstRecordId(file);
  if (note) log(note);
  let sim;
  try {
    sim = await startSimulator({
      port: settings.simulatorPort,
      host: settings.host,
      form: 'both',
      seed: settings.seed,
      rate: settings.rate,
      // Like a real deployment, mildly: per-camera latency, a few late (VLM) events, capped pages.
      realism: 'mild',
      firstRecordId,
    });
  } catch (error) {
    throw new Error(portMessage(error, 'simulator', settings.simulatorPort, 'SIMULATOR_PORT'));
  }
  const stopped = keepRecordIds(file, sim);
  const stop = sim.stop;
  sim.stop = async () => {
    await stop.call(sim);
    stopped();
  };
  return sim;
}
