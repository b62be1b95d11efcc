import * as assert from 'node:assert/strict';
import { jsonInProse, terminalAnswer } from '../../../src/core/chores/turnEndings';

describe('chores: reading how a model ended its turn', () => {
  it('finds the last JSON object in prose: a fenced block, the whole text, or a balanced span', () => {
    assert.deepEqual(jsonInProse('{"a": 1}'), { a: 1 });
    assert.deepEqual(jsonInProse('Done.\n```json\n{"status": "done"}\n```\nBye'), { status: 'done' });
    assert.deepEqual(jsonInProse('first {"a": 1} then {"b": "x } y", "c": {"d": 2}} end'), { b: 'x } y', c: { d: 2 } });
    assert.equal(jsonInProse('no json here'), undefined);
    assert.equal(jsonInProse('[1, 2]'), undefined, 'an array is not an output');
    assert.equal(jsonInProse('{not: json}'), undefined);
  });

  it('a give-up is an output whose status is needs_human, with its cause', () => {
    assert.deepEqual(terminalAnswer({ status: 'needs_human', cause: 'no access' }), { answer: 'needs_human', cause: 'no access' });
    assert.deepEqual(terminalAnswer({ status: 'NEEDS_HUMAN' }), { answer: 'needs_human' });
    assert.equal(terminalAnswer({ status: 'done' }), undefined);
    assert.equal(terminalAnswer('needs_human'), undefined);
  });
});
