'use strict';
/**
 * `npm run build` (`-- --force` to compile even when nothing changed): compiles src/ and migrations/
 * into dist/ (with `--project tools/tsconfig.json`, the tools into dist-tools/) without ever leaving dist/ incomplete, since a server may be running from it while a script
 * (npm test, npm run demo, npm run check:explorers) builds. Each output is written beside its target and
 * renamed over it, so a reader finds the old file or the new one, never none or half of one; outputs no
 * longer produced (a deleted migration, say) are removed afterwards. Nothing is written when the
 * compilation has errors. When the compiled sources, compiler and options and package-lock.json are the
 * same as at the last build, and its outputs are all there, nothing is compiled.
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
/** What the last build compiled (a digest) and wrote, in dist/. */
const STAMP = '.build-stamp.json';
/** A file being written by a build (this one or another running at the same time): `<name>.<pid>.tmp`. */
const TEMPORARY = /\.(\d+)\.tmp$/;

function main() {
  const config = readConfig();
  const outDir = config.options.outDir;
  const stampPath = path.join(outDir, STAMP);
  if (!process.argv.includes('--force') && isCurrent(config, outDir, stampPath)) {
    console.log(`${path.relative(root, outDir)}/ is up to date (--force compiles anyway)`);
    return 0;
  }
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
  if (report([...config.errors, ...ts.getPreEmitDiagnostics(program)])) return 1;
  const written = new Set();
  const emitted = program.emit(undefined, (fileName, text) => {
    writeAtomically(fileName, text);
    written.add(path.relative(outDir, fileName));
  });
  if (report(emitted.diagnostics)) return 1;
  removeStale(outDir, written);
  // The digest of the texts this program compiled: a file changed while it ran is compiled next time.
  const inputs = digest(config, (file) => program.getSourceFile(file)?.text);
  writeAtomically(stampPath, JSON.stringify({ inputs, outputs: [...written].sort() }, null, 1));
  return 0;
}

/** The project compiled: tsconfig.json, or the one `--project <file>` names. */
function configFile() {
  const at = process.argv.indexOf('--project');
  return path.resolve(root, at > 0 && process.argv[at + 1] ? process.argv[at + 1] : 'tsconfig.json');
}

function readConfig() {
  const file = configFile();
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) {
    report([read.error]);
    process.exit(1);
  }
  return ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(file), undefined, file);
}

function isCurrent(config, outDir, stampPath) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampPath, 'utf8'));
  } catch {
    return false;
  }
  return stamp.inputs === digest(config, ts.sys.readFile) && stamp.outputs.every((file) => fs.existsSync(path.join(outDir, file)));
}

/** What the emitted code depends on: the compiler, its options, the installed packages' versions and every source. */
function digest(config, readText) {
  const hash = createHash('sha256');
  const lockFile = path.join(root, 'package-lock.json');
  hash.update(`${ts.version}\0${JSON.stringify(config.options)}\0${fs.existsSync(lockFile) ? fs.readFileSync(lockFile, 'utf8') : ''}\0`);
  for (const file of [...config.fileNames].sort()) hash.update(`${file}\0${readText(file) ?? ''}\0`);
  return hash.digest('hex');
}

/** Prints the diagnostics as tsc does; true when one is an error. */
function report(diagnostics) {
  if (diagnostics.length === 0) return false;
  const host = { getCurrentDirectory: () => root, getCanonicalFileName: (name) => name, getNewLine: () => ts.sys.newLine };
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, host));
  return diagnostics.some((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
}

/** Replaces `file` by a rename (atomic on one file system); an unchanged file is left as it is. */
function writeAtomically(file, text) {
  try {
    if (fs.readFileSync(file, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}

/** Removes what this build did not write (but the stamp and files other builds are writing), then empty folders. */
function removeStale(outDir, written) {
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        visit(full);
        try {
          fs.rmdirSync(full); // only when empty
        } catch {
          // not empty
        }
        continue;
      }
      const relative = path.relative(outDir, full);
      const writer = TEMPORARY.exec(entry.name)?.[1];
      if (relative === STAMP || written.has(relative) || (writer && isRunning(Number(writer)))) continue;
      fs.rmSync(full, { force: true });
    }
  };
  if (fs.existsSync(outDir)) visit(outDir);
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

process.exitCode = main();
