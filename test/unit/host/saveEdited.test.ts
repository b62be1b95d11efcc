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
