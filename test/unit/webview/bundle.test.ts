import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

// The sidebar's script is parsed before its first paint, every time the view is shown (it does not
// retain its context). Its bundle is built here as esbuild.js builds dist/webview.js, and what goes
// into it is checked: the zod validators stay on the host's side (src/shared/viewConstants.ts).
describe('webview: the sidebar bundle', function () {
  this.timeout(60_000);

  it('carries no zod: the webview imports types, not validators, from the protocol modules', async () => {
    const root = path.resolve(__dirname, '../../..');
    const result = await esbuild.build({
      entryPoints: [path.join(root, 'src/webview/main.ts')],
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(
      inputs.some((input) => input.includes('src/webview/main.ts')),
      'the bundle was not built from the webview entry',
    );
    const zod = inputs.filter((input) => input.includes('node_modules/zod/'));
    assert.deepEqual(zod.slice(0, 3), [], `zod is in the webview bundle (${zod.length} files); a value import from a protocol module pulls it in`);
    const [output] = Object.values(result.metafile.outputs);
    assert.ok(output.bytes < 400_000, `the webview bundle is ${output.bytes} bytes`);
  });
});
