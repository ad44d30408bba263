#!/usr/bin/env node
// Fails when the folders of src/ (each domain module of src/modules/ counted apart) import each other in a circle (a imports b, b imports a, directly or
// through others): each folder is a layer, and layers import downward only. Circles between files of
// one folder are that folder's own business and are not reported here.
'use strict';
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const root = resolve(__dirname, '..', 'src');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function sourceFiles(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Folders whose subfolders are layers of their own: each domain module is one. */
const SPLIT = new Set(['modules']);

/** `engine` for src/engine/tenancy.ts, `modules/tasks` for src/modules/tasks/tasks.ts, `app.ts` for a file at the top of src/. */
function folderOf(file) {
  const [first, second, third] = relative(root, file).split('/');
  return SPLIT.has(first) && third !== undefined ? `${first}/${second}` : first;
}

/** The folder graph: for each folder, the folders its files import, with one example import each. */
function folderGraph() {
  const edges = new Map();
  for (const file of sourceFiles(root)) {
    const from = folderOf(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), match[1] ?? match[2]);
      if (!target.startsWith(root + '/')) continue;
      const to = folderOf(target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${relative(root, file)} -> ${match[1] ?? match[2]}`);
    }
  }
  return edges;
}

/** The groups of folders that reach each other (Tarjan's strongly connected components), each of several folders. */
function circles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const groups = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (stack.includes(to)) {
        low.set(node, Math.min(low.get(node), index.get(to)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

/** Imports that would break the layering even without a circle: the engine knows no domain module. */
function forbidden(edges) {
  const found = [];
  for (const [to, example] of edges.get('engine') ?? []) if (to === 'modules' || to.startsWith('modules/')) found.push(example);
  return found;
}

const edges = folderGraph();
const found = circles(edges);
const engineImports = forbidden(edges);
for (const example of engineImports) console.error(`the engine imports a domain module (modules register with the engine instead): ${example}`);
if (found.length === 0 && engineImports.length === 0) {
  console.log(`no import circle between the ${edges.size} folders of src/, and the engine imports no module`);
  process.exit(0);
}
if (found.length === 0) process.exit(1);
console.error('folders of src/ that import each other in a circle, and the imports that close it:');
for (const group of found) {
  console.error(`  ${group.join(', ')}`);
  for (const from of group) {
    for (const [to, example] of edges.get(from) ?? []) if (group.includes(to)) console.error(`    ${from} -> ${to}: ${example}`);
  }
}
process.exit(1);
