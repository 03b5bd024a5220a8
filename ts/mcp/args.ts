/**
 * The tools' input schemas. Each argument's schema carries its own error message, naming the
 * argument, what it takes and the value given, so that a wrong argument comes back (through the
 * SDK's validation, as a tool error) as one sentence an assistant can act on — not zod's
 * generic `Too small: expected number to be >=1`, nor two messages for one value. A tool's
 * arguments are a strict object: an argument it does not take (a misspelt or another tool's
 * `limit`) is an error listing the ones it takes, rather than silently ignored.
 */
import { CallToolRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A value as an error message quotes it (long strings cut). */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 60 ? text : `${text.slice(0, 57)}…`;
}

type Issue = { input?: unknown };
const says = (sentence: string) => (issue: Issue) =>
  issue.input === undefined ? `${sentence}; it is missing` : `${sentence}, not ${shown(issue.input)}`;

/** A whole number from `min` to `max`, `def` when left out. */
export function wholeNumber(name: string, min: number, max: number, def: number) {
  const error = says(`${name} must be a whole number from ${min} to ${max} (default ${def})`);
  // `abort`: a value that is no whole number is not also checked against the bounds (one message).
  return z.number({ error }).int({ error, abort: true }).min(min, { error }).max(max, { error }).default(def);
}

/**
 * A string of at least one character, and at most `max` when given. Class names and patterns
 * have no cap: a dump may hold a class named with a million characters (HPROF allows it).
 */
export function text(name: string, what: string, max?: number) {
  const error = says(`${name} must be ${what} (a string of ${max === undefined ? 'at least one character' : `1 to ${max} characters`})`);
  const schema = z.string({ error }).min(1, { error });
  return max === undefined ? schema : schema.max(max, { error });
}

/** A string, the empty one included; may be left out. */
export function optionalText(name: string, what: string) {
  return z.string({ error: says(`${name} must be ${what} (a string)`) }).optional();
}

/** true or false. */
export function flag(name: string) {
  return z.boolean({ error: says(`${name} must be true or false`) });
}

/** One of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.enum(values, { error: says(`${name} must be one of ${values.map((v) => `"${v}"`).join(', ')}`) });
}

/** A list of some of `values`. */
export function someOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const sentence = `${name} must be a list of some of ${values.map((v) => `"${v}"`).join(', ')}`;
  return z.array(z.enum(values, { error: says(sentence) }), { error: says(sentence) });
}

/** An object id (a whole number from 0) or a string naming an object. */
export function objectSpec(name: string) {
  const error = says(
    `${name} must be an objectId (a whole number from 0, as results give it) or a string: "#1234", an address "0x7f3a…", or "java.util.HashMap#1234"`,
  );
  return z.union([z.number({ error }).int({ error, abort: true }).min(0, { error }), z.string({ error }).min(1, { error })], { error });
}

/** A tool's arguments: `shape`, and no other. */
export function toolArgs<S extends z.ZodRawShape>(tool: string, shape: S) {
  const names = Object.keys(shape);
  const takes = names.length === 0 ? `${tool} takes no arguments` : `${tool} takes ${names.join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys.map((k) => `'${k}'`).join(', ');
        return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${keys}: ${takes}`;
      }
      if (issue.code === 'invalid_type') return `the arguments must be an object (${takes}), not ${shown(issue.input)}`;
      return undefined;
    },
  });
}

/**
 * What is wrong with a `tools/call` request's params, in one sentence, or null when the SDK takes
 * them. The SDK checks them with zod before any tool runs and answers a mismatch with -32603
 * (internal error) and zod's multi-line dump; the server answers this sentence with -32602
 * (invalid params) instead (server.ts).
 */
export function callParamsProblem(params: unknown): string | null {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    const given = params === undefined ? 'and they are missing' : `not ${shown(params)}`;
    return `Invalid params: a tools/call request's params must be an object with the tool's "name" and its "arguments", ${given}`;
  }
  const p = params as Record<string, unknown>;
  if (typeof p.name !== 'string') {
    return `Invalid params: a tools/call request's params must have "name", the tool's name (a string, as tools/list gives it)${
      p.name === undefined ? ', and it is missing' : `, not ${shown(p.name)}`
    }`;
  }
  if (p.arguments !== undefined && (p.arguments === null || typeof p.arguments !== 'object' || Array.isArray(p.arguments))) {
    return `Invalid params: the "arguments" of a tools/call request must be an object of the tool's arguments by name (e.g. {"query": "SELECT …"} for run_oql), not ${shown(p.arguments)}`;
  }
  const parsed = CallToolRequestParamsSchema.safeParse(params);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return `Invalid params: the tools/call request's params do not match the protocol at ${issue.path.map(String).join('.') || 'params'}: ${issue.message}`;
}
