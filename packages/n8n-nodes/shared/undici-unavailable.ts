// Stands in for `undici` inside the bundled core. The nodes always hand core n8n's request helper
// as its transport (shared/n8n-transport.ts), so core's undici default is never used; leaving it
// out saves ~250 KB of the package (undici embeds its HTTP parser as WebAssembly).
const message = 'undici is not bundled in the n8n nodes: pass a transport built on n8n helpers';

export class Agent {
  constructor() {
    throw new Error(message);
  }
}

export function request(): never {
  throw new Error(message);
}

export class ProxyAgent {
  constructor() {
    throw new Error(message);
  }
}
