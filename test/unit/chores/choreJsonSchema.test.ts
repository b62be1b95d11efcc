import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { parseChoresFile } from '../../../src/core/chores/choreFile';
import { choreSpecSchema } from '../../../src/core/chores/choreSchema';
import { choreTemplates } from '../../../src/core/chores/templates';

const root = path.join(__dirname, '../../..');
const schema = JSON.parse(fs.readFileSync(path.join(root, 'schemas/chores.schema.json'), 'utf8')) as {
  properties: { chores: { items: { properties: Record<string, { properties?: Record<string, unknown> }> } } };
};
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
const readmeExample = (): string => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = /```yaml\n(chores:[\s\S]*?)```/.exec(readme);
  assert.ok(block, 'README has a chores.yaml example');
  return block[1];
};
const keysOf = (s: unknown): string[] => Object.keys((s as { shape: Record<string, unknown> }).shape).sort();
const unwrap = (s: unknown): unknown =>
  (s as { def?: { innerType?: unknown } }).def?.innerType ? unwrap((s as { def: { innerType: unknown } }).def.innerType) : s;

describe('the JSON Schema of .tasklane/chores.yaml (contributed through yamlValidation)', () => {
  it('is contributed for .tasklane/chores.yaml and packaged', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      contributes: { yamlValidation: Array<{ fileMatch: string; url: string }> };
    };
    assert.deepEqual(manifest.contributes.yamlValidation, [{ fileMatch: '.tasklane/chores.yaml', url: './schemas/chores.schema.json' }]);
    assert.match(fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8'), /^!schemas\/\*\*$/m);
  });

  it('has exactly the keys choreSchema.ts accepts, for a chore, its trigger and its budget', () => {
    const chore = schema.properties.chores.items.properties;
    assert.deepEqual(Object.keys(chore).sort(), keysOf(choreSpecSchema));
    assert.deepEqual(Object.keys(chore.trigger.properties!).sort(), keysOf(unwrap(choreSpecSchema.shape.trigger)));
    assert.deepEqual(Object.keys(chore.budget.properties!).sort(), keysOf(unwrap(choreSpecSchema.shape.budget)));
    assert.deepEqual(Object.keys(chore.escalate.properties!).sort(), keysOf(unwrap(choreSpecSchema.shape.escalate)));
  });

  it('accepts the README example and every template, which the loader also accepts', () => {
    const example = readmeExample();
    assert.equal(validate(parse(example)), true, JSON.stringify(validate.errors));
    assert.deepEqual(
      parseChoresFile(example).diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const templates = { chores: choreTemplates.map((t) => t.spec) };
    assert.equal(validate(templates), true, JSON.stringify(validate.errors));
  });

  it('rejects what the loader rejects: an unknown key, two triggers, a bad enum', () => {
    const base = { id: 'a', name: 'A', prompt: 'p', trigger: { cron: '0 2 * * *' } };
    for (const bad of [
      { ...base, maxIteration: 3 },
      { ...base, trigger: { cron: '0 2 * * *', files: 'src/**' } },
      { ...base, drift: 'sometimes' },
      { ...base, trigger: { git: 'tags' } },
    ]) {
      assert.equal(validate({ chores: [bad] }), false, JSON.stringify(bad));
      assert.ok(
        parseChoresFile(`chores:\n  - ${JSON.stringify(bad)}\n`).diagnostics.some((d) => d.severity === 'error'),
        `the loader accepts ${JSON.stringify(bad)}`,
      );
    }
  });
});
