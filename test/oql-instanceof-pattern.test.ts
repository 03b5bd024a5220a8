// FROM INSTANCEOF "<regex>": every class whose whole name matches, with their subclasses. The
// way to name a hidden class (a lambda, `Demo$$Lambda$1+0x00007f519d001868`, whose `+` OQL's
// plain class-name syntax cannot hold) after INSTANCEOF, as FROM "<regex>" names it after FROM.
// Run over the demo dump, which a real JVM wrote with lambdas in it.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';
import { OqlNameError, OqlPlanError } from '../ts/oql/errors.js';
import { parse } from '../ts/oql/index.js';
import { printQuery } from '../ts/oql/print.js';
import { explain, plan } from '../ts/plan/index.js';
import { heapql } from './tools/run.js';

const root = path.resolve(__dirname, '..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

const LAMBDA = 'Demo$$Lambda$1+0x00007f519d001868';
/** The pattern that matches LAMBDA alone (what Tab completes it to). */
const LAMBDA_PATTERN = String.raw`Demo\$\$Lambda\$1\+0x00007f519d001868`;

describe('FROM INSTANCEOF "<regex>" parses and plans', () => {
  it('as a regex source with subclasses; printed and explained as written', () => {
    const q = parse(`SELECT x FROM INSTANCEOF "${LAMBDA_PATTERN}" x`);
    expect(q.type === 'select' && q.from).toMatchObject({ instanceOf: true, alias: 'x', source: { type: 'regex', pattern: LAMBDA_PATTERN, pos: { column: 26 } } });
    expect(printQuery(q)).toBe(`SELECT x FROM INSTANCEOF "${LAMBDA_PATTERN}" x`);
    const p = plan(`SELECT COUNT(*) FROM OBJECTS INSTANCEOF 'java\\.util\\.Abstract(Map|List)'`, { fullPath: false });
    expect(p.plan.query).toMatchObject({ source: { kind: 'regex', pattern: 'java\\.util\\.Abstract(Map|List)', subclasses: true } });
    // The pattern is checked by the executor's engine, as FROM's is.
    expect(p.patterns).toEqual([expect.objectContaining({ pattern: 'java\\.util\\.Abstract(Map|List)', kind: 'from' })]);
    expect(explain(plan(`SELECT x FROM INSTANCEOF "a\\.B.*" x`, { fullPath: false }).plan)).toContain('classes matching "a\\.B.*" and their subclasses');
    // FROM "<regex>" stays the exact classes.
    expect(plan('SELECT x FROM "a\\.B.*" x', { fullPath: false }).plan.query).toMatchObject({ source: { kind: 'regex', pattern: 'a\\.B.*', subclasses: false } });
  });
});

describe('FROM INSTANCEOF "<regex>" over a real dump with lambdas', () => {
  let heap: HeapSession;
  beforeAll(async () => {
    heap = await openHeap(demo, { cache: false });
  });
  afterAll(() => heap?.close());

  const count = async (q: string) => (await heap.query(q)).rows[0]![0] as number;

  it('names a hidden class: its instance, as FROM "<regex>" finds it', async () => {
    const r = await heap.query(`SELECT x FROM INSTANCEOF "${LAMBDA_PATTERN}" x`);
    expect(r.rowCount).toBe(1);
    expect(r.rows[0]![0]).toMatchObject({ className: LAMBDA });
    expect(r.rows).toEqual((await heap.query(`SELECT x FROM "${LAMBDA_PATTERN}" x`)).rows);
    // Every lambda class of Demo (hidden classes have no subclasses): as many as FROM finds.
    const lambdas = await count(`SELECT COUNT(*) FROM INSTANCEOF "Demo\\$\\$Lambda.*"`);
    expect(lambdas).toBeGreaterThanOrEqual(2);
    expect(lambdas).toBe(await count(`SELECT COUNT(*) FROM "Demo\\$\\$Lambda.*"`));
  });

  it('takes every matching class with its subclasses, as INSTANCEOF each of them does', async () => {
    const map = await count('SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractMap');
    const list = await count('SELECT COUNT(*) FROM INSTANCEOF java.util.AbstractList');
    expect(map).toBeGreaterThan(0);
    expect(list).toBeGreaterThan(0);
    expect(await count(`SELECT COUNT(*) FROM INSTANCEOF "java\\.util\\.Abstract(Map|List)"`)).toBe(map + list);
    // FROM "<regex>" alone takes the classes themselves (abstract: no instances).
    expect(await count(`SELECT COUNT(*) FROM "java\\.util\\.Abstract(Map|List)"`)).toBe(0);
    // A pattern matching java.lang.Object is every object, as INSTANCEOF java.lang.Object is.
    const all = await count('SELECT COUNT(*) FROM INSTANCEOF java.lang.Object');
    expect(await count('SELECT COUNT(*) FROM INSTANCEOF ".*"')).toBe(all);
    expect(await count('SELECT COUNT(*) FROM INSTANCEOF "java\\.lang\\.Obj.*"')).toBe(all);
  });

  it('a pattern no class matches is an error placed at the pattern, as an unknown class is', async () => {
    const err = await heap.query('SELECT x\nFROM INSTANCEOF "Demo\\$\\$Nope.*" x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OqlNameError);
    const e = err as OqlNameError;
    expect(e.code).toBe('ERR_UNKNOWN_CLASS');
    expect(e.pos).toEqual({ line: 2, column: 18 });
    expect(e.reason).toMatch(/^no class in this dump matches "Demo\\\$\\\$Nope\.\*" \(a pattern matches the whole class name, e\.g\. /);
    expect(e.unknownName).toMatchObject({ kind: 'pattern', name: 'Demo\\$\\$Nope.*' });
    // A pattern the regex engine refuses is refused before anything runs, at its literal.
    const bad = await heap.query('SELECT x FROM INSTANCEOF "Demo(" x').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OqlPlanError);
    expect((bad as OqlPlanError).pos).toMatchObject({ line: 1, column: 26 });
  });

  it('the CLI shows the refusal with line:column and a caret under the pattern', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--query', 'SELECT x FROM INSTANCEOF "Nope.*" x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('q1:1:27: no class in this dump matches "Nope.*"');
    expect(r.stderr).toContain('  SELECT x FROM INSTANCEOF "Nope.*" x\n                            ^^^^^^\n');
    const ok = await heapql(['query', demo, '--no-cache', '--format', 'csv', '--query', `SELECT x.@displayName FROM INSTANCEOF "${LAMBDA_PATTERN}" x`]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe(`x.@displayName\r\n${LAMBDA}\r\n`);
  });
});

// The predicate `x INSTANCEOF "<regex>"`: the classes FROM INSTANCEOF "<regex>" takes (whole-name
// match, with subclasses), tested per object by its class.
describe('x INSTANCEOF "<regex>" parses and plans', () => {
  it('as a pattern predicate; printed and explained as written; its regex checked as FROM\'s is', () => {
    const text = `SELECT x FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF "${LAMBDA_PATTERN}" OR x NOT INSTANCEOF 'java\\.util\\..*'`;
    const q = parse(text);
    expect(q.type === 'select' && q.where).toMatchObject({
      type: 'binary',
      left: { type: 'instanceof', pattern: LAMBDA_PATTERN, negate: false, patternPos: { line: 1, column: 64 } },
      right: { type: 'instanceof', pattern: 'java\\.util\\..*', negate: true },
    });
    expect(printQuery(q)).toBe(`SELECT x FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF "${LAMBDA_PATTERN}" OR x NOT INSTANCEOF "java\\.util\\..*"`);
    const p = plan(text, { fullPath: false });
    expect(p.plan.query).toMatchObject({
      filter: { k: 'bin', op: 'or', l: { k: 'instanceof', e: { k: 'row' }, pattern: LAMBDA_PATTERN }, r: { k: 'not', e: { k: 'instanceof', pattern: 'java\\.util\\..*' } } },
    });
    expect(p.patterns.map((u) => [u.pattern, u.kind])).toEqual([[LAMBDA_PATTERN, 'instanceof'], ['java\\.util\\..*', 'instanceof']]);
    expect(explain(p.plan)).toContain(`x INSTANCEOF "${LAMBDA_PATTERN}"`);
    // The named form is unchanged.
    expect(plan('SELECT x FROM java.util.HashMap x WHERE x INSTANCEOF java.util.AbstractMap', { fullPath: false }).plan.query)
      .toMatchObject({ filter: { k: 'instanceof', class: 'java.util.AbstractMap' } });
  });
});

describe('x INSTANCEOF "<regex>" over a real dump with lambdas', () => {
  let heap: HeapSession;
  beforeAll(async () => {
    heap = await openHeap(demo, { cache: false });
  });
  afterAll(() => heap?.close());

  const count = async (q: string) => (await heap.query(q)).rows[0]![0] as number;
  const ALL = 'SELECT COUNT(*) FROM INSTANCEOF java.lang.Object x';

  it('keeps the objects FROM INSTANCEOF "<regex>" yields, and NOT the rest', async () => {
    const all = await count(ALL);
    for (const pattern of [LAMBDA_PATTERN, 'Demo\\$\\$Lambda.*', 'java\\.util\\.Abstract(Map|List)', 'java\\.lang\\.Obj.*']) {
      const from = await count(`SELECT COUNT(*) FROM INSTANCEOF "${pattern}"`);
      expect(from).toBeGreaterThan(0);
      expect(await count(`${ALL} WHERE x INSTANCEOF "${pattern}"`)).toBe(from);
      expect(await count(`${ALL} WHERE x NOT INSTANCEOF "${pattern}"`)).toBe(all - from);
    }
    // Per object: the same objects as the FROM form, not only as many.
    const where = await heap.query(`SELECT x FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF "java\\.util\\.Abstract(Map|List)"`);
    const from = await heap.query(`SELECT x FROM INSTANCEOF "java\\.util\\.Abstract(Map|List)" x`);
    expect(where.rows).toEqual(from.rows);
    // On a reference field: the referenced object's class (a HashMap's table is a HashMap$Node[]).
    expect(await count(`SELECT COUNT(*) FROM java.util.HashMap m WHERE m.table INSTANCEOF "java\\.util\\.HashMap\\$Node\\[\\]"`))
      .toBe(await count('SELECT COUNT(*) FROM java.util.HashMap m WHERE m.table != null'));
  });

  it('a pattern no class matches is the FROM form\'s error, placed at the pattern', async () => {
    const err = await heap.query(`${ALL}\nWHERE x INSTANCEOF "Demo\\$\\$Nope.*"`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OqlNameError);
    const e = err as OqlNameError;
    expect(e.code).toBe('ERR_UNKNOWN_CLASS');
    expect(e.pos).toEqual({ line: 2, column: 21 });
    expect(e.unknownName).toMatchObject({ kind: 'pattern', name: 'Demo\\$\\$Nope.*' });
    const bad = await heap.query(`${ALL} WHERE x INSTANCEOF "Demo(" OR x INSTANCEOF java.lang.String`).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OqlPlanError);
    expect((bad as OqlPlanError).pos).toMatchObject({ line: 1, column: 71 });
    expect((bad as OqlPlanError).message).toContain('INSTANCEOF "<regex>"');
  });

  it('the CLI runs it and shows a refusal with line:column and a caret under the pattern', async () => {
    const ok = await heapql(['query', demo, '--no-cache', '--format', 'csv', '--query', `SELECT x.@displayName FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF "${LAMBDA_PATTERN}"`]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe(`x.@displayName\r\n${LAMBDA}\r\n`);
    const r = await heapql(['query', demo, '--no-cache', '--query', 'SELECT x FROM java.lang.String x WHERE x INSTANCEOF "Nope.*"']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('q1:1:54: no class in this dump matches "Nope.*"');
    expect(r.stderr).toContain(`  SELECT x FROM java.lang.String x WHERE x INSTANCEOF "Nope.*"\n${' '.repeat(55)}^^^^^^\n`);
  });
});
