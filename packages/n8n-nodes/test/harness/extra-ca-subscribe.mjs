// Run by self-signed-tls.test.mts in a Node started with NODE_EXTRA_CA_CERTS (read only at
// startup, so it needs its own process): the n8n package's vendored core opens the realtime
// subscription over wss with the runtime's WebSocket, which has no TLS options of its own.
// Usage: node extra-ca-subscribe.mjs <siteUrl> <serviceId> <token>; prints "open" or the failure.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUndiciTransport, systemClock } from '@observation-service/core';

const here = dirname(fileURLToPath(import.meta.url));
const vendored = createRequire(import.meta.url)(
  join(here, '..', '..', 'dist', 'vendor', 'observation-core.js'),
);
const [url, serviceId, token] = process.argv.slice(2);
const transport = createUndiciTransport();
const client = vendored.createClient({ url, serviceId, auth: { token }, transport, clock: systemClock });
const outcome = await new Promise((resolve) => {
  const subscription = client.events.subscribe(
    'all',
    {
      onEvent: () => undefined,
      onStateChange: (state, info) => {
        if (state === 'open') resolve('open');
        else if (state === 'reconnecting' || state === 'failed') resolve(`${state}: ${info.error?.message}`);
      },
    },
    { heartbeatMs: 5_000 },
  );
  void subscription;
});
process.stdout.write(`${outcome}\n`);
await client.close();
await transport.close();
