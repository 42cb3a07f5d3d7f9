/**
 * Unmasked WebSocket text frames (RFC 6455 §5.2) written back to back into large buffers. The
 * pump frames each event once per form here; a socket that receives a run of consecutive frames
 * gets one slice of the buffer (no copy), so a whole chunk usually costs one socket write.
 */
const SEGMENT_BYTES = 512 * 1024;

export class FrameBatch {
  readonly segments: Buffer[] = [];
  #current: Buffer = Buffer.alloc(0);
  #offset = 0;

  /** Appends a frame for `text`; returns where it lies as [segment, start, end]. */
  add(text: string): [number, number, number] {
    const room = text.length * 3 + 10; // worst case: 3 bytes per UTF-16 unit, 10-byte header
    if (this.#offset + room > this.#current.length) {
      this.#current = Buffer.allocUnsafe(Math.max(SEGMENT_BYTES, room));
      this.segments.push(this.#current);
      this.#offset = 0;
    }
    const buf = this.#current;
    const start = this.#offset;
    // Write the text after a 4-byte header (the usual size for 126..65535 bytes), then fix up.
    const length = buf.write(text, start + 4, 'utf8');
    let end: number;
    buf[start] = 0x81; // FIN + text opcode
    if (length < 126) {
      buf.copyWithin(start + 2, start + 4, start + 4 + length);
      buf[start + 1] = length;
      end = start + 2 + length;
    } else if (length < 65536) {
      buf[start + 1] = 126;
      buf.writeUInt16BE(length, start + 2);
      end = start + 4 + length;
    } else {
      buf.copyWithin(start + 10, start + 4, start + 4 + length);
      buf[start + 1] = 127;
      buf.writeUInt32BE(Math.floor(length / 2 ** 32), start + 2);
      buf.writeUInt32BE(length >>> 0, start + 6);
      end = start + 10 + length;
    }
    this.#offset = end;
    return [this.segments.length - 1, start, end];
  }
}

/** The frames one socket gets from a batch, merged into runs of adjacent bytes. */
export class FrameRuns {
  readonly #runs: number[] = [];

  push(frame: readonly [number, number, number]): void {
    const runs = this.#runs;
    const n = runs.length;
    if (n > 0 && runs[n - 3] === frame[0] && runs[n - 1] === frame[1]) runs[n - 1] = frame[2];
    else runs.push(frame[0], frame[1], frame[2]);
  }

  get empty(): boolean {
    return this.#runs.length === 0;
  }

  /** The runs as buffer slices, ready to write. */
  slices(batch: FrameBatch): Buffer[] {
    const out: Buffer[] = [];
    for (let i = 0; i < this.#runs.length; i += 3) {
      const segment = batch.segments[this.#runs[i] as number] as Buffer;
      out.push(segment.subarray(this.#runs[i + 1] as number, this.#runs[i + 2] as number));
    }
    return out;
  }
}
