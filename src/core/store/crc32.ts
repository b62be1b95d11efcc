/**
 * CRC-32 (IEEE) for journal records and snapshot trailers. node:zlib's native crc32 is used where
 * the runtime has it (Node 20.15+, 22.2+): at activation the JS loop runs cold (interpreted) over
 * the whole snapshot, which cost tens of ms. The JS version below is the fallback for a VS Code
 * whose Electron ships an older Node; both compute the same IEEE polynomial.
 */
import * as zlib from 'node:zlib';

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (nativeCrc32) return nativeCrc32(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)) >>> 0;
  return crc32Js(bytes, start, end);
}

/** The portable version (and the reference the native one is tested against). */
export function crc32Js(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
