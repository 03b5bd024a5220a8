/**
 * `GET /help`: the OQL reference as JSON. The names come from the tables the lexer and the
 * planner use (keywords, attributes, functions, aggregates, method aliases, named queries), and
 * which of them need the full analysis is asked of the planner itself, so the reference cannot
 * drift from what the server accepts. The examples are tested to plan (test/server-app.test.ts).
 */
import { KEYWORDS } from '../oql/lexer.js';
import { AGGREGATE_NAMES, ATTRIBUTE_NAMES, FUNCTION_NAMES, METHOD_ALIASES, plan } from '../plan/index.js';
import { NAMED_QUERIES } from '../query/named.js';

export interface OqlExample {
  description: string;
  oql: string;
  /** Needs the full analysis (POST /analyze first). */
  fullPath: boolean;
}

/** Example queries; each plans (tested), the full-path ones only after the analysis. */
export const EXAMPLES: readonly Omit<OqlExample, 'fullPath'>[] = [
  { description: 'count strings', oql: 'SELECT COUNT(*) FROM java.lang.String' },
  {
    description: 'instances and shallow bytes per class, biggest first',
    oql: 'SELECT classof(x) AS class, COUNT(*) AS count, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY bytes DESC LIMIT 20',
  },
  {
    description: 'the same as a bar chart (the browser REPL and the HTML report draw it)',
    oql: '-- @viz histogram label=class value=bytes cap=10\nSELECT classof(x) AS class, SUM(x.@usedHeapSize) AS bytes FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY bytes DESC LIMIT 20',
  },
  { description: 'strings with their text', oql: 'SELECT s, toString(s) AS text FROM java.lang.String s WHERE toString(s) LIKE "http.*" LIMIT 50' },
  { description: 'big arrays', oql: 'SELECT a, a.@length AS length, a.@usedHeapSize AS bytes FROM "byte\\[\\]|char\\[\\]" a WHERE a.@usedHeapSize > 65536 ORDER BY bytes DESC' },
  { description: 'threads by name', oql: 'SELECT t, toString(t.name) AS name FROM INSTANCEOF java.lang.Thread t' },
  { description: 'the object at an address', oql: 'SELECT * FROM OBJECTS 0x0' },
  {
    description: 'objects retaining the most (full analysis)',
    oql: 'SELECT x, x.@retainedHeapSize AS retained FROM INSTANCEOF java.lang.Object x ORDER BY retained DESC LIMIT 10',
  },
  { description: 'who keeps an object alive (full analysis)', oql: 'SELECT dominatorof(x) AS owner, COUNT(*) AS count FROM java.util.HashMap x GROUP BY dominatorof(x) ORDER BY count DESC LIMIT 10' },
];

/** True when `oql` plans on the full path but not on the query-only path. */
function needsFullPath(oql: string): boolean {
  try {
    plan(oql, { fullPath: false });
    return false;
  } catch {
    plan(oql, { fullPath: true });
    return true;
  }
}

/** The smallest argument count a function accepts (the planner decides), with its full-path flag. */
function functionEntry(name: string): { name: string; args: number; fullPath: boolean } {
  for (let args = 1; args <= 3; args++) {
    const oql = `SELECT ${name}(${Array.from({ length: args }, () => 'x').join(', ')}) FROM java.lang.Object x`;
    try {
      plan(oql, { fullPath: true });
    } catch {
      continue;
    }
    return { name, args, fullPath: needsFullPath(oql) };
  }
  throw new Error(`internal error: the planner accepts ${name}() with no argument count from 1 to 3`);
}

function aggregateEntry(name: string): { name: string; call: string } {
  const call = name === 'COUNT' ? 'COUNT(*)' : name === 'PERCENTILE' ? 'PERCENTILE(e, 95)' : `${name}(e)`;
  return { name, call };
}

let cached: Record<string, unknown> | null = null;

/** The reference document (computed once). */
export function oqlReference(): Record<string, unknown> {
  cached ??= {
    syntax:
      'SELECT [DISTINCT] [OBJECTS] <items> [AS RETAINED SET] FROM [OBJECTS] <source> [alias] [WHERE <predicate>] ' +
      '[GROUP BY <expr>, ...] [HAVING <predicate>] [ORDER BY <expr> [ASC|DESC], ...] [LIMIT <n>] [UNION [ALL] | INTERSECT | EXCEPT <select> ...]',
    sources: [
      { form: '<class>', meaning: 'exactly this class (arrays as byte[], inner classes as Outer$Inner)' },
      { form: 'OBJECTS <class>', meaning: 'the same (OBJECTS is a no-op marker)' },
      { form: 'INSTANCEOF <class>', meaning: 'the class and all its subclasses; INSTANCEOF java.lang.Object is every object' },
      { form: '"<regex>"', meaning: 'every class whose whole name matches' },
      { form: 'INSTANCEOF "<regex>"', meaning: 'every class whose whole name matches, with all their subclasses; no class matching is an error' },
      { form: '(<subquery>) alias', meaning: 'the rows of a subquery' },
      { form: 'OBJECTS 0x<hex>', meaning: 'the object at that address' },
    ],
    predicates: ['=', '!=', '<>', '<', '<=', '>', '>=', 'LIKE "<regex>"', 'NOT LIKE "<regex>"', 'x INSTANCEOF <class>', 'x INSTANCEOF "<regex>"', 'x IN (<subquery>)', 'e BETWEEN a AND b', 'e IS [NOT] NULL', 'EXISTS (<subquery>)', 'AND', 'OR', 'NOT'],
    keywords: [...KEYWORDS],
    attributes: ATTRIBUTE_NAMES.map((name) => ({ name, fullPath: needsFullPath(`SELECT x.${name} FROM java.lang.Object x`) })),
    functions: FUNCTION_NAMES.map(functionEntry),
    aggregates: AGGREGATE_NAMES.map(aggregateEntry),
    methods: METHOD_ALIASES.map((m) => ({ name: `${m.name}(${m.args === 0 ? '' : 'x'})`, reads: m.doc })),
    namedQueries: NAMED_QUERIES.map((q) => ({ name: q.name, group: q.group, description: q.description, fullPath: q.fullPath, oql: q.oql })),
    viz: {
      directive: '-- @viz <kind> [label=<col>] [value=<col>] [cap=<n>] [title=<text>] [name=<text>]',
      kinds: ['table', 'histogram', 'piechart', 'treemap'],
    },
    examples: EXAMPLES.map((e): OqlExample => ({ ...e, fullPath: needsFullPath(e.oql.replace(/^--.*\n/, '')) })),
    fullPathNote: 'Full-path features (@retainedHeapSize, dominators(), dominatorof(), @inbounds, @outbounds, path(), AS RETAINED SET) work once GET /status says ready: POST /analyze starts the analysis.',
    usage: {
      query: 'POST / or POST /query with the OQL as the body (text), or JSON {"query": "...", "limit": N}; the answer is a QueryResult (GET /schema)',
      stream: 'POST /stream with the OQL as the body: NDJSON, one object per row keyed by column name',
      errors: '{"ok": false, "error": {"kind", "message"}}',
    },
  };
  return cached;
}
