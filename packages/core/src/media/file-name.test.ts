import { describe, expect, it } from 'vitest';
import { chooseFileName } from './file-name.js';

describe('chooseFileName', () => {
  const url = new URL('https://h/media/clips/abc');
  it('prefers a Content-Disposition name, stripped of paths and odd characters', () => {
    expect(chooseFileName(url, 'video/mp4', 'attachment; filename="../../etc/clip 1.mp4"', 'x')).toBe(
      'clip_1.mp4',
    );
    expect(chooseFileName(url, 'video/mp4', "attachment; filename*=UTF-8''caf%C3%A9.mp4", 'x')).toBe(
      'caf_.mp4',
    );
  });
  it('uses the URL name when it has an extension, else the fallback plus the type extension', () => {
    expect(chooseFileName(new URL('https://h/m/98765.jpg?auth_token=x'), 'image/jpeg', undefined, 'x')).toBe(
      '98765.jpg',
    );
    expect(chooseFileName(url, 'image/jpeg; charset=binary', undefined, 'event-5-image')).toBe(
      'event-5-image.jpg',
    );
    expect(chooseFileName(url, 'application/octet-stream', undefined, 'event-5-video')).toBe(
      'event-5-video.bin',
    );
    expect(chooseFileName(url, undefined, undefined, '')).toBe('media.bin');
  });
});
