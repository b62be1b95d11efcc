/**
 * `tasklane chores run <id> --json` in process against the scripted model server, as the headless
 * tests run it: the model from TASKLANE_MODEL_* variables, the JSON result from the last line.
 */
import * as path from 'node:path';
import { runCli } from '../../src/cli/main';
import type { ModelServer } from '../fixtures/modelServer';

const root = path.resolve(__dirname, '../..');

/** Indents a chore's extra YAML lines (one key a line) under a `- id:` entry. */
export function choreLines(policy: string): string {
  return policy
    .split('\n')
    .filter(Boolean)
    .map((l) => `    ${l}`)
    .join('\n');
}

/** Runs the chore once on `dir`; `env` adds variables (secrets) to the model's. */
export async function runChoreJson<T>(
  server: ModelServer,
  dir: string,
  choreId: string,
  env: Record<string, string> = {},
): Promise<{ code: number; last: T; err: string; ms: number }> {
  let out = '';
  let err = '';
  const started = Date.now();
  const code = await runCli(
    ['chores', 'run', choreId, '--workspace', dir, '--json'],
    {
      out: (t) => (out += t),
      err: (t) => (err += t),
      env: {
        TASKLANE_MODEL_PROVIDER: 'openai-compatible',
        TASKLANE_MODEL_BASE_URL: server.openaiBaseUrl,
        TASKLANE_MODEL_ID: 'gpt-5-mini',
        OPENAI_API_KEY: 'test-key',
        ...env,
      },
      cwd: root,
    },
    { skillsDir: path.join(root, 'skills') },
  );
  return { code, last: JSON.parse(out.trim().split('\n').pop() ?? '') as T, err, ms: Date.now() - started };
}
