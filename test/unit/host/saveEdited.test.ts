import * as assert from 'node:assert/strict';
import { saveEdited } from '../../../src/host/approvals/saveEdited';
import type { SavableDocument } from '../../../src/host/approvals/saveEdited';

/** A document whose save answers `answer`, after `meanwhile` (another saver, or nothing) ran. */
function document(options: { answer: boolean; meanwhile?: (doc: { isDirty: boolean }) => void }): SavableDocument & { isDirty: boolean; saves: number } {
  const doc = {
    isDirty: true,
    saves: 0,
    async save() {
      doc.saves += 1;
      options.meanwhile?.(doc);
      if (options.answer) doc.isDirty = false;
      return options.answer;
    },
  };
  return doc;
}

describe('host: saving the documents an approved change edited', () => {
  it('auto-save got there first: save() answers false on a clean document, and that is a success', async () => {
    // VS Code answers false for "not dirty": the browser workbench's auto-save (afterDelay) saved it.
    const autoSaved = document({ answer: false, meanwhile: (doc) => (doc.isDirty = false) });
    await saveEdited([{ document: autoSaved, name: 'README.md' }]);
    assert.equal(autoSaved.saves, 1);
  });

  it('a save that fails and leaves the document dirty is an error naming the file', async () => {
    const failing = document({ answer: false });
    await assert.rejects(saveEdited([{ document: failing, name: 'src/a.ts' }]), /src\/a\.ts could not be saved/);
  });

  it('a save overlapping an auto-save answers false while still dirty: it waits for that save to land, and succeeds', async () => {
    // As the workbench does when our save arrives while its auto-save is writing: false, still dirty;
    // the auto-save lands a moment later.
    const overlapped = document({ answer: false });
    const settled: string[] = [];
    await saveEdited([{ document: overlapped, name: 'README.md' }], async (doc) => {
      settled.push('waited');
      doc.isDirty = false; // the auto-save landed
    });
    assert.deepEqual(settled, ['waited']);
    assert.equal(overlapped.saves, 1, 'a document the other save left clean is not saved again');
  });

  it('after the wait it saves once more: a second false on a still dirty document is the error', async () => {
    const retried = document({ answer: false });
    let waits = 0;
    await assert.rejects(
      saveEdited([{ document: retried, name: 'README.md' }], async () => void (waits += 1)),
      /README\.md could not be saved/,
    );
    assert.deepEqual([waits, retried.saves], [1, 2]);
    const secondWorks = document({ answer: false });
    await saveEdited([{ document: secondWorks, name: 'a' }], async () => {
      secondWorks.save = async () => {
        secondWorks.saves += 1;
        secondWorks.isDirty = false;
        return true;
      };
    });
    assert.equal(secondWorks.saves, 2);
  });

  it('saves only dirty documents, each once', async () => {
    const dirty = document({ answer: true });
    const clean = document({ answer: true });
    clean.isDirty = false;
    await saveEdited([
      { document: dirty, name: 'a' },
      { document: clean, name: 'b' },
    ]);
    assert.deepEqual([dirty.saves, clean.saves], [1, 0]);
  });
});
