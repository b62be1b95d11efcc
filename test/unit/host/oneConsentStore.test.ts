import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Review code-2026-12c, "the last mile of composition": the window built a ConsentStore for MCP
// Trust, another for the workspace's checks and a third inside the chore host, over one backend,
// each with listeners the others' writes never reached. The composition root builds it once and
// hands it to each part (src/host/storeServices.ts).
describe('composition: one ConsentStore per window', () => {
  it('is built in exactly one place in src/, the host composition root', () => {
    const root = path.resolve(__dirname, '../../../src');
    const built = (fs.readdirSync(root, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /new ConsentStore\(/.test(fs.readFileSync(path.join(root, file), 'utf8')))
      .map((file) => file.split(path.sep).join('/'));
    assert.deepEqual(built, ['host/storeServices.ts']);
    const text = fs.readFileSync(path.join(root, 'host/storeServices.ts'), 'utf8');
    assert.equal(text.match(/new ConsentStore\(/g)?.length, 1, 'storeServices.ts builds it once');
  });
});
