const secretParams = ['token', 'auth_token', 'access_token', 'password', 'client_secret'];

/** Replaces secret query values (`token`, `auth_token`, …) and URL credentials with `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    let changed = false;
    for (const name of secretParams) {
      if (parsed.searchParams.has(name)) {
        parsed.searchParams.set(name, '***');
        changed = true;
      }
    }
    if (parsed.password) {
      parsed.password = '***';
      changed = true;
    }
    // Keep the caller's exact spelling when nothing needed hiding; URLSearchParams re-encodes.
    return changed ? parsed.toString().replaceAll('%2A%2A%2A', '***') : url;
  } catch {
    // Not an absolute URL: hide anything that looks like a secret parameter anyway.
    return url.replace(/([?&](?:token|auth_token|access_token|password|client_secret)=)[^&#]*/gi, '$1***');
  }
}
