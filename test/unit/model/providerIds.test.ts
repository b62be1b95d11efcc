import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isProviderId, PROVIDER_IDS } from '../../../src/core/model/providers';

describe('model providers: one list', () => {
  const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
    contributes: {
      configuration:
        Array<{ properties: Record<string, { enum?: string[]; enumDescriptions?: string[]; default?: unknown }> }> | { properties: Record<string, unknown> };
    };
  };
  const sections = Array.isArray(manifest.contributes.configuration) ? manifest.contributes.configuration : [manifest.contributes.configuration];
  const setting = sections
    .map((s) => (s.properties as Record<string, { enum?: string[]; enumDescriptions?: string[]; default?: unknown }>)['tasklane.model.provider'])
    .find(Boolean);

  it('package.json offers exactly the providers the code knows, each with a description', () => {
    assert.ok(setting, 'tasklane.model.provider is declared');
    assert.deepEqual(setting.enum, [...PROVIDER_IDS]);
    assert.equal(setting.enumDescriptions?.length, PROVIDER_IDS.length);
    assert.ok(isProviderId(setting.default), `default ${String(setting.default)}`);
  });

  it('a value outside the list is not a provider', () => {
    assert.equal(isProviderId('openai'), true);
    assert.equal(isProviderId('gemini'), false);
    assert.equal(isProviderId(undefined), false);
  });
});
