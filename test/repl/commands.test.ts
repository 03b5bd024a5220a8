/**
 * The REPL dispatcher on the demo dump, statement by statement (what piped input runs): every
 * `!` command, their errors, and the piped CLI (`heapql query <dump> --repl < file`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession, type ObjectRef } from '../../ts/index.js';
import { complete, COMMANDS, renderPath, Repl, statementComplete, type CompletionSource, type ReplIO } from '../../ts/repl/index.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

describe('the REPL dispatcher', () => {
  let session: HeapSession;
  let repl: Repl;
  let out: string[];
  let errs: string[];
  const saved = new Map<string, string>();
  let quits = 0;
  const io: ReplIO = {
    print: (t) => out.push(t),
    error: (t) => errs.push(t),
    saveFile: (file, content) => {
      if (file.startsWith('/forbidden/')) throw new Error('EACCES: permission denied');
      saved.set(file, [...content].join(''));
    },
    quit: () => quits++,
  };
  /** Runs one statement; returns its output and errors. */
  const run = async (statement: string) => {
    out = [];
    errs = [];
    const ok = await repl.execute(statement);
    return { ok, out: out.join('\n'), err: errs.join('\n') };
  };

  beforeAll(async () => {
    session = await openHeap(demo);
    repl = new Repl(session, io);
  });
  afterAll(() => session.close());

  it('runs OQL and shows a capped table; a broken query gets a caret and keeps the last result', async () => {
    const r = await run('SELECT s, s.createdAt AS created, s.user.value.length AS ulen FROM Demo$Session s;');
    expect(r.ok).toBe(true);
    expect(r.out).toContain('(400 rows; showing the first 50');
    const before = repl.state.result;
    const bad = await run('SELECT s FORM Demo$Session s');
    expect(bad.ok).toBe(false);
    expect(bad.err).toMatch(/query:1:10: unexpected "FORM"[^]*\n {11}\^\^\^\^/);
    expect(repl.state.result).toBe(before);
  });

  it('a malformed -- @viz directive is named in a warning; the result is still shown, as a table', async () => {
    const r = await run('-- @viz pie label=user\nSELECT s.user.value AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY s.user.value');
    expect(r.ok).toBe(true);
    expect(r.err).toMatch(/^warning: @viz directive ignored: .*pie.*; showing a table$/);
    expect(r.out).toMatch(/user +\| +n/);
    expect((await run('-- @viz piechart label=user value=n\nSELECT s.user.value AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY s.user.value')).err).toBe('');
  });

  it('!count, !top, !tail, !undo, !row, !set limit', async () => {
    await run('SELECT s, s.createdAt AS created FROM Demo$Session s');
    expect((await run('!count')).out).toBe('400 rows');
    expect((await run('!top 3')).out).toContain('(3 rows)');
    expect((await run('!count')).out).toBe('3 rows');
    expect((await run('!undo')).out).toContain('(400 rows');
    expect((await run('!tail')).out).toContain('(10 rows)');
    await run('!undo');
    const row = await run('!row 2');
    expect(row.out).toMatch(/^row 2 of 400\ns {7}= Demo\$Session @ 0x[0-9a-f]+\ncreated = \d+$/);
    expect((await run('!row next')).out).toMatch(/^row 3 of 400/);
    expect((await run('!row prev')).out).toMatch(/^row 2 of 400/);
    expect((await run('!row last')).out).toMatch(/^row 400 of 400/);
    expect((await run('!row 401')).err).toContain('there is no row 401');
    expect((await run('!set limit 5')).out).toBe('limit = 5');
    expect((await run('!last')).out).toContain('(400 rows; showing the first 5');
    expect((await run('!set')).out).toContain('limit = 5');
    await run('!set limit 0');
    expect((await run('!last')).out).toContain('(400 rows)');
    expect((await run('!set width 3')).err).toContain("unknown setting 'width'");
  });

  it('a refused !set limit changes nothing: the limit stays as it was', async () => {
    const before = repl.state.limit;
    await run('!set limit 7');
    for (const bad of ['!set limit', '!set limit x', '!set limit -3', '!set limit 2.5']) {
      const r = await run(bad);
      expect(r.ok, bad).toBe(false);
      expect(r.err, bad).toMatch(/!set limit (needs|takes) a (whole )?number/);
      expect(repl.state.limit, bad).toBe(7);
    }
    expect((await run('!set')).out).toContain('limit = 7');
    await run('SELECT s FROM Demo$Session s');
    expect((await run('!last')).out).toContain('(400 rows; showing the first 7');
    await run(`!set limit ${before}`);
  });

  it('!filter (substring and /regex/), !sort by name, alias or position, !select, !stats, !unique', async () => {
    await run('SELECT s.createdAt AS created, toString(s.user) AS user FROM Demo$Session s');
    const users = repl.state.result!.rows.map((r) => r[1]);
    const alice = users.filter((u) => u === 'alice').length;
    expect((await run('!filter alice')).out).toContain(`(${alice} rows)`);
    await run('!undo');
    expect((await run('!filter /^AL/')).out).toContain(`(${alice} rows)`);
    await run('!undo');
    expect((await run('!filter /[/')).err).toContain('bad regular expression');

    await run('!sort created desc');
    const created = repl.state.result!.rows.map((r) => r[0] as number);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    await run('!sort 1');
    expect(repl.state.result!.rows[0]![0]).toBe(Math.min(...created));
    const missing = await run('!sort nosuch');
    expect(missing.err).toContain("no column 'nosuch'");
    expect(missing.err).toContain('1:created, 2:user (or give a position 1-2)');
    expect(repl.state.result!.rowCount).toBe(400);

    expect((await run('!select user')).out).toMatch(/^user\n-+\n/);
    await run('!undo');
    const stats = await run('!stats created');
    const sorted = [...created].sort((a, b) => a - b);
    const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
    const [header, , line] = stats.out.split('\n');
    const cells = Object.fromEntries(header!.split('|').map((h, i) => [h.trim(), line!.split('|')[i]!.trim()]));
    expect(cells).toMatchObject({ column: 'created', n: '400', nulls: '0', min: String(sorted[0]), max: String(sorted[399]) });
    expect(Number(cells.mean)).toBeCloseTo(mean, 0);
    // Percentiles by nearest rank.
    expect([cells.p50, cells.p90, cells.p99]).toEqual([String(sorted[199]), String(sorted[359]), String(sorted[395])]);
    expect((await run('!stats user')).err).toContain('does not hold numbers');
    expect((await run('!stats')).out).toContain('created');

    const unique = await run('!unique user 2');
    expect(unique.out).toMatch(/^user +\| count \| %\n/);
    expect(unique.out).toContain(`alice | ${String(alice).padStart(5)} |`);
    // N is a count from 1: 0 showed an empty table "(0 rows, truncated)", a negative one was
    // read as part of the column's name ("no column 'user -3'").
    expect((await run('!unique user 0')).err).toBe("error: !unique <col> [N] shows the N most frequent values, from 1, not '0'");
    expect((await run('!unique user -3')).err).toBe("error: !unique <col> [N] takes a whole number, not '-3'");
    expect((await run('!unique user 2.5')).err).toBe("error: !unique <col> [N] takes a whole number, not '2.5'");
    expect((await run('!unique 2 1')).out).toMatch(/^user +\| count \| %\n[^]*\(1 row, truncated\)/);
    // !stats and !unique leave the result as it was.
    expect(repl.state.result!.columns.map((c) => c.name)).toEqual(['created', 'user']);
  });

  it('!save writes CSV, TSV and JSON by extension; a bad path is one line and loses nothing', async () => {
    await run('SELECT s.createdAt AS created FROM Demo$Session s');
    await run('!top 2');
    expect((await run('!save out.csv')).out).toBe('saved 2 rows to out.csv');
    expect(saved.get('out.csv')).toMatch(/^created\r\n\d+\r\n\d+\r\n$/);
    await run('!save out.tsv');
    expect(saved.get('out.tsv')).toMatch(/^created\n\d+\n\d+\n$/);
    await run('!save out.json');
    expect(JSON.parse(saved.get('out.json')!)).toMatchObject({ columns: [{ name: 'created', type: 'number' }], rowCount: 2 });
    expect((await run('!save out.xlsx')).err).toContain('.csv, .tsv or .json');
    const denied = await run('!save /forbidden/x.csv');
    expect(denied.err).toBe('error: cannot write /forbidden/x.csv: EACCES: permission denied');
    expect(repl.state.result!.rowCount).toBe(2);
  });

  it('says what is wrong, every error line beginning with error:', async () => {
    const errors = [
      // A class the dump lacks is named as such, not compared with the object's class.
      ['!obj Nope#1', "error: no class named 'Nope' in this dump (!classes <text> lists the classes whose names contain a text)"],
      ['!obj Demo$Sesion#1', "error: no class named 'Demo$Sesion' in this dump; did you mean Demo$Session"],
      // The REPL's command, not the library's analyze().
      ['!path #1', 'error: !path needs the full analysis: run !analyze first'],
      ['!dom #1', 'error: !dom needs the full analysis: run !analyze first'],
      ['!help nosuch', "error: there is no help topic 'nosuch': !help lists the commands, !help oql shows the query language"],
      ['!quit extra', "error: !quit takes no argument (not 'extra')"],
      ['!count 3', "error: !count takes no argument (not '3')"],
      ['!fitler x', 'error: unknown command !fitler; did you mean !filter? (!help lists them)'],
      ['!top x', "error: !top takes a whole number, not 'x'"],
      ['SELECT s FORM Demo$Session s', 'error: query:1:10: unexpected "FORM"'],
      ['!obj #99999999', 'error: object 99999999 does not exist'],
    ];
    for (const [statement, message] of errors) {
      const r = await run(statement!);
      expect(r.ok, statement).toBe(false);
      expect(r.err, statement).toContain(message);
      expect(r.err.startsWith(message!), statement).toBe(true);
    }
    expect(quits).toBe(0);
    expect((await run('!help OQL')).out).toContain('examples:');
  });

  it('a class the dump lacks: the words of the library, the server and the MCP tools (heap.noClassMessage)', async () => {
    for (const name of ['Sessio', 'Nope', 'Demo$Sesion', 'com.acme.Session']) {
      const r = await run(`!describe ${name}`);
      expect(r.ok, name).toBe(false);
      expect(r.err, name).toBe(`error: ${session.noClassMessage(name)} (!classes <text> lists the classes whose names contain a text)`);
    }
    expect((await run('!describe Sessio')).err).toMatch(/^error: no class named 'Sessio' in this dump; classes containing 'Sessio': .*Demo\$Session\b/);
    expect((await run('!obj Sessio#1')).err).toBe(`error: ${session.noClassMessage('Sessio')} (!classes <text> lists the classes whose names contain a text)`);
  });

  it('warns when a -- @viz directive names a column the result does not have', async () => {
    const r = await run('-- @viz piechart label=nope\nSELECT toString(s.user) AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)');
    expect(r.ok).toBe(true);
    expect(r.err).toBe('warning: @viz label=nope: no such column (columns: user, n)');
    expect(r.out).toMatch(/user +\| +n/);
    expect((await run('-- @viz histogram value=user\nSELECT toString(s.user) AS user, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)')).err).toBe(
      'warning: @viz value=user: column "user" is not numeric',
    );
  });

  it('every example of !help oql finds something on the demo dump', async () => {
    const help = (await run('!help oql')).out;
    const examples = help.split('examples:\n')[1]!.split('\n').filter((l) => l.trim().startsWith('SELECT'));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const example of examples) {
      const r = await run(example.trim().replace(/\s{3}\(.*\)$/, ''));
      expect(r.err, example).toBe('');
      expect(repl.state.result!.rowCount, example).toBeGreaterThan(0);
    }
  });

  it('!plan, !plan --raw, !classes, !describe, !run, !reachable, !all', async () => {
    expect((await run('!plan SELECT COUNT(*) FROM Demo$Session')).out).toMatch(/^Plan \(query-only path, all objects\)\n[^]*Scan: Demo\$Session/);
    expect(JSON.parse((await run('!plan --raw SELECT COUNT(*) FROM Demo$Session')).out)).toMatchObject({ fullPath: false, reachableOnly: false });
    expect((await run('!plan SELECT @retainedHeapSize FROM Demo$Session')).err).toContain('full analysis');
    const classes = await run('!classes demo$sess');
    expect(classes.out).toMatch(/Demo\$Session +Demo\$SessionStore\n\(2 classes\)/);
    // One class is "1 class"; none is the count alone, with no empty line above it.
    expect((await run('!classes demo$sessionstore')).out).toBe('Demo$SessionStore\n(1 class)');
    expect((await run('!classes zzzzz-no-such')).out).toBe('(0 classes)');
    // A result of one column: its position is 1, not "a position 1-1".
    await run('SELECT s FROM Demo$Session s');
    expect((await run('!sort toString')).err).toBe("error: no column 'toString' in the last result; its columns are 1:s (or give its position, 1)");
    const described = await run('!describe Demo$Session');
    expect(described.out).toMatch(/instances +400 \(/);
    expect(described.out).toMatch(/long +createdAt +\(Demo\$Session\)/);
    expect(described.out).toContain('superclasses   java.lang.Object');
    expect((await run('!describe Demo$Sesion')).err).toContain('did you mean Demo$Session');
    expect((await run('!run')).out).toMatch(/leak-suspects +\[needs !analyze\]/);
    const named = await run('!run string-count');
    expect(named.out).toMatch(/^→ SELECT/);
    expect((await run('!run leak-suspects')).err).toContain('needs the full analysis: run !analyze first');
    expect((await run('!run strng-count')).err).toContain("no named query 'strng-count'");
    // The specification's spelling, /run <name>, is !run <name>; another /word says how commands start.
    const slashed = await run('/run string-count');
    expect(slashed.err).toBe('');
    expect(slashed.out.split('\n').slice(0, 5)).toEqual(named.out.split('\n').slice(0, 5));
    expect((await run('/run')).out).toMatch(/leak-suspects +\[needs !analyze\]/);
    expect((await run('/help')).err).toContain('hint: the REPL\'s commands start with "!": !help');
    expect((await run('!reachable')).out).toContain('reachable objects only');
    expect(session.reachableOnly).toBe(true);
    expect((await run('!plan SELECT COUNT(*) FROM Demo$Session')).out).toContain('reachable objects only');
    await run('!all');
    expect(session.reachableOnly).toBe(false);
  });

  it('!obj, !refs before and after !analyze, !path, !dom; unknown commands suggest', async () => {
    await run('SELECT s FROM Demo$Session s');
    const first = repl.state.result!.rows[0]![0] as ObjectRef;
    const obj = await run(`!obj Demo$Session#${first.objectId}`);
    expect(obj.out).toContain(`object         ${first.label}`);
    expect(obj.out).toMatch(/long +createdAt += \d+/);
    expect(obj.out).toContain('retained size  needs !analyze');
    expect((await run(`!obj ${first.address}`)).out).toContain(first.label);
    expect((await run('!obj')).out).toContain(first.label); // the current row's object
    expect((await run('!obj #99999999')).err).toContain('does not exist');
    expect((await run(`!obj java.lang.String#${first.objectId}`)).err).toContain('is a Demo$Session, not a java.lang.String');
    const refs = await run(`!refs #${first.objectId}`);
    expect(refs.out).toMatch(/refers to \(6\):\n {2}→ <class> +class Demo\$Session/);
    expect(refs.out).toContain('referred to by: needs the full analysis (!analyze)');
    expect((await run('!path')).err).toBe('error: !path needs the full analysis: run !analyze first');

    const progress: number[] = [];
    io.progress = (e) => progress.push(e.done);
    const analyzed = await run('!analyze');
    expect(analyzed.out).toContain('full analysis ready');
    expect(session.status.state).toBe('full');
    expect((await run('!analyze')).out).toContain('already there');

    const after = await run('!refs');
    expect(after.out).toMatch(/referred to by \(1\):\n {2}← value +java\.util\.HashMap\$Node @/);
    const pathOut = await run('!path');
    expect(pathOut.out).toMatch(/\[GC root: [^\]]+\]/);
    expect(pathOut.out).toMatch(/└─ \.SESSIONS → java\.util\.HashMap @/);
    expect(pathOut.out.trimEnd().split('\n').at(-1)).toContain(`└─ .value → ${first.label}  #${first.objectId}`);
    const dom = await run('!dom');
    expect(dom.out).toMatch(/dominator +java\.util\.HashMap\$Node @/);
    expect(dom.out).toMatch(/dominates \(3\), biggest first:\n {2}4,112 B {2}byte\[4096\]/);
    expect((await run('!obj')).out).toMatch(/retained size +4,568 B/);
    expect((await run('SELECT @retainedHeapSize AS r FROM Demo$Session s WHERE @objectId = ' + first.objectId)).out).toContain('4568');

    expect((await run('!fitler x')).err).toBe('error: unknown command !fitler; did you mean !filter? (!help lists them)');
    expect((await run('!hepl')).err).toContain('!help');
  });

  it('!path and !dom of an unreachable object: its pseudo-root is no GC root, and says so', async () => {
    if (session.status.state !== 'full') await run('!analyze');
    // #1456 (an int[4]) hangs off its own pseudo-root; #1737 off the unreachable SoftReference #16222.
    expect((await run('!obj #1456')).out).toContain('reachable      no (no GC root the dump records reaches it)');
    const alone = await run('!path #1456');
    expect(alone.out).toBe('int[4] @ 0xfeab6138  #1456  [unreachable: a pseudo-root of the analysis, not a GC root]');
    const longer = (await run('!path #1737')).out.split('\n');
    expect(longer[0]).toBe('java.lang.ref.SoftReference @ 0xfed476d8  #16222  [unreachable: a pseudo-root of the analysis, not a GC root]');
    expect(longer.at(-1)).toContain('└─ .[0] → java.lang.reflect.Method @ 0xfeab8b58  #1737');
    for (const id of [1456, 16222]) {
      const dom = await run(`!dom #${id}`);
      expect(dom.out, `#${id}`).toContain('dominator      (none: unreachable, a pseudo-root of the analysis under the virtual root, not a GC root)');
      expect(dom.out, `#${id}`).not.toContain('(none: a GC root)');
    }
    // A GC root is still called one.
    await run('SELECT s FROM Demo$Session s');
    const root = /#(\d+) {2}\[GC root: [^\]]+\]/.exec((await run('!path')).out)!;
    expect((await run(`!dom #${root[1]}`)).out).toContain('dominator      (none: a GC root)');
  });

  it('!dom of an object only the virtual root dominates says why: a GC root, held through several roots, unreachable', async () => {
    if (session.status.state !== 'full') await run('!analyze');
    const dominator = async (spec: string) => /^dominator {6}(.*)$/m.exec((await run(`!dom ${spec}`)).out)?.[1];
    const SHARED = '(none: held through more than one GC root, so only the virtual root dominates it)';
    // The String "Demo" has no GC root record: it is reached from the roots along more than one path.
    expect((await run('SELECT x.@GCRoots AS r, dominatorof(x) AS d FROM OBJECTS 0xfeab5f20 x')).out).toMatch(/^r +\| d\n-+\+-+\nnull +\| null\n/);
    expect((await run('!path 0xfeab5f20')).out.split('\n')).toHaveLength(5);
    expect(await dominator('0xfeab5f20')).toBe(SHARED);
    // A CountDownLatch a frame's Java Local record names: the analysis takes that record as a
    // reference from its thread (the path starts at the thread), and more than one thread holds it.
    expect((await run('SELECT x.@GCRoots AS r, dominatorof(x) AS d FROM OBJECTS 0xfecee8b0 x')).out).toMatch(/\n\[Java Local\] +\| null\n/);
    expect((await run('!path 0xfecee8b0')).out).toMatch(/^java\.lang\.Thread @ 0xfeceeb78  #12538  \[GC root: Thread\]\n└─ \.<Java Local in frame 4> → java\.util\.concurrent\.CountDownLatch @ 0xfecee8b0/);
    expect(await dominator('0xfecee8b0')).toBe(SHARED);
    // A JNI Global's object is a GC root of the analysis: its path is the object alone.
    expect((await run('!path 0xfecef7c0')).out).toBe('java.lang.invoke.MethodType @ 0xfecef7c0  #12591  [GC root: JNI Global]');
    expect(await dominator('0xfecef7c0')).toBe('(none: a GC root)');
    // Garbage at the top of its own tree, and an object with a dominator.
    expect(await dominator('#1456')).toBe('(none: unreachable, a pseudo-root of the analysis under the virtual root, not a GC root)');
    expect(await dominator('0xfeceeaf8')).toMatch(/^java\.lang\.Thread @ 0xfed45ef0  #\d+$/);
    // Every object with neither a dominator nor a root record is reachable or garbage, never a root.
    expect(session.reachableOnly).toBe(false);
    expect((await run('SELECT x FROM INSTANCEOF java.lang.Object x WHERE dominatorof(x) = NULL AND x.@GCRoots = NULL')).ok).toBe(true);
    expect(repl.state.result!.rowCount).toBe(2165);
    const ids = (repl.state.result!.rows as { objectId: number }[][]).slice(0, 50).map((r) => r[0]!.objectId);
    for (const id of ids) expect([SHARED, '(none: unreachable, a pseudo-root of the analysis under the virtual root, not a GC root)'], `#${id}`).toContain(await dominator(`#${id}`));
  });

  it('a command the table marks as taking no argument refuses one; any other reads it', async () => {
    const none = COMMANDS.filter((c) => !c.takesArguments).map((c) => c.name);
    expect(none.sort()).toEqual(['all', 'analyze', 'count', 'last', 'quit', 'reachable', 'undo']);
    for (const c of COMMANDS) {
      const r = await run(`!${c.name} nosuch.json`);
      if (c.takesArguments) expect(r.err, c.name).not.toContain('takes no argument');
      else expect(r.err, c.name).toBe(`error: !${c.name} takes no argument (not 'nosuch.json')`);
    }
    expect(quits).toBe(0);
  });

  it('!help lists every command; !help oql the language; !quit', async () => {
    const help = await run('!help');
    for (const c of COMMANDS) expect(help.out).toContain(c.usage);
    expect((await run('!help oql')).out).toContain('@retainedHeapSize');
    await run('!quit');
    expect(quits).toBe(1);
  });
});

