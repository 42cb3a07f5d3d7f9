import { redactUrl } from '../errors/redact-url.js';
import { ValidationError } from '../errors/validation-error.js';

/** Normalizes configured trusted origins (`https://cdn.example.com`) and refuses anything else. */
export function parseTrustedOrigins(values: unknown): string[] {
  if (values === undefined) return [];
  const allowed =
    'an array of origins such as "https://cdn.example.com" (scheme, host and optional port only)';
  if (!Array.isArray(values)) throw new ValidationError('trustedMediaOrigins', 'not an array', allowed);
  return values.map((value, index) => {
    const parameter = `trustedMediaOrigins[${index}]`;
    if (typeof value !== 'string') throw new ValidationError(parameter, typeof value, allowed);
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      throw new ValidationError(parameter, JSON.stringify(redactUrl(value).slice(0, 80)), allowed);
    }
    const pathless = url.pathname === '/' && url.search === '' && url.hash === '';
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      !pathless ||
      url.username ||
      url.password
    ) {
      throw new ValidationError(parameter, JSON.stringify(redactUrl(value).slice(0, 80)), allowed);
    }
    return url.origin;
  });
}
