import type {
  NodeRedApi,
  RouteRequest,
} from '@observation-service/node-red-observation/src/lib/node-red-api.js';
import { parseRange } from './byte-range.js';
import type { GalleryNode } from './gallery-node.js';
import { ROUTE_PREFIX } from './media-path.js';

let registered: NodeRedApi['httpNode'] | undefined;

/**
 * Registers the image and clip routes once per Node-RED app (they outlive redeploys; a gallery
 * node adds itself to `galleries` while deployed). Ids are random per event, so a URL reveals
 * nothing of the service and stops working once its card is gone. The service is reached only
 * here, through the server node's core client: the token stays in the runtime.
 */
export function registerMediaRoutes(RED: NodeRedApi, galleries: Map<string, GalleryNode>): void {
  const app = RED.httpNode;
  if (!app || registered === app) return;
  registered = app;

  const find = (req: RouteRequest) => galleries.get(req.params.node ?? '');

  for (const kind of ['image', 'thumb'] as const) {
    app.get(`/${ROUTE_PREFIX}/:node/${kind}/:id`, (req, res) => {
      const gallery = find(req);
      if (!gallery) return notFound(res);
      const id = req.params.id ?? '';
      (kind === 'image' ? gallery.image(id) : gallery.thumbnail(id)).then(
        (image) => {
          if (!image) return notFound(res);
          res.writeHead(200, {
            'content-type': image.contentType,
            'content-length': image.data.length,
            // The id names one event's picture for good: the browser may keep it.
            'cache-control': 'private, max-age=86400, immutable',
          });
          res.end(image.data);
        },
        () => unavailable(res),
      );
    });
  }

  app.get(`/${ROUTE_PREFIX}/:node/clip/:id`, (req, res) => {
    const gallery = find(req);
    if (!gallery) return notFound(res);
    gallery.clip(req.params.id ?? '').then(
      (clip) => {
        if (!clip) return notFound(res);
        const total = clip.data.length;
        const range = parseRange(req.headers.range, total);
        const common = {
          'content-type': clip.contentType,
          'accept-ranges': 'bytes',
          'content-disposition': `inline; filename="${clip.fileName.replace(/[^\w.-]/g, '_')}"`,
          'cache-control': 'private, no-store',
        };
        if (range === 'unsatisfiable') {
          res.writeHead(416, { ...common, 'content-range': `bytes */${total}` });
          res.end();
          return;
        }
        if (range) {
          res.writeHead(206, {
            ...common,
            'content-range': `bytes ${range.start}-${range.end}/${total}`,
            'content-length': range.end - range.start + 1,
          });
          res.end(clip.data.subarray(range.start, range.end + 1));
          return;
        }
        res.writeHead(200, { ...common, 'content-length': total });
        res.end(clip.data);
      },
      () => unavailable(res),
    );
  });
}

function notFound(res: import('node:http').ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('This event is no longer in the gallery.');
}

/** The reason goes to the node's log (see GalleryNode), never to the browser. */
function unavailable(res: import('node:http').ServerResponse): void {
  res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
  res.end('The Observation Service did not deliver this file; see the Node-RED log.');
}
