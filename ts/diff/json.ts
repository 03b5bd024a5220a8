/**
 * The JSON diff and its JSON Schema (`heapql schema diff`), generated from the TypeBox
 * definition the model is validated with before it is written.
 */
import { publishedModel } from '../report/json.js';
import { DiffModelSchema, type DiffModel } from './model.js';

const diff = publishedModel<DiffModel>(DiffModelSchema, 'diff');

export const diffJsonSchema = diff.document;
export const validateDiffModel = diff.validate;
/** Pretty JSON of a model that passed validation; a mismatch is a bug in heapql (ERR_INTERNAL). */
export const renderDiffJson = diff.render;
