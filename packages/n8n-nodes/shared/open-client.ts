import { createClient, type ObservationClient, ValidationError } from '@observation-service/core/portable';
import type {
  IExecuteFunctions,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  ITriggerFunctions,
} from 'n8n-workflow';
import { cachedClient, credentialKey } from './client-cache';
import { type ObservationCredentialData, toClientOptions } from './credential-data';
import { n8nClock } from './n8n-clock';
import { createN8nTransport } from './n8n-transport';
import { toNodeError } from './node-error';

/** Why the realtime trigger cannot skip certificate checks, and what to do instead. */
export const selfSignedRealtime =
  'off for the Observation Trigger: its realtime connection uses the runtime WebSocket, which always verifies certificates. Give n8n your CA instead (NODE_EXTRA_CA_CERTS=/path/to/ca.pem in the environment of n8n) and turn this option off';

export type ClientHost = IExecuteFunctions | ITriggerFunctions | ILoadOptionsFunctions;

type HttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

function newClient(
  context: ClientHost,
  data: ObservationCredentialData,
  route: HttpRequest,
): ObservationClient {
  try {
    return createClient({
      ...toClientOptions(data as never, context.logger),
      transport: createN8nTransport(route, data.allowSelfSigned === true),
      // Every wait goes through n8n's sleep; realtime uses the runtime's WebSocket (core's
      // portable default), since n8n Cloud allows no global timer and no socket library.
      clock: n8nClock,
    });
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
}

/**
 * A core client for the node's `observationApi` credential, with n8n's request helper as its
 * HTTP transport and n8n's logger for core's diagnostics (never secrets). The trigger gets its
 * own client (closed on deactivation); the action node and editor calls share a kept one per
 * credential, so a login happens once, not once per execution.
 */
export async function openClient(context: ClientHost): Promise<ObservationClient> {
  const data = (await context.getCredentials('observationApi')) as ObservationCredentialData;
  return newClient(context, data, (options) => context.helpers.httpRequest(options));
}

/**
 * The realtime trigger's client. Its socket is the runtime's WebSocket, which always verifies
 * certificates and takes no TLS options, so "Allow Self-Signed Certificates" (which n8n's request
 * helper honours for REST) cannot reach it: the trigger refuses to start with the workaround
 * rather than fail on every reconnect.
 */
export async function openRealtimeClient(context: ClientHost): Promise<ObservationClient> {
  const data = (await context.getCredentials('observationApi')) as ObservationCredentialData;
  if (data.allowSelfSigned === true) {
    throw toNodeError(
      context.getNode(),
      new ValidationError('Allow Self-Signed Certificates', 'on', selfSignedRealtime),
    );
  }
  return newClient(context, data, (options) => context.helpers.httpRequest(options));
}

/** Runs `work` with the kept client of this credential. */
export async function withClient<T>(
  context: ClientHost,
  work: (client: ObservationClient) => Promise<T>,
): Promise<T> {
  const data = (await context.getCredentials('observationApi')) as ObservationCredentialData;
  const route: HttpRequest = (options) => context.helpers.httpRequest(options);
  const client = cachedClient(credentialKey(data), route, (holder) =>
    newClient(context, data, (options) => holder.current(options)),
  );
  return work(client);
}
