import 'reflect-metadata';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../database/project-root';
import { buildGraphqlSchema } from '../graphql/schema';
import { resources } from '../catalog/registry';
import { buildOpenApiDocument } from '../openapi/document';

/** Writes schema/schema.graphql and schema/openapi.json; with --check, only reports whether they are stale. */
function main(check: boolean): number {
  const files = {
    'schema.graphql': printSchema(lexicographicSortSchema(buildGraphqlSchema(resources))) + '\n',
    'openapi.json': JSON.stringify(buildOpenApiDocument(resources), null, 2) + '\n',
  };
  const folder = join(projectRoot, 'schema');
  mkdirSync(folder, { recursive: true });
  let stale = 0;
  for (const [name, content] of Object.entries(files)) {
    const path = join(folder, name);
    const current = (() => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    })();
    if (current === content) continue;
    stale += 1;
    if (check) console.error(`schema/${name} is stale: run npm run schema and commit the result`);
    else writeFileSync(path, content);
  }
  if (!check) console.log(stale ? `wrote ${stale} file(s) under schema/` : 'schema/ is up to date');
  return check && stale ? 1 : 0;
}

process.exit(main(process.argv.includes('--check')));