describe('!analyze cancelled (Ctrl-C)', () => {
  it('says cancelled, and the session goes on on the query-only path', async () => {
    const session = await openHeap(demo);
    const errors: string[] = [];
    let done = 0;
    const repl = new Repl(session, { print: () => {}, error: (t) => errors.push(t), saveFile: () => {}, progressDone: () => done++, quit: () => {} });
    try {
      const controller = new AbortController();
      const run = repl.execute('!analyze', controller.signal);
      controller.abort();
      expect(await run).toBe(false);
      expect(errors).toEqual(['cancelled']);
      expect(done).toBe(1);
      expect(session.status.state).toBe('query-only');
      expect(await repl.execute('SELECT COUNT(*) FROM Demo$Session')).toBe(true);
    } finally {
      session.close();
    }
  });
});

describe('statement completeness and completion (shared with the browser)', () => {
  it('asks for more only when the statement runs out before its end', () => {
    expect(statementComplete('SELECT COUNT(*)')).toBe(false);
    expect(statementComplete('SELECT COUNT(*) FROM X WHERE (a')).toBe(false);
    expect(statementComplete('SELECT "abc')).toBe(false);
    expect(statementComplete('-- @viz table')).toBe(false);
    expect(statementComplete('SELECT COUNT(*) FROM X WHERE x.a = 1 AND')).toBe(false);
    expect(statementComplete('SELECT COUNT(*) FROM X')).toBe(true);
    expect(statementComplete('SELECT s FORM X s')).toBe(true);
    expect(statementComplete('SELECT COUNT(*);')).toBe(true);
    expect(statementComplete('!top 3')).toBe(true);
  });

  it('offers what fits where the cursor is', async () => {
    const source: CompletionSource = {
      classNames: () => ['Demo$Session', 'Demo$SessionStore', 'java.lang.String'],
      fieldsOf: async (c) => (c === 'Demo$Session' ? ['createdAt', 'user'] : []),
      columns: () => ['created', 'user'],
      files: (p) => [`${p}x.csv`],
    };
    const items = async (text: string) => (await complete(text, source)).items;
    expect(await items('!desc')).toEqual(['!describe ']);
    expect(await items('!describe Demo$Sess')).toEqual(['Demo$Session', 'Demo$SessionStore']);
    expect(await items('SELECT s FROM INSTANCEOF java.')).toEqual(['java.lang.String']);
    expect(await items('SELECT s FROM ')).toContain('INSTANCEOF');
    expect(await items('SELECT s FROM Demo$Session s WHERE s.cr')).toEqual(['s.createdAt']);
    expect(await items('SELECT @ret')).toEqual(['@retainedHeapSize']);
    expect(await items('SELECT x FROM java.lang.String x WHERE x.@us')).toEqual(['x.@usedHeapSize']);
    expect(await items('SELECT s.user.@ret')).toEqual(['s.user.@retainedHeapSize']);
    expect(await items('SELECT clas')).toEqual(['classof(']);
    expect(await items('SELECT COU')).toEqual(['COUNT(']);
    expect(await items('SELECT s FROM Demo$Session s WHERE us')).toEqual(['user']);
    expect(await items('SEL')).toEqual(['SELECT']);
    expect(await items('!sort cr')).toEqual(['created']);
    expect(await items('!run leak')).toEqual(['leak-suspects']);
    expect(await items('!save out/')).toEqual(['out/x.csv']);
    expect(await items('!set l')).toEqual(['limit']);
    expect(await items('-- @viz hist')).toEqual(['histogram']);
    expect(await items('-- @viz histogram la')).toEqual(['label=']);
  });

  it('lists at most 200 names and says how many more match; Tab inserts only what every match shares', async () => {
    const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
    // Not in order: the first names met are not the first listed.
    const classes = [...names('jdk.internal.E', 50), ...names('java.util.D', 50), ...names('java.lang.C', 250)];
    const source: CompletionSource = { classNames: () => classes, fieldsOf: async () => [], columns: () => [], files: () => [] };
    // java.* and jdk.*: `j` is all they share, though the first 200 listed share `java.`.
    const j = await complete('SELECT x FROM j', source);
    expect(j).toEqual({ items: [...names('java.lang.C', 200)], word: 'j', more: 150 });
    expect((await complete('SELECT x FROM java.', source)).more).toBe(100);
    expect((await complete('!describe j', source)).more).toBe(150);
    // All 250 java.lang names share more than the word: that alone, for Tab to insert.
    expect(await complete('SELECT x FROM java.l', source)).toEqual({ items: ['java.lang.C'], word: 'java.l' });
    expect(await complete('SELECT x FROM java.lang.C0', source)).toEqual({ items: names('java.lang.C', 100), word: 'java.lang.C0' });
  });
});

