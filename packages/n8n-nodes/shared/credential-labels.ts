import { ValidationError } from '@observation-service/core/portable';

/**
 * Core names a refused client option by its own name (`url`, `serviceId`, ...); the user sees the
 * field of the Observation API credential where the value lives. Keys are core's option names;
 * an entry of a list (`trustedMediaOrigins[1]`) is its field's.
 */
const credentialFields: Record<string, string> = {
  url: 'Service URL',
  wsUrl: 'WebSocket URL',
  serviceId: 'Service ID',
  form: 'Deployment Form',
  trustedMediaOrigins: 'Trusted Media Hosts',
  auth: 'Authentication',
  'auth.token': 'Access Token',
  'auth.email': 'Email',
  'auth.password': 'Password',
  tls: 'Allow Self-Signed Certificates',
  'tls.rejectUnauthorized': 'Allow Self-Signed Certificates',
};

/** The credential's field for one of core's option names, or undefined when it is not one. */
export function credentialField(parameter: string): string | undefined {
  const label = credentialFields[parameter.replace(/\[\d+\]$/, '')];
  return label === undefined ? undefined : `${label} in the Observation API credential`;
}

/**
 * A ValidationError about a client option, renamed to the credential field (core's wording of what
 * was given and what is allowed is kept); anything else as it was.
 */
export function withCredentialField(error: unknown): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const label = credentialField(error.parameter);
  return label === undefined ? error : new ValidationError(label, error.given, error.allowed);
}
