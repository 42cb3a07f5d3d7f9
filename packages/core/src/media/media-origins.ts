import { redactUrl } from '../errors/redact-url.js';
import { ValidationError } from '../errors/validation-error.js';

/** Normalizes configured trusted origins (`https://cdn.example.com`) and refuses anything else. */
export function parseTrustedOrigins(values: unknown): string[] {
  if (values === undefined) return [];
  // Said of one origin for a bad entry: hosts show the list as text ("Trusted Media Hosts").
  const allowed =
    'an origin such as "https://cdn.example.com" (scheme, host and optional port only, no path)';
  if (!Array.isArray(values)) {
    throw new ValidationError(
      'trustedMediaOrigins',
      'not a list',
      'a list of origins such as "https://cdn.example.com" (scheme, host and optional port only)',
    );
  }
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
