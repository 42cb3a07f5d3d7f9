import type {
  Node,
  NodeDefinition,
  NodeRedApi,
} from '@observation-service/node-red-observation/src/lib/node-red-api.js';
import { isDashboardGroup } from '../lib/dashboard-api.js';
import { GalleryNode } from '../lib/gallery-node.js';
import { registerMediaRoutes } from '../lib/media-routes.js';
import { asServerLink } from '../lib/server-link.js';
import { type GalleryConfig, parseSettings } from '../lib/settings.js';

/** Deployed galleries by node id: what the media routes serve from. */
const galleries = new Map<string, GalleryNode>();

/** Node-RED calls this once when it loads the node set. */
function observationGallery(RED: NodeRedApi): void {
  function ObservationGalleryNode(this: Node, definition: NodeDefinition & GalleryConfig) {
    RED.nodes.createNode(this, definition);
    const group = RED.nodes.getNode(definition.group ?? '');
    let settings: ReturnType<typeof parseSettings>;
    try {
      if (!isDashboardGroup(group)) throw new Error(RED._('ui-observation-gallery.errors.noGroup'));
      settings = parseSettings(definition);
    } catch (error) {
      this.status({ fill: 'red', shape: 'ring', text: RED._('ui-observation-gallery.status.configError') });
      // On the next turn, so Catch nodes constructed after this one receive it.
      const timer = setImmediate(() => this.error(error));
      this.on('close', (_removed, done) => {
        clearImmediate(timer);
        done();
      });
      return;
    }
    const server = definition.server ? asServerLink(RED.nodes.getNode(definition.server)) : undefined;
    if (definition.server && !server) this.warn(RED._('ui-observation-gallery.errors.notServer'));
    const gallery = new GalleryNode(this, group, {
      ...settings,
      httpNodeRoot: RED.settings.httpNodeRoot,
      translate: (key, substitutions) => RED._(key, substitutions),
      ...(server ? { server } : {}),
    });
    galleries.set(this.id, gallery);
    // For tests and diagnostics (bounded memory is checked through it), like the server node's counters.
    Object.defineProperty(this, 'gallery', { value: gallery, enumerable: false, configurable: true });
    registerMediaRoutes(RED, galleries);

    group.register(this, definition, {
      beforeSend: (msg) => gallery.toCardMessage(msg),
      onInput: async () => gallery.saveSnapshot(),
    });
    this.on('close', (_removed, done) => {
      if (galleries.get(this.id) === gallery) galleries.delete(this.id);
      gallery.close();
      done();
    });
  }
  RED.nodes.registerType('ui-observation-gallery', ObservationGalleryNode as never);
}

export = observationGallery;
