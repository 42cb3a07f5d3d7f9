import {
  createClient,
  type ObservationClient,
  resolveAddresses,
  ValidationError,
} from '@observation-service/core/portable';
import { type ObservationCredentialData, toClientOptions } from './credential-data';
import { withCredentialField } from './credential-labels';
import { n8nClock } from './n8n-clock';
import { createN8nTransport } from './n8n-transport';
import { toNodeError } from './node-error';
import { type ClientHost, credentialTokenSource } from './session-token';

export type { ClientHost } from './session-token';

/** Why the realtime trigger cannot skip certificate checks, and what to do instead. */
export const selfSignedRealtime =
  'off for the Observation Trigger: its realtime connection uses the runtime WebSocket, which always verifies certificates. Give n8n your CA instead (NODE_EXTRA_CA_CERTS=/path/to/ca.pem in the environment of n8n) and turn this option off';

async function newClient(context: ClientHost): Promise<ObservationClient> {
  const data = (await context.getCredentials('observationApi')) as ObservationCredentialData;
  const skipCertificateCheck = data.allowSelfSigned === true;
  try {
    // With email and password the token is n8n's, kept with the credential (shared/session-token.ts).
    const getToken =
      data.authentication === 'emailPassword'
        ? credentialTokenSource(context, resolveAddresses(data.url ?? '').apiUrl, skipCertificateCheck)
        : undefined;
    return createClient({
      ...toClientOptions(data as never, context.logger, getToken),
      transport: createN8nTransport((options) => context.helpers.httpRequest(options), skipCertificateCheck),
      // Every wait goes through n8n's sleep; realtime uses the runtime's WebSocket (core's
      // portable default), since n8n Cloud allows no global timer and no socket library.
      clock: n8nClock,
    });
  } catch (error) {
    // A refused setting is named by its field in the credential (Service URL, Service ID, ...).
    throw toNodeError(context.getNode(), withCredentialField(error));
  }
}

/**
 * A core client for the node's `observationApi` credential, with n8n's request helper as its
 * HTTP transport, n8n's logger for core's diagnostics (never secrets) and, with email and
 * password, the token n8n keeps with the credential. The caller closes it.
 */
export async function openClient(context: ClientHost): Promise<ObservationClient> {
  return newClient(context);
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
  return newClient(context);
}

/**
 * Runs `work` with a client of this credential and closes it afterwards. A client is cheap (HTTP
 * goes through n8n's helper, the token comes from n8n's credential store), so none is kept
 * between executions.
 */
export async function withClient<T>(
  context: ClientHost,
  work: (client: ObservationClient) => Promise<T>,
): Promise<T> {
  const client = await newClient(context);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
