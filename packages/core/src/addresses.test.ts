import { describe, expect, it } from 'vitest';
import { resolveAddresses } from './addresses.js';
import { ValidationError } from './errors/validation-error.js';

describe('resolveAddresses', () => {
  const expected = {
    siteUrl: 'https://host.example/observ',
    apiUrl: 'https://host.example/observ/apiserver',
    wsUrl: 'wss://host.example/observ/apiserver',
  };

  it.each([
    ['https://host.example/observ'],
    ['https://host.example/observ/'],
    ['https://host.example/observ/apiserver'],
    ['https://host.example/observ/apiserver/'],
    ['https://host.example/observ/apiserver/events/history?limit=5'],
    ['wss://host.example/observ/apiserver'],
    ['wss://host.example/observ/apiserver/events/realtime/svc/0?token=abc'],
    ['  https://host.example/observ  '],
  ])('derives all three addresses from %s', (url) => {
    expect(resolveAddresses(url)).toEqual(expected);
  });

  it('keeps plain http/ws and ports, and handles a site at the root', () => {
    expect(resolveAddresses('http://127.0.0.1:8080')).toEqual({
      siteUrl: 'http://127.0.0.1:8080',
      apiUrl: 'http://127.0.0.1:8080/apiserver',
      wsUrl: 'ws://127.0.0.1:8080/apiserver',
    });
    expect(resolveAddresses('ws://127.0.0.1:9/apiserver').siteUrl).toBe('http://127.0.0.1:9');
  });

  it('lets wsUrl override only the WebSocket base', () => {
    expect(
      resolveAddresses('https://host.example/observ', 'wss://rt.example:8443/x/apiserver/events'),
    ).toEqual({
      ...expected,
      wsUrl: 'wss://rt.example:8443/x/apiserver',
    });
    expect(resolveAddresses('https://host.example/observ', 'http://rt.example').wsUrl).toBe(
      'ws://rt.example/apiserver',
    );
  });

  it('refuses other schemes, garbage and credentials in the URL without echoing secrets', () => {
    expect(() => resolveAddresses('ftp://host/x')).toThrow(ValidationError);
    expect(() => resolveAddresses('not a url')).toThrow(/Invalid url/);
    try {
      resolveAddresses('https://me:hunter2@host/observ');
      expect.unreachable();
    } catch (error) {
      expect(ValidationError.isInstance(error)).toBe(true);
      expect(String(error)).not.toContain('hunter2');
    }
    try {
      resolveAddresses('garbage?token=SECRET');
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain('SECRET');
    }
  });
});
