import * as assert from 'node:assert/strict';
import { defaultExportFolder } from '../../../src/host/exportFolder';

describe('host: where Export Session asks first', () => {
  const all = () => true;

  it('starts in Downloads, else the home folder, else the temporary folder', () => {
    assert.equal(defaultExportFolder('/home/ana', '/tmp', ['/home/ana/code/app'], all), '/home/ana/Downloads');
    assert.equal(
      defaultExportFolder('/home/ana', '/tmp', ['/home/ana/code/app'], (f) => f !== '/home/ana/Downloads'),
      '/home/ana',
    );
    assert.equal(
      defaultExportFolder('/home/ana', '/tmp', [], (f) => f === '/tmp'),
      '/tmp',
    );
  });

  it('never starts inside the workspace, even when the workspace is the home folder', () => {
    assert.equal(defaultExportFolder('/home/ana', '/tmp', ['/home/ana'], all), '/tmp');
    assert.equal(defaultExportFolder('/home/ana', '/tmp', ['/srv/repo', '/home/ana/Downloads'], all), '/home/ana');
  });
});
