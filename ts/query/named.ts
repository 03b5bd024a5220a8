// The named-queries library (`!run <name>`, `/run`, the server). The reference tool's 20 names,
// with its defects fixed: INSTANCEOF where a hierarchy is meant (exact-class FROM on
// java.lang.Object or AbstractCollection finds almost nothing), strings grouped by their text,
// "largest strings" measured by their backing arrays (every String instance has the same
// shallow size), classes counted per defining loader, and leak suspects that do not depend on
// a fixed 10 MB threshold.

export interface NamedQuery {
  name: string;
  group: 'Overview' | 'Strings' | 'Threads' | 'Collections' | 'Class loaders' | 'Retained';
  description: string;
  oql: string;
  /** Needs the full analysis (retained sizes or dominators). */
  fullPath: boolean;
}

const ALL = 'FROM INSTANCEOF java.lang.Object x';

/**
 * Collections and maps: no one class is the root of both (Map and Collection are interfaces,
 * which a dump does not record), so every object is tested against the abstract roots, with
 * Hashtable (a Map outside AbstractMap). One scan, one statement.
 */
const COLLECTIONS =
  `${ALL} WHERE (x INSTANCEOF java.util.AbstractCollection OR x INSTANCEOF java.util.AbstractMap OR x INSTANCEOF java.util.Hashtable)`;

/**
 * The number of elements of `x`, read from the JDK's own fields where they hold it exactly; NULL
 * (left out) where they do not. Fields, not classes, decide, so subclasses are covered and a
 * class a dump lacks is no error (TreeSet, Vector are not in every dump):
 * - Hashtable: `count`; Properties from JDK 9 on keeps its entries in a ConcurrentHashMap `map`
 *   (its Hashtable `count` stays 0).
 * - a `size` field: ArrayList, LinkedList, HashMap, LinkedHashMap, TreeMap, WeakHashMap,
 *   IdentityHashMap, EnumMap, PriorityQueue, ImmutableCollections' SetN and MapN, ….
 * - HashSet, LinkedHashSet: their HashMap `map`'s `size`.
 * - TreeSet, Collections$SetFromMap: their map `m`'s `size` (a TreeSet over a sub-map, whose
 *   `m` has no size field, is left out). By class name: other holders of an `m` are views
 *   (TreeMap$KeySet) or sub-maps whose `m` is the whole backing map.
 * - ConcurrentHashMap: `baseCount` while it has no `counterCells`; once updates contended the
 *   count is spread over the cells, and the map is left out.
 * - Vector, Stack: `elementCount`.
 * Left out: ArrayDeque, the concurrent queues and skip lists, copy-on-write lists and sets,
 * singleton and list-of-two immutable collections, and views (keySet(), values(), …).
 */
const CHM_COUNT = (m: string) => `CASE WHEN ${m}.counterCells IS NULL THEN ${m}.baseCount END`;
const SIZE =
  `(CASE WHEN x INSTANCEOF java.util.Hashtable THEN (CASE WHEN x.map IS NULL THEN x.count ELSE ${CHM_COUNT('x.map')} END)` +
  ' WHEN x.size IS NOT NULL THEN x.size' +
  ' WHEN x.map.size IS NOT NULL THEN x.map.size' +
  ' WHEN classof(x).@displayName = "java.util.TreeSet" OR classof(x).@displayName = "java.util.Collections$SetFromMap" THEN x.m.size' +
  ` WHEN x.baseCount IS NOT NULL THEN ${CHM_COUNT('x')}` +
  ' ELSE x.elementCount END)';
const SIZE_NOTE =
  'exact sizes only: size fields, HashSet and TreeSet via their map, Hashtable count, Vector elementCount, ' +
  'ConcurrentHashMap baseCount without counter cells; not ArrayDeque, concurrent queues, copy-on-write or views';

/**
 * `c` (a java.lang.Class row) is a class object: its display name is the class it describes,
 * and java.lang.Class's own class object is its own class. Leaves out HotSpot's mirrors of the
 * primitive types (int.class, …), instances of java.lang.Class that have no class record.
 */
