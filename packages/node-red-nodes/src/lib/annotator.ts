import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { type AnnotationWorker, type Annotator, annotationWorker } from '@observation-service/core';

let worker: AnnotationWorker | undefined;

/**
 * Draws annotated snapshots in worker threads shared by every node of the runtime: decoding,
 * drawing and encoding a 1080p camera JPEG takes about 250 ms of CPU (bench P12's frame; a noisier
 * image up to a second), which on Node-RED's main thread would stall every flow, the editor and
 * dashboards. Started on first use; idle, it does not keep
 * Node-RED running.
 */
export function sharedAnnotator(): Annotator {
  // runtime.js and annotate-worker.js are built side by side into dist/lib. Two threads keep up
  // with a 1080p camera at 5 events/s (about 250 ms each) where the machine has the cores.
  worker ??= annotationWorker(join(__dirname, 'annotate-worker.js'), {
    threads: Math.min(2, availableParallelism()),
  });
  return worker.annotate;
}
