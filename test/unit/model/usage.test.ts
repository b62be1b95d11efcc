import * as assert from 'node:assert/strict';
import { tokensUsed } from '../../../src/core/engine/records';
import type { Usage } from '../../../src/core/model/types';
import { addUsage, describeTokens, emptyUsage, promptTokens, totalTokens } from '../../../src/core/model/usage';

const usage = (inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheWriteTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

// One definition of "tokens" (src/core/model/usage.ts): input = the whole prompt (uncached +
// cache read + cache write), output = output, tokens = both. Logs, budgets and views use these.
describe('model: one token arithmetic', () => {
  it('adds field by field; input tokens are the whole prompt, tokens are everything', () => {
    const sum = addUsage(usage(1, 2, 3, 4), usage(10, 20, 30, 40));
    assert.deepEqual(sum, usage(11, 22, 33, 44));
    assert.deepEqual(addUsage(emptyUsage(), sum), sum);
    assert.equal(promptTokens(sum), 11 + 33 + 44);
    assert.equal(totalTokens(sum), 11 + 22 + 33 + 44);
    assert.equal(describeTokens(sum), `${11 + 33 + 44} in / 22 out`);
  });

  it('the task budget counts the same tokens', () => {
    assert.equal(tokensUsed({ ...usage(5, 7, 100, 3), cost: 0 }), totalTokens(usage(5, 7, 100, 3)));
  });
});
