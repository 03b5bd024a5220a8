/**
 * Threads in matching keys. A path key's thread step is `thread "<name>"`, but a name is not an
 * identity: two threads named `pool` whose bigger one ended between the dumps must read as one
 * thread gone and one unchanged, not as `pool` shrunk. So each dump's snapshot writes a
 * placeholder per thread object (`threadStep`), and the comparison, which sees both dumps'
 * threads, replaces it (`threadLabels`): threads are paired by name and `tid` first (the id
 * java.lang.Thread keeps for its life in every JDK and on Android, never reused by one JVM), then
 * by name alone (another run of the program, where `main` is still `main` but ids moved). A
 * thread left without a partner is new or gone. When several threads of either dump share a
 * name, the label says which one: `thread "pool" #21`.
 */
import type { HeapSession, ReportSections } from '../session/index.js';

/** A named thread of one dump. */
export interface ThreadIdentity {
  objectId: number;
  name: string;
  /** java.lang.Thread's `tid`; null when the dump has none (or 0, as the JDK 7 hprof agent writes some). */
  tid: number | null;
  retained: number;
}

/**
 * The placeholder for a thread object's step in a snapshot's keys, replaced by `labelThreads`
 * once both dumps' threads are known. Delimited by NUL, which no JVM puts in a class or field
 * name (a crafted dump that does can at most make a step read as a thread's label).
 */
export const threadStep = (objectId: number): string => `\u0000thread ${objectId}\u0000`;

/**
 * The dump's named threads (those the report lists, as the keys' `thread "<name>"` steps) with
 * their `tid`, read in one query over the Thread instances when java.lang.Thread has the field.
 */
export async function threadIdentities(session: HeapSession, sections: ReportSections, signal?: AbortSignal): Promise<ThreadIdentity[]> {
  const tids = new Map<number, number>();
  const thread = await session.describeClass('java.lang.Thread');
  if (thread.some((c) => c.fields.some((f) => f.name === 'tid'))) {
    const r = await session.query('SELECT t.@objectId AS id, t.tid AS tid FROM INSTANCEOF java.lang.Thread t', signal ? { signal } : {});
    for (const [id, tid] of r.rows) if (Number(tid) > 0) tids.set(Number(id), Number(tid));
  }
  return sections.threads.threads
    .filter((t) => t.name !== null)
    .map((t) => ({ objectId: t.object.objectId, name: t.name!, tid: tids.get(t.object.objectId) ?? null, retained: t.retained }));
}

const biggestFirst = (p: ThreadIdentity, q: ThreadIdentity) => q.retained - p.retained || (p.tid ?? 0) - (q.tid ?? 0) || p.objectId - q.objectId;

/**
 * The label of every thread of both dumps, by object id. A name that one thread at most has in
 * each dump is `thread "<name>"` on both sides (the same thread, or its counterpart in another
 * run). Threads of a shared name are paired by `tid`; when none pairs so (another run: every id
 * moved), biggest with biggest by name; when some do (one JVM), the others ended or started in
 * between and stay unpaired. Each pair, and each thread left alone, is `thread "<name>" #<tid>`
 * (the current dump's tid for a pair), or `(k)`, its place in that order, when it has no tid.
 */
export function threadLabels(baseline: ThreadIdentity[], current: ThreadIdentity[]): { baseline: Map<number, string>; current: Map<number, string> } {
  const out = { baseline: new Map<number, string>(), current: new Map<number, string>() };
  const byName = (ts: ThreadIdentity[]) => {
    const m = new Map<string, ThreadIdentity[]>();
    for (const t of ts) m.set(t.name, [...(m.get(t.name) ?? []), t]);
    return m;
  };
  const bs = byName(baseline);
  const cs = byName(current);
  for (const name of new Set([...bs.keys(), ...cs.keys()])) {
    const b = bs.get(name) ?? [];
    const c = cs.get(name) ?? [];
    const plain = `thread "${name}"`;
    if (b.length <= 1 && c.length <= 1) {
      for (const t of b) out.baseline.set(t.objectId, plain);
      for (const t of c) out.current.set(t.objectId, plain);
      continue;
    }
    const pairs: [ThreadIdentity | undefined, ThreadIdentity | undefined][] = [];
    const restB: ThreadIdentity[] = [];
    const restC = [...c];
    for (const t of b) {
      const i = t.tid === null ? -1 : restC.findIndex((u) => u.tid === t.tid);
      if (i >= 0) pairs.push([t, restC.splice(i, 1)[0]]);
      else restB.push(t);
    }
    restB.sort(biggestFirst);
    restC.sort(biggestFirst);
    const paired = pairs.length === 0 ? Math.min(restB.length, restC.length) : 0;
    for (let i = 0; i < paired; i++) pairs.push([restB[i], restC[i]]);
    for (const t of restB.slice(paired)) pairs.push([t, undefined]);
    for (const t of restC.slice(paired)) pairs.push([undefined, t]);
    pairs.forEach(([x, y], k) => {
      const tid = y ? y.tid : x!.tid;
      const label = `${plain} ${tid === null ? `(${k + 1})` : `#${tid}`}`;
      if (x) out.baseline.set(x.objectId, label);
      if (y) out.current.set(y.objectId, label);
    });
  }
  return out;
}

/** `key` with each thread placeholder (`threadStep`) replaced by that thread's label. */
export function labelThreads(key: string, labels: Map<number, string>): string {
  return key.replace(/\u0000thread (\d+)\u0000/g, (step, id: string) => labels.get(Number(id)) ?? step);
}
