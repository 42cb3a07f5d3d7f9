// Ports the demo listens on: a taken one stops the demo before anything starts, with a message
// saying which variable picks another.
import { bindError } from '../free-port.mjs';

/** Thrown when a port cannot be used; demo.mjs prints its message without a stack. */
export class PortError extends Error {}

export function portMessage(error, what, port, envName) {
  if (error?.code === 'EADDRINUSE') {
    return `${what}: port ${port} is already in use (another demo, Node-RED, n8n or other server?). Stop it, or pick another port: ${envName}=<port> (0 = any free port).`;
  }
  if (error?.code === 'EACCES') {
    return `${what}: not allowed to listen on port ${port}. Pick another port: ${envName}=<port> (0 = any free port).`;
  }
  return `${what}: cannot listen on port ${port}: ${error?.message ?? error}`;
}

/** Resolves when the port can be bound right now; port 0 always can. */
export async function checkPortFree(port, host, what, envName) {
  if (port === 0) return;
  const error = await bindError(port, host);
  if (error) throw new PortError(portMessage(error, what, port, envName));
}

/** A port that is free right now and stays so until its server binds it (scripts/free-port.mjs). */
export { freePort } from '../free-port.mjs';
