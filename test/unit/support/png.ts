import * as assert from 'node:assert/strict';

/** Width and height from a PNG's IHDR chunk (the first after the signature). */
export function pngSize(png: Buffer): { width: number; height: number } {
  assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'not a PNG');
  assert.equal(png.subarray(12, 16).toString('ascii'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
