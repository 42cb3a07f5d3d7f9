import { createClient, type ObservationClient } from '@observation-service/core';
import type { IExecuteFunctions, ILoadOptionsFunctions, ITriggerFunctions } from 'n8n-workflow';
import { type ObservationCredentialData, toClientOptions } from './credential-data';
import { createN8nTransport } from './n8n-transport';
import { toNodeError } from './node-error';

export type ClientHost = IExecuteFunctions | ITriggerFunctions | ILoadOptionsFunctions;

/**
 * A core client for the node's `observationApi` credential, with n8n's request helper as its
 * HTTP transport and n8n's logger for core's diagnostics (never secrets). Callers close it.
 */
export async function openClient(context: ClientHost): Promise<ObservationClient> {
  const data = await context.getCredentials('observationApi');
  const skipCertificateCheck = (data as ObservationCredentialData).allowSelfSigned === true;
  try {
    return createClient({
      ...toClientOptions(data, context.logger),
      transport: createN8nTransport((options) => context.helpers.httpRequest(options), skipCertificateCheck),
    });
  } catch (error) {
    throw toNodeError(context.getNode(), error);
  }
}

/** Runs `work` with a fresh client and always closes it afterwards. */
export async function withClient<T>(
  context: ClientHost,
  work: (client: ObservationClient) => Promise<T>,
): Promise<T> {
  const client = await openClient(context);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
