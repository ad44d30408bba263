'use strict';
/**
 * The first step of `npm start`. Where the development dependencies are installed (a clone after
 * `npm install` or `npm ci`), it runs the build, which compiles only what changed (nothing when dist/
 * is current). In a production install (`npm ci --omit=dev`: no TypeScript), the dist/ built with the
 * release is used as it is; when there is none, it says where one comes from and fails.
 */
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'src', 'main.js');

function hasCompiler() {
  try {
    require.resolve('typescript', { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

if (hasCompiler()) {
  // Sets process.exitCode: 1 when the compilation fails.
  require('./build.js');
} else if (!existsSync(entry)) {
  console.error(
    'dist/src/main.js is missing, and this install has no TypeScript to build it (npm ci --omit=dev): ' +
      'run `npm ci && npm run build` where the development dependencies are installed and ship dist/ with the release, or run the image (docs/deployment.md)',
  );
  process.exitCode = 1;
}
