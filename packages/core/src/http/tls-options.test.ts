import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { checkTls, isCustomTls } from './tls-options.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----\n';

function refusal(value: unknown): ValidationError {
  try {
    checkTls(value);
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('checkTls accepted the value');
}

describe('tls option', () => {
  it('verifies by default and only turns verification off when told explicitly', () => {
    expect(checkTls(undefined)).toEqual({ rejectUnauthorized: true });
    expect(checkTls({})).toEqual({ rejectUnauthorized: true });
    expect(checkTls({ rejectUnauthorized: false })).toEqual({ rejectUnauthorized: false });
    expect(isCustomTls(checkTls({}))).toBe(false);
    expect(isCustomTls(checkTls({ rejectUnauthorized: false }))).toBe(true);
    expect(isCustomTls(checkTls({ ca: PEM }))).toBe(true);
  });

  it('passes a CA, a client certificate with its key, pfx, passphrase and servername on', () => {
    expect(
      checkTls({
        ca: [PEM, Buffer.from(PEM)],
        cert: PEM,
        key: KEY,
        passphrase: 'pw',
        servername: 'service.local',
      }),
    ).toEqual({
      rejectUnauthorized: true,
      ca: [PEM, Buffer.from(PEM)],
      cert: PEM,
      key: KEY,
      passphrase: 'pw',
      servername: 'service.local',
    });
  });

  it('refuses bad values naming the field, never echoing keys or passphrases', () => {
    expect(refusal('yes').parameter).toBe('tls');
    expect(refusal({ rejectUnauthorized: 'no' }).parameter).toBe('tls.rejectUnauthorized');
    expect(refusal({ ca: 42 }).parameter).toBe('tls.ca');
    const keyOnly = refusal({ key: KEY });
    expect(keyOnly.parameter).toBe('tls.cert');
    expect(keyOnly.message).not.toContain('secret-key-material');
    const badKey = refusal({ cert: PEM, key: { material: 'secret-key-material' } });
    expect(badKey.parameter).toBe('tls.key');
    expect(badKey.message).not.toContain('secret-key-material');
    const badPassphrase = refusal({ passphrase: 1234 });
    expect(badPassphrase.message).not.toContain('1234');
    expect(refusal({ servername: 'not a host!' }).parameter).toBe('tls.servername');
  });
});
