export interface JwtTimes {
  /** `exp` as epoch ms. */
  expiresAt?: number;
  /** `iat` as epoch ms. */
  issuedAt?: number;
}

function seconds(payload: Record<string, unknown>, key: string): number | undefined {
  const value = payload[key];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
}

/**
 * Reads `exp` and `iat` from a JWT payload without verifying the signature: the client only needs
 * to know when to refresh, the server does the verifying. Empty when the token is not a JWT.
 */
export function readJwtTimes(token: string): JwtTimes {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return {};
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return {};
    const record = payload as Record<string, unknown>;
    const times: JwtTimes = {};
    const exp = seconds(record, 'exp');
    const iat = seconds(record, 'iat');
    if (exp !== undefined) times.expiresAt = exp;
    if (iat !== undefined) times.issuedAt = iat;
    return times;
  } catch {
    return {};
  }
}
