import * as assert from 'node:assert/strict';
import { crc32, crc32Js } from '../../../src/core/store/crc32';

describe('crc32', () => {
  it('is the IEEE CRC-32 (check value of "123456789")', () => {
    const bytes = Buffer.from('123456789', 'ascii');
    assert.equal(crc32(bytes), 0xcbf43926);
    assert.equal(crc32Js(bytes), 0xcbf43926);
  });

  it('the native and the portable versions agree on random ranges (seeded)', () => {
    const seed = Number(process.env.SEED ?? 12);
    let x = seed;
    const next = () => (x = (x * 1103515245 + 12345) >>> 0);
    const bytes = Buffer.alloc(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
    for (let round = 0; round < 200; round++) {
      const start = next() % bytes.length;
      const end = start + (next() % (bytes.length - start + 1));
      assert.equal(crc32(bytes, start, end), crc32Js(bytes, start, end), `seed ${seed}, range ${start}..${end}`);
    }
  });
});
