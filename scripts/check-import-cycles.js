#!/usr/bin/env node
// Fails when the folders of src/ import each other in a circle (a imports b, b imports a, directly or
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

/** `services` for src/services/tasks.ts, `app.ts` for a file at the top of src/. */
function folderOf(file) {
  return relative(root, file).split('/')[0];
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

const edges = folderGraph();
const found = circles(edges);
if (found.length === 0) {
  console.log(`no import circle between the ${edges.size} folders of src/`);
  process.exit(0);
}
console.error('folders of src/ that import each other in a circle, and the imports that close it:');
for (const group of found) {
  console.error(`  ${group.join(', ')}`);
  for (const from of group) {
    for (const [to, example] of edges.get(from) ?? []) if (group.includes(to)) console.error(`    ${from} -> ${to}: ${example}`);
  }
}
process.exit(1);
