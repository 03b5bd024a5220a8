/**
 * Threads in matching keys. A path key's thread step is `thread "<name>"`, but a name is not an
 * identity: two threads named `pool` whose bigger one ended between the dumps must read as one
 * thread gone and one unchanged, not as `pool` shrunk. So each dump's snapshot writes a
 * placeholder per thread object (`threadStep`), and the comparison, which sees both dumps'
 * threads, replaces it (`threadLabels`): threads are paired by name and `tid` first (the id
 * java.lang.Thread keeps for its life in every JDK and on Android, never reused by one JVM), then
 * by name alone: every thread in another run of the program (where `main` is still `main` but
 * ids moved), only threads without a `tid` in two dumps of one JVM (where a thread with a `tid`
 * that found no partner ended or started in between). A thread left without a partner is new or
 * gone. When a name stands for more than one thread, the label says which one: `thread "pool" #21`.
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

/** A thread of each dump taken for one (either missing: gone or new). */
type Pair = [ThreadIdentity | undefined, ThreadIdentity | undefined];

/**
 * Whether the two dumps share a thread with the same name and `tid`: then they are dumps of one
 * JVM (which never gives one id to two threads), the evidence a name with a single thread per
 * side has none of its own for.
 */
function shareAThread(baseline: ThreadIdentity[], current: ThreadIdentity[]): boolean {
  const ids = new Set(baseline.filter((t) => t.tid !== null).map((t) => `${t.tid}\u0000${t.name}`));
  return current.some((t) => t.tid !== null && ids.has(`${t.tid}\u0000${t.name}`));
}

/**
 * The threads of one name paired: by `tid` first. The ones left over pair by name, biggest with
 * biggest, in another run of the program; in one JVM (`oneJvm`, or some of the name paired by
 * `tid`) only those without a `tid` do, among themselves: one with a `tid` that found no
 * partner ended or started in between. In order: the pairs by `tid`, the pairs by name, the
 * baseline's threads left alone, the current dump's.
 */
function pairThreads(b: ThreadIdentity[], c: ThreadIdentity[], oneJvm: boolean): Pair[] {
  const pairs: Pair[] = [];
  const restB: ThreadIdentity[] = [];
  const restC = [...c];
  for (const t of b) {
    const i = t.tid === null ? -1 : restC.findIndex((u) => u.tid === t.tid);
    if (i >= 0) pairs.push([t, restC.splice(i, 1)[0]]);
    else restB.push(t);
  }
  restB.sort(biggestFirst);
  restC.sort(biggestFirst);
  const byName = oneJvm || pairs.length > 0 ? (t: ThreadIdentity) => t.tid === null : () => true;
  const nameB = restB.filter(byName);
  const nameC = restC.filter(byName);
  const paired = new Set<ThreadIdentity>();
  for (let i = 0; i < Math.min(nameB.length, nameC.length); i++) {
    pairs.push([nameB[i], nameC[i]]);
    paired.add(nameB[i]!).add(nameC[i]!);
  }
  for (const t of restB) if (!paired.has(t)) pairs.push([t, undefined]);
  for (const t of restC) if (!paired.has(t)) pairs.push([undefined, t]);
  return pairs;
}

/**
 * The label of every thread of both dumps, by object id. Each name's threads are paired
 * (`pairThreads`); a name that stands for one thread (one pair, or one thread of one dump) is
 * `thread "<name>"` on both sides (the same thread, or its counterpart in another run). Else
 * each pair, and each thread left alone, is `thread "<name>" #<tid>` (the current dump's tid for
 * a pair), or `(k)`, its place in that order, when it has no tid. A name with a single thread
 * per side is taken as one JVM's when the dumps share any thread (name and tid): there, `worker
 * #12` that ended and `worker #14` that started are two threads, not one that grew. (Two runs of
 * one program usually share `main` #1, so there a lone thread whose tid moved is gone and new.)
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
  const oneJvm = shareAThread(baseline, current);
  for (const name of new Set([...bs.keys(), ...cs.keys()])) {
    const b = bs.get(name) ?? [];
    const c = cs.get(name) ?? [];
    const pairs = pairThreads(b, c, oneJvm && b.length <= 1 && c.length <= 1);
    const plain = `thread "${name}"`;
    pairs.forEach(([x, y], k) => {
      const tid = y ? y.tid : x!.tid;
      const label = pairs.length <= 1 ? plain : `${plain} ${tid === null ? `(${k + 1})` : `#${tid}`}`;
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
