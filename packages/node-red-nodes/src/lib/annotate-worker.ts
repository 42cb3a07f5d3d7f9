// The worker thread that draws annotated snapshots for every node of this package (dist/lib/
// annotate-worker.js, started by annotator.ts). Core's annotation is bundled in, like runtime.js.
import { serveAnnotations } from '@observation-service/core';

serveAnnotations();
