#!/usr/bin/env node
// The `tasklane` command. Runs the bundled CLI (dist/cli.js, made by `npm run build`); in a source
// checkout that has not been built, runs the TypeScript entry through tsx instead.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const bundled = path.join(__dirname, '..', 'dist', 'cli.js');
if (fs.existsSync(bundled)) {
  require(bundled);
} else {
  require('tsx/cjs');
  require(path.join(__dirname, '..', 'src', 'cli', 'bin.ts'));
}
