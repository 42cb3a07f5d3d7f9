import type { ResolvedSelection } from './selection.js';

/**
 * Realtime addresses of the two deployment forms. The token travels in the query (the only
 * place the service reads it); callers must redact these URLs before showing them anywhere.
 */
export function extendedRealtimeUrl(
  wsBaseUrl: string,
  serviceId: string,
  selection: ResolvedSelection,
  token: string,
): string {
  const tasks = selection === 'all' ? '0' : selection.join(',');
  return `${trimSlash(wsBaseUrl)}/events/realtime/${encodeURIComponent(serviceId)}/${tasks}?token=${encodeURIComponent(token)}`;
}

export function basicRealtimeUrl(wsBaseUrl: string, taskId: number, token: string): string {
  return `${trimSlash(wsBaseUrl)}/events/realtime/${taskId}?token=${encodeURIComponent(token)}`;
}

function trimSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url;
}
