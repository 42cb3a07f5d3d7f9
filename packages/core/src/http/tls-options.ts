import { ValidationError } from '../errors/validation-error.js';
import { describeValue } from '../validation/describe-value.js';

/**
 * TLS of the default transport and of the realtime socket, as plain data a host can fill from
 * its own settings (e.g. Node-RED's tls-config node). Verification is on unless
 * `rejectUnauthorized: false` is given explicitly.
 */
export interface TlsOptions {
  /** Extra CA certificate(s) in PEM, e.g. for a deployment with a private CA or a self-signed certificate. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Client certificate (PEM) for deployments that require one; needs `key`. */
  cert?: string | Buffer;
  /** Private key (PEM) of `cert`. */
  key?: string | Buffer;
  /** Client certificate and key as PKCS#12, instead of `cert` + `key`. */
  pfx?: string | Buffer;
  /** Passphrase of `key` or `pfx`; never echoed in errors. */
  passphrase?: string;
  /** Name to verify the server certificate against (SNI), when it differs from the URL's host. */
  servername?: string;
  /** Verification is on unless this is explicitly `false`. */
  rejectUnauthorized?: boolean;
}

/** Options in the shape Node's `tls.connect` (and undici's `connect`, `ws`) take them. */
export type TlsConnectOptions = TlsOptions & { rejectUnauthorized: boolean };

const pem = (value: unknown) => typeof value === 'string' || Buffer.isBuffer(value);
const ALLOWED = 'PEM text (string) or a Buffer';

/**
 * Validates `tls` and returns the options to connect with (always with an explicit
 * `rejectUnauthorized`). Certificates, keys and passphrases are never echoed in errors.
 */
export function checkTls(tls: unknown): TlsConnectOptions {
  if (tls === undefined || tls === null) return { rejectUnauthorized: true };
  if (typeof tls !== 'object' || Array.isArray(tls)) {
    throw new ValidationError(
      'tls',
      describeValue(tls),
      'an object { ca?, cert?, key?, pfx?, passphrase?, servername?, rejectUnauthorized? }',
    );
  }
  const given = tls as Record<string, unknown>;
  const out: TlsConnectOptions = { rejectUnauthorized: given.rejectUnauthorized !== false };
  if (given.rejectUnauthorized !== undefined && typeof given.rejectUnauthorized !== 'boolean') {
    throw new ValidationError(
      'tls.rejectUnauthorized',
      describeValue(given.rejectUnauthorized),
      'true or false',
    );
  }
  if (given.ca !== undefined) {
    const list = Array.isArray(given.ca) ? given.ca : [given.ca];
    if (list.length === 0 || !list.every(pem)) {
      throw new ValidationError('tls.ca', describeValue(given.ca, true), `${ALLOWED}, or an array of them`);
    }
    out.ca = given.ca as TlsOptions['ca'];
  }
  for (const name of ['cert', 'key', 'pfx'] as const) {
    if (given[name] === undefined) continue;
    if (!pem(given[name]))
      throw new ValidationError(`tls.${name}`, describeValue(given[name], true), ALLOWED);
    out[name] = given[name] as string | Buffer;
  }
  if ((out.cert === undefined) !== (out.key === undefined)) {
    const missing = out.cert === undefined ? 'tls.cert' : 'tls.key';
    throw new ValidationError(missing, 'nothing', 'a client certificate and its key given together');
  }
  if (given.passphrase !== undefined) {
    if (typeof given.passphrase !== 'string') {
      throw new ValidationError('tls.passphrase', describeValue(given.passphrase, true), 'a string');
    }
    out.passphrase = given.passphrase;
  }
  if (given.servername !== undefined && given.servername !== '') {
    if (typeof given.servername !== 'string' || !/^[A-Za-z0-9.-]{1,253}$/.test(given.servername)) {
      throw new ValidationError('tls.servername', describeValue(given.servername), 'a host name');
    }
    out.servername = given.servername;
  }
  return out;
}

/** True when the options change anything from Node's defaults (then a custom socket is needed). */
export function isCustomTls(tls: TlsConnectOptions): boolean {
  return Object.keys(tls).length > 1 || tls.rejectUnauthorized === false;
}