describe('completion of class names OQL cannot read as they stand', () => {
  // Hidden classes (lambdas, JDK 17 `+0x…`, JDK 21 `/0x…`): `+` and `/` are operators in OQL.
  const classes = ['Demo$Session', 'Demo$$Lambda$1+0x00007f519d001868', 'Demo$$Lambda/0x000001', 'java.lang.invoke.LambdaForm$MH/0x0000000800c0c000', "Odd\"q'", 'byte[]', 'Ctl\x1b[31m+x'];
  const source: CompletionSource = { classNames: () => classes, fieldsOf: async () => [], columns: () => [], files: () => [] };
  const items = async (line: string) => (await complete(line, source)).items;

  it('after FROM (or FROM OBJECTS) are offered as the FROM "<regex>" pattern matching them alone', async () => {
    expect(await items('SELECT x FROM Demo$$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"', '"Demo\\$\\$Lambda/0x000001"']);
    expect(await items('SELECT x FROM OBJECTS java.lang.invoke.L')).toEqual(['"java\\.lang\\.invoke\\.LambdaForm\\$MH/0x0000000800c0c000"']);
    // Names OQL reads stay as they are; one holding both quotes cannot be written at all.
    expect(await items('SELECT x FROM Demo$S')).toEqual(['Demo$Session']);
    expect(await items('SELECT x FROM by')).toEqual(['byte[]']);
    expect(await items('SELECT x FROM Od')).toEqual([]);
    // A name with a control character stays as it is (the terminal lists it escaped and inserts
    // none of it; no pattern typed at the prompt could hold it), also inside a pattern.
    expect(await items('SELECT x FROM Ct')).toEqual(['Ctl\x1b[31m+x']);
    expect(await items('SELECT x FROM "Ct')).toEqual([]);
  });

  it('within a pattern begun after FROM, by the pattern or by the name typed', async () => {
    expect(await items('SELECT x FROM "Demo\\$\\$Lambda\\$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"']);
    expect(await items('SELECT x FROM "Demo$$Lambda/')).toEqual(['"Demo\\$\\$Lambda/0x000001"']);
    expect(await items("SELECT x FROM 'Demo$S")).toEqual(["'Demo\\$Session'"]);
  });

  it('after FROM INSTANCEOF are offered as the pattern FROM INSTANCEOF "<regex>" takes for them', async () => {
    expect(await items('SELECT x FROM INSTANCEOF Demo$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"', '"Demo\\$\\$Lambda/0x000001"', 'Demo$Session']);
    expect(await items('SELECT x FROM OBJECTS INSTANCEOF java.lang.invoke.L')).toEqual(['"java\\.lang\\.invoke\\.LambdaForm\\$MH/0x0000000800c0c000"']);
    // Within a pattern begun there, as after FROM.
    expect(await items('SELECT x FROM INSTANCEOF "Demo\\$\\$Lambda\\$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"']);
    expect(await items("select x from instanceof 'Demo$$Lambda/")).toEqual(["'Demo\\$\\$Lambda/0x000001'"]);
  });

  it('after the predicate x INSTANCEOF are offered as the pattern it takes for them, as after FROM INSTANCEOF', async () => {
    expect(await items('SELECT x FROM Demo$Session x WHERE x INSTANCEOF Demo$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"', '"Demo\\$\\$Lambda/0x000001"', 'Demo$Session']);
    expect(await items('SELECT x FROM Demo$Session x WHERE x NOT INSTANCEOF java.lang.invoke.L')).toEqual(['"java\\.lang\\.invoke\\.LambdaForm\\$MH/0x0000000800c0c000"']);
    // Within a pattern begun there.
    expect(await items('SELECT x FROM INSTANCEOF java.lang.Object x WHERE x INSTANCEOF "Demo\\$\\$Lambda\\$')).toEqual(['"Demo\\$\\$Lambda\\$1\\+0x00007f519d001868"']);
    expect(await items("select x from instanceof java.lang.Object x where x not instanceof 'Demo$$Lambda/")).toEqual(["'Demo\\$\\$Lambda/0x000001'"]);
  });
});

