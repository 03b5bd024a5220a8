/**
 * Validators of the published JSON models (report, waste, diff, query results), compiled
 * ahead at build time where possible: compiling the report's schema with ajv took about
 * 0.13 s of every report's run. `npm run build` writes ajv's standalone code for each schema
 * document (`precompileValidators`, run by test/tools/build-validators.mjs) to
 * dist/validators/<name>.cjs (the single-file binary carries them as assets), named by a digest
 * of the document, so a file older than the schemas is never used; without a match the
 * document is compiled on first use as before.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';

import { packageFile } from './package-files.js';
import { asJsonReadsBack, containsBigInt, containsNonFinite } from './query/json.js';

/** An ajv validate function: true when the value matches; `errors` set otherwise. */
export type Validator = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The name of a document's validator (its file and its export in the generated code). */
export function validatorName(document: Record<string, unknown>): string {
  return 'v' + createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 40);
}

const require = createRequire(import.meta.url);

/** The validator of `document`: the build's when it was made from this very document, else compiled now. */
export function validatorFor(document: Record<string, unknown>): Validator {
  const name = validatorName(document);
  // Shipped in dist/validators (an asset of the single-file binary); not beside the sources
  // until a build made it, nor for a schema changed since.
  const file = packageFile(`dist/validators/${name}.cjs`);
  return bigIntTolerant((file && loadPrebuilt(file, name)) || (new Ajv({ allErrors: true }).compile(document) as Validator));
}

/**
 * A validator that also takes in-memory values holding bigints or NaN/±Infinity (a query
 * result's exact Java longs and doubles, `ts/query/json.ts`): ajv knows no bigint and takes no
 * NaN for a number, so a value that fails and holds one is checked again as its JSON text reads
 * back (a JSON integer; the string "NaN"). A value that passes costs nothing more.
 */
function bigIntTolerant(validate: Validator): Validator {
  const wrapped: Validator = (value: unknown): boolean => {
    let ok = validate(value);
    if (!ok && (containsBigInt(value) || containsNonFinite(value))) ok = validate(asJsonReadsBack(value));
    wrapped.errors = ok ? null : validate.errors;
    return ok;
  };
  return wrapped;
}

/**
 * The validator exported as `name` by the prebuilt module `file`; null when the file does not
 * load or lacks it (a damaged installation): the file only saves time, so the schema is then
 * compiled instead of the command failing.
 */
export function loadPrebuilt(file: string, name: string): Validator | null {
  try {
    const validate = (require(file) as Record<string, unknown>)[name];
    return typeof validate === 'function' ? (validate as Validator) : null;
  } catch {
    return null;
  }
}

/**
 * CommonJS source of one ajv standalone validator per document (the same options as the
 * fallback: all errors), keyed and exported by `validatorName`: loaded with `require` when
 * first needed. One module each: the documents share `$id`s of common parts, which one ajv
 * instance would refuse twice.
 */
export function precompileValidators(documents: Record<string, unknown>[]): Record<string, string> {
  const standaloneCode = (require('ajv/dist/standalone') as { default: (ajv: unknown, refs: Record<string, string>) => string }).default;
  const modules: Record<string, string> = {};
  for (const document of documents) {
    const name = validatorName(document);
    const ajv = new Ajv({ allErrors: true, code: { source: true } });
    ajv.addSchema(document, name);
    modules[name] = standaloneCode(ajv, { [name]: name });
  }
  return modules;
}
