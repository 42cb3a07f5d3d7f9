/** Path of the gallery's routes under Node-RED's `httpNodeRoot`. */
export const ROUTE_PREFIX = 'observation-gallery';

/** Where the browser finds a card's media: relative to the host, under `httpNodeRoot`. */
export function mediaPath(
  root: string | false | undefined,
  nodeId: string,
  kind: 'image' | 'thumb' | 'clip',
  id: string,
) {
  const base = typeof root === 'string' ? root.replace(/\/*$/, '/') : '/';
  return `${base.startsWith('/') ? base : `/${base}`}${ROUTE_PREFIX}/${encodeURIComponent(nodeId)}/${kind}/${encodeURIComponent(id)}`;
}
