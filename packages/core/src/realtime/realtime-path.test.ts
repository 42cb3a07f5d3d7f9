import { describe, expect, it } from 'vitest';
import { basicRealtimeUrl, extendedRealtimeUrl } from './realtime-path.js';

describe('realtime addresses', () => {
  const base = 'ws://127.0.0.1:9/apiserver';

  it('extended: service id segment, then one id, 0 for all, or a comma list', () => {
    expect(extendedRealtimeUrl(base, 'svc-1', [5], 't')).toBe(`${base}/events/realtime/svc-1/5?token=t`);
    expect(extendedRealtimeUrl(base, 'svc-1', 'all', 't')).toBe(`${base}/events/realtime/svc-1/0?token=t`);
    expect(extendedRealtimeUrl(`${base}/`, 'svc-1', [1, 2], 't')).toBe(
      `${base}/events/realtime/svc-1/1,2?token=t`,
    );
  });

  it('basic: one task per address', () => {
    expect(basicRealtimeUrl(base, 12, 't')).toBe(`${base}/events/realtime/12?token=t`);
  });

  it('encodes the token and the service id so they cannot change the path or query', () => {
    const url = extendedRealtimeUrl(base, 'a/b?c', [1], 'x&y=z#');
    expect(url).toBe(`${base}/events/realtime/a%2Fb%3Fc/1?token=x%26y%3Dz%23`);
    expect(new URL(url).searchParams.get('token')).toBe('x&y=z#');
  });
});
