import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// CONVENTIONS: a file does one thing; past ~400 lines, ask why. Issue 20 makes it a limit, and
// caps the Agent's fan-out (the modules it imports) at 15.
const MAX_LINES = 400;
const MAX_AGENT_IMPORTS = 15;

const root = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

function lineCount(file: string): number {
  const text = fs.readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source size limits (issue 20)', () => {
  it(`keeps every file in src/ at ${MAX_LINES} lines or fewer`, () => {
    const tooLong = sourceFiles(path.join(root, 'src'))
      .map((file) => ({ file: path.relative(root, file).split(path.sep).join('/'), lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file} (${lines})`);
    assert.deepEqual(tooLong, [], `over ${MAX_LINES} lines: ${tooLong.join(', ')}`);
  });

  it(`keeps the Agent's fan-out at ${MAX_AGENT_IMPORTS} modules or fewer`, () => {
    const text = fs.readFileSync(path.join(root, 'src/core/engine/agent.ts'), 'utf8');
    const modules = new Set([...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gms)].map((m) => m[1]));
    for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) modules.add(m[1]);
    assert.ok(modules.size > 0, 'found no imports in agent.ts: the pattern is broken');
    assert.ok(modules.size <= MAX_AGENT_IMPORTS, `agent.ts imports ${modules.size} modules (at most ${MAX_AGENT_IMPORTS}): ${[...modules].join(', ')}`);
  });
});
