'use strict';
/**
 * The first step of `npm start`. Where the development dependencies are installed (a clone after
 * `npm install` or `npm ci`), it runs the build, which compiles only what changed (nothing when dist/
 * is current). In a production install (`npm ci --omit=dev`), the dist/ built with the release is used
 * as it is; when there is none, it says where one comes from and fails.
 */
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const entry = path.join(root, 'dist', 'src', 'main.js');

/**
 * Whether every development dependency is installed. Not "whether TypeScript is": a production
 * install may hold it too (an optional peer of a production dependency), without the type packages
 * the build needs.
 */
function isDevelopmentInstall() {
  const { devDependencies = {} } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return Object.keys(devDependencies).every((name) => existsSync(path.join(root, 'node_modules', name, 'package.json')));
}

if (isDevelopmentInstall()) {
  // Sets process.exitCode: 1 when the compilation fails.
  require('./build.js');
} else if (!existsSync(entry)) {
  console.error(
    'dist/src/main.js is missing, and a production install (npm ci --omit=dev) cannot build it: ' +
      'run `npm ci && npm run build` where the development dependencies are installed and ship dist/ with the release, or run the image (docs/deployment.md)',
  );
  process.exitCode = 1;
}
