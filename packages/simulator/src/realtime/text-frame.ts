/**
 * Encodes one unmasked WebSocket text frame (RFC 6455 §5.2), as a server sends it. The pump
 * builds each event's frame once per form and writes a whole chunk of frames to a socket in one
 * call, instead of one `ws.send()` (header + payload writes) per event per socket.
 */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const headerLength = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN + text opcode
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(text, headerLength, 'utf8');
  return frame;
}
