import { createClient, type ObservationClient } from '@observation-service/core';
import type {
  IExecuteFunctions,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  ITriggerFunctions,
} from 'n8n-workflow';
import { cachedClient, credentialKey } from './client-cache';
import { type ObservationCredentialData, toClientOptions } from './credential-data';
import { createN8nTransport } from './n8n-transport';
import { toNodeError } from './node-error';

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
