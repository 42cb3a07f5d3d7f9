// A free port for a server that binds it only later: n8n (seconds to a minute after it is
// chosen), Verdaccio, n8n's task broker. Asking the kernel for port 0 and closing it hands out a
// port from the ephemeral range, where the kernel also puts every other port-0 server and the
// local end of every outgoing connection: in `npm test`, with dozens of port-0 servers starting in
// other lanes meanwhile, one took the port first (a CI run's demo n8n found Verdaccio's page on
// its port). Ports below that range are never handed out by the kernel, so one chosen there stays
// free unless another caller of this function picks the same one at random.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the kernel's ephemeral range (Linux's setting; 32768 where none is read). */
function ephemeralRangeStart() {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(low);
    if (Number.isInteger(port) && port > 21_000) return port;
  } catch {
    // not Linux: macOS and Windows start theirs at 49152
  }
  return 32_768;
}

const lowest = 20_000;
const highest = ephemeralRangeStart() - 1;
/** Ports this process has handed out: never twice. */
const handedOut = new Set();

/** Why `port` on `host` cannot be listened on right now (EADDRINUSE, EACCES…), or undefined if it can. */
export function bindError(port, host) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** A port below the ephemeral range that nothing listens on right now, on `host`. */
export async function freePort(host = '127.0.0.1') {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (handedOut.has(port) || (await bindError(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${lowest} and ${highest} on ${host} after 200 tries`);
}
