import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';

import { PUBLISHED_SCHEMAS } from '../ts/published-schemas.js';
import { reportJsonSchema } from '../ts/report/json.js';
import { loadPrebuilt, precompileValidators, validatorName, type Validator } from '../ts/validators.js';
import { sampleModel } from './report-sample.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** A sample report broken in four places (the paths ajv must name). */
function brokenModel(): any {
  const model = sampleModel() as any;
  model.overview.heap.objects = 1.5;
  model.leakSuspects.suspects[0].retainedPercent = 140;
  model.threads.threads[0].stack = [];
  model.queries[3].rows[0][1] = { objectId: 3, className: 'java.lang.Thread', label: 'main' };
  return model;
}

/** What a validator says about a value: the verdict and every error's path and keyword. */
function verdict(validate: Validator, value: unknown) {
  const ok = validate(value);
  return { ok, errors: (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort() };
}

describe('validators compiled ahead', () => {
  test('the standalone code judges models exactly as ajv compiling the schema does', () => {
    const document = reportJsonSchema();
    const documents = Object.values(PUBLISHED_SCHEMAS).map((make) => make());
    const modules = precompileValidators(documents);
    expect(Object.keys(modules)).toHaveLength(4);
    const name = validatorName(document);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'heapql-validators-')), `${name}.cjs`);
    writeFileSync(file, modules[name]!);
    const ahead = (require(file) as Record<string, Validator>)[name]!;
    const compiled = new Ajv({ allErrors: true }).compile(document) as Validator;
    for (const model of [sampleModel(), brokenModel()]) {
      expect(verdict(ahead, model)).toEqual(verdict(compiled, model));
    }
    expect(verdict(ahead, brokenModel()).errors.length).toBeGreaterThanOrEqual(4);
  });

  test('a damaged prebuilt file is passed over, not loaded into a crash', () => {
    const document = reportJsonSchema();
    const name = validatorName(document);
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-validators-'));
    const write = (file: string, text: string) => (writeFileSync(path.join(dir, file), text), path.join(dir, file));
    expect(loadPrebuilt(write('good.cjs', precompileValidators([document])[name]!), name)).toBeTypeOf('function');
    expect(loadPrebuilt(write('truncated.cjs', 'exports.v = function ('), name)).toBeNull();
    expect(loadPrebuilt(write('other.cjs', 'exports.other = () => true;'), name)).toBeNull();
    expect(loadPrebuilt(path.join(dir, 'missing.cjs'), name)).toBeNull();
  });

  test('a changed schema gets another name, so a validator built from the old one is not used', () => {
    const document = reportJsonSchema();
    const changed = { ...document, description: 'changed' };
    expect(validatorName(changed)).not.toBe(validatorName(document));
    expect(validatorName({ ...document })).toBe(validatorName(document));
  });

  test('the build wrote the validator of every published schema, and the CLI bundle', () => {
    for (const make of Object.values(PUBLISHED_SCHEMAS)) {
      const document = make();
      const file = path.join(root, 'dist/validators', `${validatorName(document)}.cjs`);
      expect(existsSync(file), `${file}: run npm run build`).toBe(true);
    }
    expect(readFileSync(path.join(root, 'bin/heapql.js'), 'utf8')).toContain('../dist/heapql-cli.js');
    expect(existsSync(path.join(root, 'dist/heapql-cli.js'))).toBe(true);
  });
});
