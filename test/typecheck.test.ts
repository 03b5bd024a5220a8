/**
 * The tests type-check against the code they test (test/tsconfig.json: the tests with ts/),
 * as the build checks the code itself: vitest strips types without checking them, so a call
 * of a changed signature, a fixture row missing a field the schema now has, or an option passed
 * where a message was meant would otherwise pass unnoticed.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(__dirname, '..');

test('the tests type-check (tsc -p test/tsconfig.json)', () => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'test/tsconfig.json')], { cwd: root, encoding: 'utf8' });
  const errors = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /error TS\d+/.test(l));
  expect(errors).toEqual([]);
  expect(r.status).toBe(0);
});
