import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { proxyAuthorization, resolveProxy } from './proxy.js';

const via = (routes: ReturnType<typeof resolveProxy>, url: string) => routes?.proxyFor(new URL(url))?.href;

describe('proxy option', () => {
  it('is off by default and with an environment that names no proxy', () => {
    expect(resolveProxy(undefined)).toBeUndefined();
    expect(resolveProxy('env', { NO_PROXY: 'example.com' })).toBeUndefined();
  });

  it('routes every URL through { url } except the noProxy hosts', () => {
    const routes = resolveProxy({
      url: 'http://proxy.corp:3128',
      noProxy: 'localhost, .internal.example, 10.0.0.5:8443',
    });
    expect(via(routes, 'https://service.example.com/observ')).toBe('http://proxy.corp:3128/');
    expect(via(routes, 'wss://service.example.com/apiserver')).toBe('http://proxy.corp:3128/');
    expect(via(routes, 'http://localhost:8080/')).toBeUndefined();
    expect(via(routes, 'https://cam.internal.example/x')).toBeUndefined();
    expect(via(routes, 'https://internal.example/x')).toBeUndefined();
    expect(via(routes, 'https://10.0.0.5:8443/')).toBeUndefined();
    // The port of a host:port entry must match.
    expect(via(routes, 'https://10.0.0.5/')).toBe('http://proxy.corp:3128/');
    // A plain name also covers its subdomains (as curl reads it), never a mere suffix of a name.
    const plain = resolveProxy({ url: 'proxy:8080', noProxy: ['example.com'] });
    expect(via(plain, 'https://api.example.com/')).toBeUndefined();
    expect(via(plain, 'https://badexample.com/')).toBe('http://proxy:8080/');
    expect(via(resolveProxy({ url: 'http://p:1', noProxy: '*' }), 'https://any.where/')).toBeUndefined();
  });

  it("reads 'env' as curl and Node-RED do: per scheme, lower case first, ALL_PROXY as fallback, NO_PROXY", () => {
    const routes = resolveProxy('env', {
      HTTPS_PROXY: 'http://upper:1',
      https_proxy: 'http://secure:3128',
      HTTP_PROXY: 'http://plain:3128',
      NO_PROXY: '127.0.0.1',
    });
    expect(via(routes, 'https://service.example.com/')).toBe('http://secure:3128/');
    expect(via(routes, 'wss://service.example.com/')).toBe('http://secure:3128/');
    expect(via(routes, 'ws://service.example.com/')).toBe('http://plain:3128/');
    expect(via(routes, 'http://127.0.0.1:8080/')).toBeUndefined();
    const all = resolveProxy('env', { ALL_PROXY: 'http://all:8080' });
    expect(via(all, 'https://x.example/')).toBe('http://all:8080/');
    expect(via(all, 'http://x.example/')).toBe('http://all:8080/');
    // A proxy without a scheme is an HTTP proxy, for https targets too (as curl reads it).
    const bare = resolveProxy('env', { HTTPS_PROXY: 'proxy.corp:3128', NO_PROXY: '*.internal' });
    expect(via(bare, 'wss://service.example.com/')).toBe('http://proxy.corp:3128/');
    expect(via(bare, 'https://cam.internal/')).toBeUndefined();
    // No HTTPS_PROXY: https goes directly, never through HTTP_PROXY.
    expect(via(resolveProxy('env', { HTTP_PROXY: 'http://plain:1' }), 'https://x.example/')).toBeUndefined();
  });

  it('refuses a malformed proxy naming the field, without echoing a password', () => {
    const error = (() => {
      try {
        resolveProxy({ url: 'socks5://user:hunter2@proxy:1080' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).parameter).toBe('proxy.url');
    expect((error as Error).message).not.toContain('hunter2');
    expect(() => resolveProxy('env', { HTTPS_PROXY: 'ftp://x' })).toThrow(/HTTPS_PROXY/);
    expect(() => resolveProxy({ url: 'http://p:1', noProxy: 5 })).toThrow(/proxy\.noProxy/);
    expect(() => resolveProxy('yes')).toThrow(/Invalid proxy/);
  });

  it('turns URL credentials into Basic Proxy-Authorization', () => {
    expect(proxyAuthorization(new URL('http://alice:s%20cret@p:1'))).toBe(
      `Basic ${Buffer.from('alice:s cret').toString('base64')}`,
    );
    expect(proxyAuthorization(new URL('http://p:1'))).toBeUndefined();
  });
});
