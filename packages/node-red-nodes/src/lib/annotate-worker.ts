// The worker thread that draws annotated snapshots for every node of this package (dist/lib/
// annotate-worker.js, started by annotator.ts). It runs core's annotation from runtime.js, the
// one copy of core the package ships (a bundle of its own would be a second copy of the codecs).
import { serveAnnotations } from './runtime.js';

serveAnnotations();
