const decoder = new TextDecoder();

/**
 * Bytes of text decoded at once: a piece ends at the first top-level comma past this many, so
 * with elements of a few KB it stays below V8's large-object size (128 KB) even as two-byte text
 * (one non-ASCII character makes V8 store the whole string that way). A larger string gets memory
 * of its own, never touched before, and on a busy VM its page faults made decoding a 100-event
 * history page with a few accents 20 times slower (1.4 ms, not 50 µs).
 */
const defaultPieceBytes = 32 * 1024;

const quote = 0x22;
const backslash = 0x5c;
const comma = 0x2c;

/**
 * Parses a JSON body. A large top-level array (a history page) is decoded and parsed in pieces
 * of whole elements, cut at its top-level commas, and the pieces joined: the same value as one
 * `JSON.parse`. Anything else, and any piece that does not parse, goes through one `JSON.parse`
 * of the whole text, which throws as it would have.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  // ASCII text decodes to a one-byte string, which the pieces are not needed for: one parse, as
  // any reader does, without a pass over every byte to find where to cut.
  if (isAscii(bytes)) return JSON.parse(decoder.decode(bytes));
  return parseArrayInPieces(bytes) ?? JSON.parse(decoder.decode(bytes));
}

/** Whether every byte is below 0x80, read four bytes at a time where they are aligned. */
export function isAscii(bytes: Uint8Array): boolean {
  let index = 0;
  const end = bytes.length;
  while (index < end && (bytes.byteOffset + index) % 4 !== 0) {
    if ((bytes[index] as number) > 0x7f) return false;
    index++;
  }
  const words = Math.floor((end - index) / 4);
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + index, words);
    for (let word = 0; word < words; word++) if (((view[word] as number) & 0x80808080) !== 0) return false;
    index += words * 4;
  }
  for (; index < end; index++) if ((bytes[index] as number) > 0x7f) return false;
  return true;
}

/**
 * The elements of a top-level array longer than `pieceBytes`, parsed in pieces of about that
 * many bytes; undefined for anything else.
 */
export function parseArrayInPieces(bytes: Uint8Array, pieceBytes = defaultPieceBytes): unknown[] | undefined {
  if (bytes.length <= pieceBytes) return undefined;
  const start = arrayStart(bytes);
  return start === undefined ? undefined : parsePieces(bytes, start, pieceBytes);
}

/**
 * How many elements a top-level array of objects holds, counted without parsing it, or undefined
 * when the text is no such array (or its first element's first key has escapes). A guess, made
 * in a native search for `,{"<first key>":` (see `parsePieces`): it counts too many where an
 * element nests an object beginning with that key, and too few where the service puts spaces
 * between elements. Whoever acts on it checks it against the parsed array.
 */
export function countArrayElements(bytes: Uint8Array): number | undefined {
  const open = arrayStart(bytes);
  if (open === undefined) return undefined;
  let index = open + 1;
  while (index < bytes.length && isSpace(bytes[index] as number)) index++;
  if (bytes[index] === 0x5d /* ] */) return 0;
  const pattern = nextElementPattern(bytes, index);
  if (pattern === undefined) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 1;
  for (let at = view.indexOf(pattern, index); at !== -1; at = view.indexOf(pattern, at + pattern.length))
    count++;
  return count;
}

/** Index of the `[` that opens a top-level array (after a BOM and whitespace), or undefined. */
function arrayStart(bytes: Uint8Array): number | undefined {
  let index = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (index < bytes.length && isSpace(bytes[index] as number)) index++;
  return bytes[index] === 0x5b ? index : undefined;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * The array's elements, parsed piece by piece; undefined when a piece does not parse.
 *
 * Where the first element is an object, its first key makes the cuts cheap: a service lists every
 * element in one shape, so `,{"<key>":` begins the next element, and a native search finds it
 * without reading every byte here. That text never lies inside a string (a `"` in a string is
 * escaped), but it may begin an object nested inside an element; a piece cut there does not
 * parse, since its brackets do not balance. So a piece that parses was cut between two elements,
 * and one that does not is read again, from where it began, by the byte scan below (which also
 * takes over where no such text follows).
 */
function parsePieces(bytes: Uint8Array, open: number, pieceBytes: number): unknown[] | undefined {
  const items: unknown[] = [];
  let pieceStart = open + 1;
  const pattern = nextElementPattern(bytes, pieceStart);
  if (pattern !== undefined) {
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    for (;;) {
      // The last piece: it ends with the array's own `]` (and whatever follows it).
      if (bytes.length - pieceStart <= pieceBytes) {
        return addPiece(items, `[${decoder.decode(bytes.subarray(pieceStart))}`) ? items : undefined;
      }
      const cut = view.indexOf(pattern, pieceStart + pieceBytes);
      if (cut === -1) break;
      if (!addPiece(items, `[${decoder.decode(bytes.subarray(pieceStart, cut))}]`)) break;
      pieceStart = cut + 1;
    }
  }
  return scanPieces(bytes, items, pieceStart, pieceBytes);
}

/**
 * `,{"<key>":` for the first key of the element at `start` when it is an object whose first key
 * has no escapes; undefined otherwise.
 */
function nextElementPattern(bytes: Uint8Array, start: number): Buffer | undefined {
  let index = start;
  while (index < bytes.length && isSpace(bytes[index] as number)) index++;
  if (bytes[index] !== 0x7b || bytes[index + 1] !== quote) return undefined;
  const keyStart = index + 2;
  let keyEnd = keyStart;
  // A short key only (any service's first key is a short name such as `id`).
  while (keyEnd < bytes.length && keyEnd - keyStart < 64) {
    const byte = bytes[keyEnd] as number;
    if (byte === quote) break;
    if (byte === backslash) return undefined;
    keyEnd++;
  }
  if (bytes[keyEnd] !== quote || bytes[keyEnd + 1] !== 0x3a /* : */) return undefined;
  return Buffer.concat([Buffer.from(',{"'), bytes.subarray(keyStart, keyEnd), Buffer.from('":')]);
}

/**
 * The byte scan: the elements from `pieceStart` (the start of an element, just inside the
 * array) on, added to `items`, cut at top-level commas; undefined when a piece does not parse.
 */
function scanPieces(
  bytes: Uint8Array,
  items: unknown[],
  from: number,
  pieceBytes: number,
): unknown[] | undefined {
  let pieceStart = from;
  let depth = 1;
  const end = bytes.length;
  for (let index = from; index < end; index++) {
    const byte = bytes[index] as number;
    if (byte === quote) {
      // Skip the string: brackets and commas inside it are text.
      index++;
      while (index < end) {
        const inner = bytes[index] as number;
        if (inner === quote) break;
        index += inner === backslash ? 2 : 1;
      }
    } else if (byte === 0x5b || byte === 0x7b) depth++;
    else if (byte === 0x5d || byte === 0x7d) depth--;
    else if (byte === comma && depth === 1 && index - pieceStart >= pieceBytes) {
      if (!addPiece(items, `[${decoder.decode(bytes.subarray(pieceStart, index))}]`)) return undefined;
      pieceStart = index + 1;
    }
  }
  // The last piece ends with the array's own `]` (and whatever follows it).
  if (!addPiece(items, `[${decoder.decode(bytes.subarray(pieceStart))}`)) return undefined;
  return items;
}

function addPiece(items: unknown[], text: string): boolean {
  let piece: unknown;
  try {
    piece = JSON.parse(text);
  } catch {
    return false;
  }
  // An empty piece would hide a stray comma the whole text would be refused for.
  if (!Array.isArray(piece) || piece.length === 0) return false;
  for (const item of piece) items.push(item);
  return true;
}
