/** Frames that break the protocol on purpose, so clients prove they report them and carry on. */
export type MalformedKind = 'not-json' | 'wrong-types' | 'missing-fields' | 'huge';

export const MALFORMED_KINDS: readonly MalformedKind[] = [
  'not-json',
  'wrong-types',
  'missing-fields',
  'huge',
];

/** Size of a `huge` frame: 2 MiB. */
export const HUGE_FRAME_BYTES = 2 * 1024 * 1024;

const NOT_JSON = [
  '{"task_id": 1, "event_name": "person_in_zone", "timestamp": ',
  '<html><body>502 Bad Gateway</body></html>',
  'event person_in_zone on task 1',
];

let hugeFrame: string | undefined;

/** The n-th frame of a kind (not-json cycles through a few flavours). */
export function malformedFrame(kind: MalformedKind, n: number): string {
  switch (kind) {
    case 'not-json':
      return NOT_JSON[n % NOT_JSON.length] as string;
    case 'wrong-types':
      return JSON.stringify({
        id: 'seven',
        task_id: 'one',
        event_id: null,
        event_name: 42,
        event_description: ['not', 'a', 'string'],
        timestamp: 1700000000,
        image_url: false,
        video_url: {},
        detected_objects: 'none',
      });
    case 'missing-fields':
      return JSON.stringify({
        event_name: 'person_in_zone',
        note: 'task_id, timestamp and detected_objects are missing',
      });
    case 'huge': {
      if (!hugeFrame) {
        const head = '{"kind":"huge","padding":"';
        const tail = '"}';
        hugeFrame = head + 'x'.repeat(HUGE_FRAME_BYTES - head.length - tail.length) + tail;
      }
      return hugeFrame;
    }
  }
}
