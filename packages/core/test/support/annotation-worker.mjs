// The worker script a host ships next to its bundle: it only serves annotation jobs. Tests run it
// from the built package (turbo builds before it tests), as hosts do.
import { serveAnnotations } from '../../dist/index.js';

serveAnnotations();
