// vitest globalSetup: compile ts/oql/oql.ne when the generated parser is missing or older,
// so `vitest run` works on a fresh clone (the generated file is not committed).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default async function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const source = path.join(root, 'ts/oql/oql.ne');
  const target = path.join(root, 'ts/oql/grammar.generated.ts');
  if (!existsSync(source)) return;
  if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) return;
  await import('./build-grammar.mjs');
}
