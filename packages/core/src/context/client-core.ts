import type { ServiceAddresses } from '../addresses.js';
import type { TokenProvider } from '../auth/token-provider.js';
import type { RequestContext } from '../http/request.js';
import type { Clock, Logger } from '../ports.js';
import type { FormState } from './form-state.js';

/** What every resource of one client shares. Internal: not exported from the package. */
export interface ClientCore {
  addresses: ServiceAddresses;
  http: RequestContext;
  tokens: TokenProvider;
  form: FormState;
  clock: Clock;
  logger: Logger;
  /** Origins (`scheme://host:port`) that may receive the token on media URLs. */
  mediaOrigins: ReadonlySet<string>;
  /** Throws when the client was closed. */
  assertOpen(): void;
}
