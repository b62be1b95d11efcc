import * as assert from 'node:assert/strict';
import { backoffDelay, DEFAULT_RETRY } from '../../../src/core/store/backoff';
import { crc32 } from '../../../src/core/store/crc32';
import { decodeJournal, encodeRecord } from '../../../src/core/store/journalFormat';
import { sealSnapshot, unsealSnapshot, unsealSnapshotFile } from '../../../src/core/store/storeFiles';

describe('store: journal format, snapshot seal, backoff', () => {
  const records = [
    { lsn: 1, statements: [{ sql: 'INSERT INTO t VALUES (?, ?)', params: ['a', 1] }] },
    {
      lsn: 2,
      statements: [
        { sql: 'UPDATE t SET b = ?', params: [new Uint8Array([9, 8])] },
        { sql: 'DELETE FROM t', params: [] },
      ],
    },
  ];
  const journal = Buffer.concat(records.map(encodeRecord));

  it('computes the standard CRC-32', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  });

  it('round-trips records, blobs included', () => {
    const decoded = decodeJournal(journal);
    assert.equal(decoded.validBytes, journal.length);
    assert.equal(decoded.ignoredBytes, 0);
    assert.deepEqual(decoded.records, records);
  });

  it('with what a snapshot holds, returns only the records above it but still checks and counts every frame', () => {
    const decoded = decodeJournal(journal, { applied: 1 });
    assert.deepEqual(decoded.records, records.slice(1));
    assert.equal(decoded.lastLsn, 2);
    assert.equal(decoded.validBytes, journal.length);
    const covered = decodeJournal(journal, { applied: 2 });
    assert.deepEqual(covered.records, []);
    assert.equal(covered.lastLsn, 2);
    // A skipped record is still checksummed: a flipped byte in it is damage, and the next record is read.
    const bad = Buffer.from(journal);
    bad[10] ^= 0x41;
    const damaged = decodeJournal(bad, { applied: 2 });
    assert.deepEqual(damaged.damaged, [{ start: 0, end: encodeRecord(records[0]).length }]);
    assert.equal(damaged.lastLsn, 2);
    assert.equal(damaged.validBytes, journal.length);
    assert.equal(damaged.ignoredBytes, 0);
  });

  it('treats zero-filled room after the last record as clean, anything else as a torn tail', () => {
    const padded = Buffer.concat([journal, Buffer.alloc(4096)]);
    assert.deepEqual(decodeJournal(padded).records.length, 2);
    assert.equal(decodeJournal(padded).ignoredBytes, 0);
    for (let cut = 1; cut < encodeRecord(records[1]).length; cut += 7) {
      const torn = Buffer.concat([journal.subarray(0, journal.length - cut), Buffer.alloc(64)]);
      const decoded = decodeJournal(torn);
      assert.equal(decoded.records.length, 1, `cut ${cut}`);
      assert.ok(decoded.ignoredBytes > 0, `cut ${cut}`);
    }
  });

  it('rejects every single-byte corruption of a record, and keeps every record it did not hit', () => {
    for (let i = 0; i < journal.length; i += 3) {
      const bad = Buffer.from(journal);
      bad[i] ^= 0x41;
      const decoded = decodeJournal(bad);
      const hitFirst = i < encodeRecord(records[0]).length;
      // Never altered content: exactly the record the byte was in is gone, and the loss is reported.
      assert.deepEqual(decoded.records, hitFirst ? records.slice(1) : records.slice(0, 1), `byte ${i}`);
      assert.ok(decoded.damaged.length > 0 || decoded.ignoredBytes > 0, `byte ${i}`);
    }
  });

  it('a flipped bit anywhere in a 100-record segment loses that record only (payload, checksum or length field)', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      lsn: i + 1,
      statements: [{ sql: 'INSERT INTO t VALUES (?, ?)', params: [`row-${i}`, i] }],
    }));
    const frames = many.map(encodeRecord);
    const segment = Buffer.concat([...frames, Buffer.alloc(4096)]);
    const starts: number[] = [];
    frames.reduce((at, frame) => (starts.push(at), at + frame.length), 0);
    // Every offset class of record 31: its length field, its checksum, the start, middle and end of its payload.
    const target = 30;
    const frameStart = starts[target];
    const offsets = [0, 2, 4, 7, 8, 12, Math.floor(frames[target].length / 2), frames[target].length - 1].map((o) => frameStart + o);
    for (const offset of offsets) {
      for (const bit of [0, 3, 7]) {
        const bad = Buffer.from(segment);
        bad[offset] ^= 1 << bit;
        const decoded = decodeJournal(bad);
        const lsns = decoded.records.map((r) => r.lsn);
        assert.deepEqual(
          lsns,
          [...many.keys()].filter((i) => i !== target).map((i) => i + 1),
          `offset ${offset - frameStart} bit ${bit}`,
        );
        assert.equal(decoded.damaged.length, 1);
        assert.equal(decoded.ignoredBytes, 0);
      }
    }
  });

  it('records in the seal the journal segment a snapshot was taken at, under its checksum, and still reads v1 seals', () => {
    const db = new Uint8Array(Array.from({ length: 500 }, (_, i) => i % 13));
    const sealed = sealSnapshot(db, 42);
    const unsealed = unsealSnapshotFile(sealed);
    assert.ok(!('corrupt' in unsealed));
    assert.equal(unsealed.journalSeq, 42);
    assert.deepEqual(Array.from(unsealed.db), Array.from(db));
    const flipped = Buffer.from(sealed);
    flipped[db.length] ^= 0x01; // the segment number itself
    assert.deepEqual(unsealSnapshotFile(flipped), { corrupt: 'checksum mismatch' });
    // A snapshot written before the segment was recorded: [db][TLSNAP01][crc][length].
    const v1 = Buffer.alloc(db.length + 16);
    v1.set(db, 0);
    v1.write('TLSNAP01', db.length, 'latin1');
    v1.writeUInt32LE(crc32(db), db.length + 8);
    v1.writeUInt32LE(db.length, db.length + 12);
    const old = unsealSnapshotFile(v1);
    assert.ok(!('corrupt' in old));
    assert.equal(old.journalSeq, 0);
    assert.deepEqual(Array.from(old.db), Array.from(db));
  });

  it('seals snapshots so truncation and bit flips are detected', () => {
    const db = new Uint8Array(Array.from({ length: 1000 }, (_, i) => i % 251));
    const sealed = sealSnapshot(db);
    assert.deepEqual(Array.from(unsealSnapshot(sealed) as Uint8Array), Array.from(db));
    assert.deepEqual(unsealSnapshot(sealed.subarray(0, 900)), { corrupt: 'missing trailer (truncated write?)' });
    const flipped = Buffer.from(sealed);
    flipped[10] ^= 1;
    assert.deepEqual(unsealSnapshot(flipped), { corrupt: 'checksum mismatch' });
  });

  it('backs off min(cap, base * 2^(attempts-1)) within ±jitter', () => {
    const policy = { baseMs: 100, capMs: 1000, maxAttempts: 10, jitter: 0.5 };
    assert.equal(
      backoffDelay(1, policy, () => 0.5),
      100,
    );
    assert.equal(
      backoffDelay(3, policy, () => 0.5),
      400,
    );
    assert.equal(
      backoffDelay(9, policy, () => 0.5),
      1000,
    ); // capped
    assert.equal(
      backoffDelay(1, policy, () => 0),
      50,
    );
    for (let attempts = 1; attempts <= 12; attempts++) {
      const raw = Math.min(1000, 100 * 2 ** (attempts - 1));
      for (let k = 0; k < 50; k++) {
        const d = backoffDelay(attempts, policy);
        assert.ok(d >= raw * 0.5 - 1 && d <= raw * 1.5 + 1, `attempts ${attempts}: ${d}`);
      }
    }
    assert.deepEqual(DEFAULT_RETRY, { baseMs: 2_000, capMs: 300_000, maxAttempts: 5, jitter: 0.2 });
  });
});