const CLASS_OBJECT = (c: string) => `(${c}.@displayName != "java.lang.Class" OR classof(${c}) = ${c})`;

export const NAMED_QUERIES: readonly NamedQuery[] = [
  {
    name: 'top-classes-by-count', group: 'Overview', fullPath: false,
    description: 'instances per class, top 30',
    oql: `SELECT classof(x) AS class, COUNT(*) AS count ${ALL} GROUP BY classof(x) ORDER BY count DESC LIMIT 30`,
  },
  {
    name: 'top-classes-by-size', group: 'Overview', fullPath: false,
    description: 'shallow bytes per class, top 30',
    oql: `SELECT classof(x) AS class, COUNT(*) AS count, SUM(x.@usedHeapSize) AS bytes ${ALL} GROUP BY classof(x) ORDER BY bytes DESC LIMIT 30`,
  },
  {
    name: 'largest-objects', group: 'Overview', fullPath: false,
    description: 'the 20 largest objects by shallow size',
    oql: `SELECT x AS object, classof(x) AS class, x.@usedHeapSize AS bytes ${ALL} ORDER BY bytes DESC LIMIT 20`,
  },
  {
    name: 'object-count-total', group: 'Overview', fullPath: false,
    description: 'number of objects and their shallow bytes',
    oql: `SELECT COUNT(*) AS total_objects, SUM(x.@usedHeapSize) AS total_bytes ${ALL}`,
  },
  {
    name: 'heap-summary', group: 'Overview', fullPath: false,
    description: 'count, total, average and largest size per class, top 50 by total',
    oql: `SELECT classof(x) AS class, COUNT(*) AS count, SUM(x.@usedHeapSize) AS total_bytes, AVG(x.@usedHeapSize) AS avg_bytes, MAX(x.@usedHeapSize) AS max_bytes ${ALL} GROUP BY classof(x) ORDER BY total_bytes DESC LIMIT 50`,
  },
  {
    name: 'duplicate-strings', group: 'Strings', fullPath: false,
    description: 'string texts held by more than one String, most copies first (top 30; Strings with no text, whose value is null or not in the dump, left out)',
    oql: 'SELECT toString(s) AS value, COUNT(*) AS count FROM java.lang.String s WHERE toString(s) IS NOT NULL GROUP BY toString(s) HAVING COUNT(*) > 1 ORDER BY count DESC LIMIT 30',
  },
  {
    name: 'largest-strings', group: 'Strings', fullPath: false,
    description: 'the 20 strings with the largest backing arrays, with their text',
    oql: 'SELECT s AS string, s.value.@length AS length, s.value.@usedHeapSize AS array_bytes, toString(s) AS text FROM java.lang.String s ORDER BY array_bytes DESC LIMIT 20',
  },
  {
    name: 'string-count', group: 'Strings', fullPath: false,
    description: 'number of strings, bytes of the String objects, and of their backing arrays summed per String (an array two Strings share counts twice)',
    oql: 'SELECT COUNT(*) AS count, SUM(s.@usedHeapSize) AS string_bytes, SUM(s.value.@usedHeapSize) AS array_bytes FROM java.lang.String s',
  },
  {
    name: 'all-threads', group: 'Threads', fullPath: false,
    description: 'every thread object (any Thread subclass) with its name',
    oql: 'SELECT t AS thread, classof(t) AS class, toString(t.name) AS name FROM INSTANCEOF java.lang.Thread t',
  },
  {
    name: 'thread-count', group: 'Threads', fullPath: false,
    description: 'number of thread objects',
    oql: 'SELECT COUNT(*) AS count FROM INSTANCEOF java.lang.Thread t',
  },
  {
    name: 'large-arrays', group: 'Collections', fullPath: false,
    description: 'arrays of any type above 64 KiB, largest 20',
    oql: 'SELECT a AS array, classof(a) AS class, a.@length AS length, a.@usedHeapSize AS bytes FROM ".*\\[\\]" a WHERE a.@usedHeapSize > 65536 ORDER BY bytes DESC LIMIT 20',
  },
  {
    name: 'large-collections', group: 'Collections', fullPath: false,
    description: `collections and maps above 1000 elements, largest 20 (${SIZE_NOTE})`,
    oql: `SELECT x AS collection, classof(x) AS class, ${SIZE} AS size ${COLLECTIONS} AND ${SIZE} > 1000 ORDER BY size DESC LIMIT 20`,
  },
  {
    name: 'empty-collections', group: 'Collections', fullPath: false,
    description: `empty collections and maps counted per class, allocated but never used (${SIZE_NOTE})`,
    oql: `SELECT classof(x) AS class, COUNT(*) AS empty ${COLLECTIONS} AND ${SIZE} = 0 GROUP BY classof(x) ORDER BY empty DESC LIMIT 50`,
  },
  {
    name: 'class-loaders', group: 'Class loaders', fullPath: false,
    description: 'class loader instances (any ClassLoader subclass)',
    oql: 'SELECT l AS loader, classof(l) AS class FROM INSTANCEOF java.lang.ClassLoader l',
  },
  {
    name: 'classes-per-loader', group: 'Class loaders', fullPath: false,
    description: 'classes per defining loader, from the class records (loader NULL: the bootstrap loader), most first',
    oql: `SELECT c.@classLoader AS loader, COUNT(*) AS classes FROM java.lang.Class c WHERE ${CLASS_OBJECT('c')} GROUP BY c.@classLoader ORDER BY classes DESC`,
  },
  {
    name: 'top-retained-by-class', group: 'Retained', fullPath: true,
    description: 'retained bytes summed per class, top 30 (nested objects of one class count once per holder)',
    oql: `SELECT classof(x) AS class, COUNT(*) AS count, SUM(x.@retainedHeapSize) AS retained_bytes ${ALL} GROUP BY classof(x) ORDER BY retained_bytes DESC LIMIT 30`,
  },
  {
    name: 'largest-retained-objects', group: 'Retained', fullPath: true,
    description: 'the 20 objects that retain the most',
    oql: `SELECT x AS object, classof(x) AS class, x.@usedHeapSize AS shallow, x.@retainedHeapSize AS retained_bytes ${ALL} ORDER BY retained_bytes DESC LIMIT 20`,
  },
  {
    name: 'leak-suspects', group: 'Retained', fullPath: true,
    description: 'the 10 biggest top-level dominators: independent objects that keep the most alive',
    oql: `SELECT x AS object, classof(x) AS class, x.@retainedHeapSize AS retained_bytes ${ALL} WHERE dominatorof(x) IS NULL ORDER BY retained_bytes DESC LIMIT 10`,
  },
  {
    name: 'retained-threads', group: 'Retained', fullPath: true,
    description: 'threads by retained size',
    oql: 'SELECT t AS thread, toString(t.name) AS name, t.@retainedHeapSize AS retained_bytes FROM INSTANCEOF java.lang.Thread t ORDER BY retained_bytes DESC',
  },
  {
    name: 'retained-summary', group: 'Retained', fullPath: true,
    description: 'shallow and retained bytes per class, top 30 by retained',
    oql: `SELECT classof(x) AS class, SUM(x.@usedHeapSize) AS shallow, SUM(x.@retainedHeapSize) AS retained_bytes ${ALL} GROUP BY classof(x) ORDER BY retained_bytes DESC LIMIT 30`,
  },
];

const byName = new Map(NAMED_QUERIES.map((q) => [q.name, q]));

export function findNamedQuery(name: string): NamedQuery | undefined {
  return byName.get(name);
}

/** Names close to `name` (shared prefix or substring), for "did you mean" after a typo. */
export function suggestNamedQueries(name: string): string[] {
  const lower = name.toLowerCase();
  return NAMED_QUERIES.map((q) => q.name).filter(
    (n) => n.includes(lower) || lower.includes(n) || (lower.length >= 3 && n.startsWith(lower.slice(0, 3))),
  ).slice(0, 5);
}
