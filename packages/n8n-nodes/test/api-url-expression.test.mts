import { resolveAddresses } from '@observation-service/core';
import { expect, test } from 'vitest';
import { credentialStore, MemoryCredentialsHelper } from './harness/credential-store.mts';
import { createEngine } from './harness/n8n-engine.mts';

// The credential's hidden `apiUrl` is an n8n expression (the credential file cannot use core);
// n8n resolves it on every load. It must give core's API URL for whatever a user pastes.

async function resolvedApiUrl(url: unknown): Promise<unknown> {
  const engine = await createEngine({ url } as never);
  const helper = new MemoryCredentialsHelper(credentialStore({ url } as never), engine.credentialType);
  return (await helper.getDecrypted()).apiUrl;
}

test.each([
  'https://observ.example.com/observ',
  'https://observ.example.com/observ/',
  'https://observ.example.com/observ/apiserver',
  'https://observ.example.com/observ/apiserver/tasks?limit=1',
  'wss://observ.example.com/observ/apiserver/events/realtime/ws-1/0?token=secret',
  'ws://10.0.0.5:8080/apiserver/events/realtime/7',
  'http://10.0.0.5:8080',
  '  HTTPS://Observ.Example.COM:443/Site/Sub/apiserver#x  ',
  'http://host:80/a//b/',
  'https://host/apiserverx/y',
  'https://host/observ?next=/apiserver',
])('%s gives the API URL core derives', async (url) => {
  expect(await resolvedApiUrl(url)).toBe(resolveAddresses(url).apiUrl);
});

test.each(['', 'not a url', 'ftp://host/observ', 'https://user:pw@host/observ', 'https://'])(
  '%j gives no API URL (core refuses it too), without failing the credential',
  async (url) => {
    expect(await resolvedApiUrl(url)).toBe('');
    expect(() => resolveAddresses(url)).toThrow();
  },
);

test('a credential saved without a URL still loads', async () => {
  expect(await resolvedApiUrl(undefined)).toBe('');
});