describe('text views', () => {
  it('a long path shows its ends and how many steps were left out', () => {
    const ref = (n: number) => ({ objectId: n, address: `0x${n.toString(16)}`, className: 'Node', label: `Node @ 0x${n.toString(16)}` });
    const text = renderPath(
      [
        { object: ref(1), via: 'JNI Global', skipped: 0 },
        { object: ref(2), via: 'next', skipped: 0 },
        { object: ref(999), via: 'next', skipped: 996 },
        { object: ref(1000), via: 'next', skipped: 0 },
      ],
      '#1000',
    );
    expect(text.split('\n')).toEqual([
      'Node @ 0x1  #1  [GC root: JNI Global]',
      '└─ .next → Node @ 0x2  #2',
      '  … 996 steps left out …',
      '                        └─ .next → Node @ 0x3e7  #999',
      '                        └─ .next → Node @ 0x3e8  #1000',
    ]);
    expect(renderPath(null, '#5')).toContain('no path from a GC root');
  });
});

describe('heapql query <dump> --repl with piped input', () => {
  it('runs statements line by line with plain output; a failed statement makes the exit code 1', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-pipe-'));
    const script = ['SELECT COUNT(*) AS n', 'FROM Demo$Session;', '!count', 'SELECT s FROM Demo$Session s', '!top 2', `!save ${path.join(dir, 'two.csv')}`, '!bogus', '!quit', 'SELECT never FROM Demo$Session'].join('\n');
    const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], { input: script, encoding: 'utf8', env: { ...process.env, XDG_STATE_HOME: dir } });
    expect(r.stdout).not.toContain('oql>');
    expect(r.stdout).toMatch(/^n\n-+\n400\n\(1 row\)\n/);
    expect(r.stdout).toContain('1 row\n');
    expect(r.stdout).toContain(`saved 2 rows to ${path.join(dir, 'two.csv')}`);
    expect(readFileSync(path.join(dir, 'two.csv'), 'utf8').split('\r\n')[0]).toBe('s');
    expect(r.stderr).toContain('unknown command !bogus');
    expect(r.stdout).not.toContain('never');
    expect(r.status).toBe(1);
  });

  it('!save ~/… writes in the home directory (HOME), not in a directory named ~', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'heapql-home-'));
    const cwd = mkdtempSync(path.join(tmpdir(), 'heapql-cwd-'));
    try {
      const script = ['SELECT s FROM Demo$Session s', '!top 2', '!save ~/two.csv', '!save ~/no-such-dir/x.csv'].join('\n');
      const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl'], { cwd, input: script, encoding: 'utf8', env: { ...process.env, HOME: home, XDG_STATE_HOME: home } });
      expect(r.stdout).toContain('saved 2 rows to ~/two.csv');
      expect(readFileSync(path.join(home, 'two.csv'), 'utf8').split('\r\n')[0]).toBe('s');
      expect(r.stderr).toContain('error: stdin:4: cannot write ~/no-such-dir/x.csv: the directory ~/no-such-dir does not exist (ENOENT): create it, or choose another path\n');
      expect(readdirSync(cwd)).toEqual([]);
      expect(r.status).toBe(1);
    } finally {
      for (const dir of [home, cwd]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses options that do not go with --repl', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', demo, '--repl', '--query', 'SELECT 1 FROM X'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--query does not go with --repl');
  });
});
