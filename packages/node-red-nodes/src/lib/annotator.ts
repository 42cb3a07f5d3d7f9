import { join } from 'node:path';
import { type AnnotationWorker, type Annotator, annotationWorker } from '@observation-service/core';

let worker: AnnotationWorker | undefined;

/**
 * Draws annotated snapshots in one worker thread shared by every node of the runtime: decoding,
 * drawing and encoding a 1080p JPEG takes about a second of CPU, which on Node-RED's main thread
 * would stall every flow, the editor and dashboards. Started on first use; idle, it does not keep
 * Node-RED running.
 */
export function sharedAnnotator(): Annotator {
  // runtime.js and annotate-worker.js are built side by side into dist/lib.
  worker ??= annotationWorker(join(__dirname, 'annotate-worker.js'));
  return worker.annotate;
}
