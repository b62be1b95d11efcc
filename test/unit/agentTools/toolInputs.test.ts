import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { awaitInput, parseInput, scheduleInput, startTaskInput, statusInput, TasklaneToolError } from '../../../src/host/agentTools/toolInputs';

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  additionalProperties?: boolean;
}

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { languageModelTools: Array<{ name: string; inputSchema: JsonSchema; modelDescription: string; displayName: string }> };
};
const zodOf: Record<string, z.ZodType> = {
  tasklane_start_task: startTaskInput,
  tasklane_schedule: scheduleInput,
  tasklane_status: statusInput,
  tasklane_await: awaitInput,
};

/** The shape two schemas must agree on: property names (nested), required, enums, closedness. */
function shape(schema: JsonSchema): unknown {
  return {
    type: schema.type,
    required: [...(schema.required ?? [])].sort(),
    closed: schema.additionalProperties === false,
    ...(schema.enum ? { enum: schema.enum } : {}),
    properties: Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    ),
  };
}

describe('agent tools: inputs', () => {
  it('package.json declares exactly the four tools, each with a description for the model', () => {
    assert.deepEqual(manifest.contributes.languageModelTools.map((t) => t.name).sort(), Object.keys(zodOf).sort());
    for (const tool of manifest.contributes.languageModelTools)
      assert.ok(tool.modelDescription.length > 40 && tool.modelDescription.length < 600, `${tool.name}: a bounded modelDescription`);
  });

  for (const [name, schema] of Object.entries(zodOf)) {
    it(`${name}: the advertised JSON Schema matches the zod schema the tool checks with`, () => {
      const declared = manifest.contributes.languageModelTools.find((t) => t.name === name)!.inputSchema;
      const fromZod = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
      assert.deepEqual(shape(declared), shape(fromZod));
    });
  }

  it('bad input is refused with every bad field named; numbers sent as strings are coerced', () => {
    assert.throws(
      () => parseInput(startTaskInput, { instruction: ' ', mode: 'fast', extra: 1 }, 'tasklane_start_task'),
      (error: Error) =>
        error instanceof TasklaneToolError &&
        /instruction: instruction must say/.test(error.message) &&
        /mode: mode must be simple or complex/.test(error.message) &&
        /extra/.test(error.message),
    );
    assert.deepEqual(parseInput(startTaskInput, { instruction: 'Do it', budget: { maxActions: '5' } }, 't'), {
      instruction: 'Do it',
      mode: 'simple',
      budget: { maxActions: 5 },
    });
    assert.throws(() => parseInput(scheduleInput, { name: 'n', prompt: 'p' }, 'tasklane_schedule'), /cron/);
    assert.throws(() => parseInput(awaitInput, undefined, 'tasklane_await'), /taskId/);
  });
});
