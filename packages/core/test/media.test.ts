import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AuthError, ValidationError } from '../src/index.js';
import { client, optionsFor, simulator } from './helpers.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('media against the simulator', () => {
  it('signs URLs of the service origin only', async () => {
    const sim = await simulator({ form: 'extended', historySize: 5 });
    const c = client(optionsFor(sim, { trustedMediaOrigins: ['https://cdn.example.com'] }));
    const [event] = await c.events.history({ limit: 1 });
    if (!event?.imageUrl) throw new Error('expected an image URL');
    const signed = new URL(c.media.signedUrl(event.imageUrl));
    expect(signed.searchParams.get('auth_token')).toBe(sim.token);
    expect(signed.pathname).toBe(new URL(event.imageUrl).pathname);
    const response = await fetch(signed);
    expect(response.status).toBe(200);
    await response.arrayBuffer();

    expect(new URL(c.media.signedUrl('https://cdn.example.com/a.jpg?x=1')).searchParams.get('x')).toBe('1');
    // Relative URLs resolve against the site.
    expect(c.media.signedUrl('/apiserver/media/clips/1.mp4')).toBe(
      `${sim.siteUrl}/apiserver/media/clips/1.mp4?auth_token=${encodeURIComponent(sim.token)}`,
    );
    // An existing auth_token is replaced, not duplicated.
    expect(
      new URL(c.media.signedUrl(`${event.imageUrl}?auth_token=old`)).searchParams.getAll('auth_token'),
    ).toEqual([sim.token]);
  });

  it('refuses to send the token to a foreign host, with a clear error', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    for (const url of ['https://evil.example.com/x.jpg', 'http://localhost:1/x.jpg', 'file:///etc/passwd']) {
      const error = (() => {
        try {
          c.media.signedUrl(url);
        } catch (e) {
          return e;
        }
      })();
      expect(ValidationError.isInstance(error), url).toBe(true);
      expect(String(error)).not.toContain(sim.token);
    }
    expect(() => c.media.signedUrl('https://evil.example.com/x.jpg')).toThrow(
      /add its origin to the trusted media hosts/,
    );
    await expect(c.media.download('https://evil.example.com/x.jpg', 'image')).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('with email/password, signedUrl needs a token first; signUrl logs in', async () => {
    const sim = await simulator({ form: 'extended', historySize: 1 });
    const c = client(optionsFor(sim, { auth: sim.credentials }));
    const url = `${sim.apiUrl}/media/snapshots/1.png`;
    expect(() => c.media.signedUrl(url)).toThrow(AuthError);
    const signed = await c.media.signUrl(url);
    expect(new URL(signed).searchParams.get('auth_token')).toMatch(/^ey/);
    expect(c.media.signedUrl(url)).toBe(signed);
    expect(sim.control.stats().logins).toBe(1);
  });

  it('downloads an event image as bytes with type, size and a file name', async () => {
    const sim = await simulator({ form: 'extended', historySize: 3 });
    const c = client(optionsFor(sim));
    const [event] = await c.events.history({ limit: 1 });
    if (!event) throw new Error('expected an event');
    const image = await c.media.download(event, 'image');
    expect(Buffer.isBuffer(image.data)).toBe(true);
    expect(image.data.subarray(0, 8).equals(pngSignature)).toBe(true);
    expect(image.contentType).toBe('image/png');
    expect(image.size).toBe(image.data.length);
    expect(image.fileName).toBe(`event-${event.id}.png`);
  });

  it('downloads a video as a stream, from a raw event too, retrying a 503 first', async () => {
    const sim = await simulator({ form: 'basic', historySize: 3 });
    const c = client(optionsFor(sim, { serviceId: undefined, form: 'basic' }));
    const [event] = await c.events.history({ limit: 1 });
    if (!event?.videoUrl) throw new Error('expected a video URL');
    sim.control.failNext(1, 503);
    const video = await c.media.download({ video_url: event.videoUrl, task_id: event.taskId }, 'video');
    expect(video.contentType).toBe('video/mp4');
    const bytes = await readAll(video.data);
    expect(bytes.length).toBe(video.size);
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(video.fileName).toMatch(/^event-\d+\.mp4$/);
  });

  it('refreshes an expired login token for media too', async () => {
    const sim = await simulator({ form: 'extended', historySize: 2 });
    const c = client(optionsFor(sim, { auth: sim.credentials }));
    await c.tasks.list();
    sim.control.expireTokens();
    const image = await c.media.download(`${sim.apiUrl}/media/snapshots/1.png`, 'image');
    expect(image.data.subarray(0, 8).equals(pngSignature)).toBe(true);
    expect(sim.control.stats().logins).toBe(2);
  });

  it('explains a missing URL and an unknown kind', async () => {
    const sim = await simulator({ form: 'extended' });
    const c = client(optionsFor(sim));
    await expect(c.media.download({ task_id: 1 }, 'image')).rejects.toThrow(/Invalid imageUrl/);
    await expect(c.media.download('https://x/y', 'audio' as never)).rejects.toThrow(/Invalid kind/);
    await expect(c.media.download(`${sim.apiUrl}/media/snapshots/999999.png`, 'image')).rejects.toMatchObject(
      {
        status: 404,
      },
    );
  });
});
