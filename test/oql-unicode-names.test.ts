// Names with Java's Unicode identifier letters (Character.isJavaIdentifierStart / Part).
import { describe, expect, test } from 'vitest';
import { OqlSyntaxError, parse, type SelectQuery } from '../ts/oql/index.js';
import { plan } from '../ts/plan/index.js';
import { thrown } from './tools/thrown.js';

function syntaxError(text: string): OqlSyntaxError {
  return thrown(() => parse(text), OqlSyntaxError, `parsed: ${text}`);
}

describe('Unicode names (Java identifiers)', () => {
  test('a class name with non-ASCII letters is written bare in FROM and INSTANCEOF', () => {
    const q = parse('SELECT o.v FROM café.Ωmega$Ünï o') as SelectQuery;
    expect(q.from.source).toMatchObject({ type: 'class', name: 'café.Ωmega$Ünï' });
    expect(q.from.alias).toBe('o');
    expect(plan('SELECT o.v FROM café.Ωmega$Ünï o').plan.query).toMatchObject({
      source: { kind: 'class', name: 'café.Ωmega$Ünï', subclasses: false },
    });
    expect(plan('SELECT * FROM INSTANCEOF 日本.クラス_1 x').plan.query).toMatchObject({
      source: { kind: 'class', name: '日本.クラス_1', subclasses: true },
    });
  });

  test('Unicode in fields, aliases, and every identifier character class', () => {
    // Letters, a letter number (Ⅻ), currency (€, $), connecting punctuation (‿, _), a combining
    // mark (e + U+0301), a spacing mark (Devanagari ा), non-ASCII digits (Arabic-Indic ٣).
    const p = plan('SELECT ñ.größe, ñ.Ⅻ€‿_é, ñ.काम, ñ.x٣ AS ünïcode FROM a.B ñ WHERE ñ.größe > 0');
    expect(p.columns).toEqual(['ñ.größe', 'ñ.Ⅻ€‿_é', 'ñ.काम', 'ünïcode']);
  });

  test('only ASCII words are keywords (ſelect and ın upper-case to SELECT and IN)', () => {
    const q = parse('SELECT ſelect.ın FROM a.B ſelect') as SelectQuery;
    expect(q.from.alias).toBe('ſelect');
    expect(syntaxError('SELECT * FROM a.B WHERE 1 ın (SELECT 1 FROM a.B)').reason).toMatch(/^unexpected "ın"/);
  });

  test('ASCII tokens are unchanged', () => {
    expect(plan("SELECT s.hash, 0x1F, 1.5e3, 2L, 'x', $y.z FROM java.lang.String s WHERE s.@length >= 1 AND s.a <> 2 -- c").columns)
      .toEqual(['s.hash', '0x1F', '1.5e3', '2L', "'x'", '$y.z']);
  });
});
