const extensions: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'video/x-matroska': 'mkv',
  'application/vnd.apple.mpegurl': 'm3u8',
};

function sanitize(name: string): string {
  return name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 120);
}

function fromContentDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(header)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain parameter
    }
  }
  return /filename\s*=\s*"?([^";]+)"?/i.exec(header)?.[1]?.trim();
}

/**
 * A safe file name for a download: the server's Content-Disposition, else the URL's last path
 * segment when it has an extension, else `<fallback>.<extension of the content type>`.
 */
export function chooseFileName(
  url: URL,
  contentType: string | undefined,
  contentDisposition: string | undefined,
  fallback: string,
): string {
  const fromHeader = fromContentDisposition(contentDisposition);
  if (fromHeader) {
    const safe = sanitize(fromHeader.split(/[\\/]/).pop() ?? '');
    if (safe) return safe;
  }
  let last = url.pathname.split('/').pop() ?? '';
  try {
    last = decodeURIComponent(last);
  } catch {
    // keep it encoded
  }
  const safeLast = sanitize(last);
  if (/\.[A-Za-z0-9]{2,5}$/.test(safeLast)) return safeLast;
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const ext =
    extensions[type] ?? (type.startsWith('image/') || type.startsWith('video/') ? type.split('/')[1] : 'bin');
  return `${sanitize(fallback) || 'media'}.${sanitize(ext ?? 'bin')}`;
}
