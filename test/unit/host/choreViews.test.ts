import * as assert from 'node:assert/strict';
import { costNoteDiagnostic, parseChoresFile } from '../../../src/core/chores/choreFile';
import { costEstimateNote } from '../../../src/core/chores/chorePreview';
import type { ModelPrices } from '../../../src/core/model/pricing';
import type { ChoreRunRecord } from '../../../src/core/chores/runLog';
import type { ChoreDefinition } from '../../../src/core/chores/types';
import type { ChoreCardFacts } from '../../../src/host/chores/choreViews';
import { choreCard, choreCards } from '../../../src/host/chores/choreViews';

const file = parseChoresFile('chores:\n  - id: lint\n    name: Lint\n    trigger: { files: "src/**/*.ts" }\n    prompt: run the linter\n');
const [chore] = file.chores as [ChoreDefinition];

function facts(over: Partial<ChoreCardFacts> = {}): ChoreCardFacts {
  return {
    trusted: true,
    consentOf: () => 'given',
    stoppedProblem: () => undefined,
    paused: () => undefined,
    nextFireAt: () => undefined,
    history: () => [],
    ...over,
  };
}

const skipped: ChoreRunRecord = {
  runId: 'r1',
  choreId: 'lint',
  fireKey: 'lint@1',
  attempt: 0,
  cause: 'files',
  startedAt: 1,
  endedAt: 1,
  status: 'skipped',
  reason: 'the workspace is not trusted (Restricted Mode): chores do not run',
  usage: { iterations: 0, elapsedMs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
  steps: [],
};

// A chore's card says what keeps it from running, in one order (Restricted Mode, consent, a stop),
// in the whole list and in the patch the host posts after each run alike.
describe('host: chore cards', () => {
  it('says Restricted Mode first, then consent, then a stop, and is enabled only with none', () => {
    assert.match(choreCard(chore, facts({ trusted: false, consentOf: () => 'needed' })).problem ?? '', /^Restricted Mode/);
    assert.match(choreCard(chore, facts({ consentOf: () => 'needed', stoppedProblem: () => 'off' })).problem ?? '', /^Not enabled on this machine/);
    assert.equal(choreCard(chore, facts({ stoppedProblem: () => 'Chores are switched off.' })).problem, 'Chores are switched off.');
    const ready = choreCard(chore, facts());
    assert.equal(ready.problem, undefined);
    assert.equal(ready.enabled, true);
  });

  it('the card after a run skipped in Restricted Mode still says why, as the whole list does', () => {
    const untrusted = facts({ trusted: false });
    const afterRun = choreCard(chore, untrusted, skipped);
    const [inList] = choreCards(file, untrusted);
    assert.equal(afterRun.problem, inList?.problem);
    assert.match(afterRun.problem ?? '', /Restricted Mode: chores do not run until you trust this folder/);
    assert.equal(afterRun.enabled, false);
    assert.equal(afterRun.lastRun?.id, 'r1', 'the run that just changed shows as the last run');
  });
});

describe('host: the chore card and chores.yaml say when cost is estimated', () => {
  const note = (prices?: ModelPrices) =>
    costEstimateNote({ id: 'deepseek/deepseek-chat', ...(prices ? { prices } : {}), where: 'your user setting tasklane.model.prices' });

  it('the card carries the note for an unpriced model, and none once the setting prices it', () => {
    const unpriced = choreCard(chore, facts({ costNote: () => note() }));
    assert.match(unpriced.costNote ?? '', /no price is known for the model "deepseek\/deepseek-chat".*tasklane\.model\.prices/);
    const priced = choreCard(chore, facts({ costNote: () => note({ 'deepseek/*': { input: 0.3, output: 1.2, cacheRead: 0.3, cacheWrite: 0.3 } }) }));
    assert.equal(priced.costNote, undefined);
  });

  it('chores.yaml gets a warning on its chores: key, only when a chore would run on an unpriced model', () => {
    const text = '# chores\nchores:\n  - id: lint\n    name: Lint\n    trigger: { files: "src/**/*.ts" }\n    prompt: run the linter\n';
    const warning = costNoteDiagnostic(text, parseChoresFile(text), note());
    assert.equal(warning?.severity, 'warning');
    assert.equal(warning?.line, 2);
    assert.match(warning?.message ?? '', /^Chore cost will be estimated: no price is known.*Give its real price in your user setting tasklane\.model\.prices/);
    assert.equal(
      costNoteDiagnostic(text, parseChoresFile(text), note({ 'deepseek/*': { input: 0.3, output: 1.2, cacheRead: 0.3, cacheWrite: 0.3 } })),
      undefined,
    );
    assert.equal(costNoteDiagnostic('chores: []\n', parseChoresFile('chores: []\n'), note()), undefined, 'no chore, no note');
  });
});
