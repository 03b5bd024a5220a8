// Compiles the nearley grammar (ts/oql/oql.ne) to TypeScript before tsc runs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const source = path.join(root, 'ts/oql/oql.ne');
const target = path.join(root, 'ts/oql/grammar.generated.ts');
if (existsSync(source)) {
  const require = createRequire(import.meta.url);
  const nearleyc = path.join(path.dirname(require.resolve('nearley/package.json')), 'bin/nearleyc.js');
  execFileSync(process.execPath, [nearleyc, source, '-o', target], { stdio: 'inherit' });
}
