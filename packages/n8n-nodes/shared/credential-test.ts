import { createClient, NetworkError } from '@observation-service/core/portable';
import type {
  ICredentialsDecrypted,
  ICredentialTestFunctions,
  INodeCredentialTestResult,
} from 'n8n-workflow';
import { type ObservationCredentialData, toClientOptions } from './credential-data';
import { createFetchTransport } from './fetch-transport';
import { n8nClock } from './n8n-clock';

/**
 * Kept only for the Observation Trigger's `testedBy` until that node drops it: n8n runs the
 * credential's own `test` request instead (it takes precedence over a node's `testedBy`), with
 * n8n's proxy and TLS settings and its login (preAuthentication). This one logs in by itself.
 *
 * Proves the address, the token (or login) and the service id with the cheapest read there is:
 * one task from `GET /tasks`. The message is core's (readable, no secrets).
 */
export async function observationApiTest(
  this: ICredentialTestFunctions,
  credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
  const data = (credential.data ?? {}) as ObservationCredentialData;
  let client: ReturnType<typeof createClient> | undefined;
  try {
    client = createClient({
      ...toClientOptions(credential.data ?? {}),
      retry: { attempts: 1 },
      timeoutMs: 15_000,
      transport: createFetchTransport(),
      clock: n8nClock,
    });
    await client.tasks.list({ limit: 1 });
    return { status: 'OK', message: 'Connection successful' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint =
      data.allowSelfSigned === true && NetworkError.isInstance(error)
        ? ' (the credential test always verifies certificates; the nodes honour "Allow Self-Signed Certificates")'
        : '';
    return { status: 'Error', message: `${message}${hint}` };
  } finally {
    await client?.close();
  }
}
