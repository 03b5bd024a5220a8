/**
 * The output path of `heapql waste` and `heapql diff`, checked and written the way the report's
 * is (ts/report/output.ts: before the analysis, the same checks and temporary file as the write)
 * but named for what is written: "cannot write the waste report to …", not "the report".
 */
import { HeapqlError } from '../errors.js';
import { checkOutputWritable, writeOutput, type OutputChoice } from '../report/index.js';

/** What a command writes, as its errors name it. */
export interface OutputName {
  /** `the waste report`, `the comparison`. */
  the: string;
}

export const WASTE_OUTPUT: OutputName = { the: 'the waste report' };
export const DIFF_OUTPUT: OutputName = { the: 'the comparison' };

const REPORT_PREFIX = 'cannot write the report to ';

/** The report layer's write error in `name`'s words; any other error as it is. */
function named(err: unknown, choice: OutputChoice, name: OutputName): unknown {
  if (!(err instanceof HeapqlError) || choice.path === null) return err;
  const prefix = `${REPORT_PREFIX}${choice.path}: `;
  if (!err.message.startsWith(prefix)) return err;
  const reason = err.message
    .slice(prefix.length)
    .replace('a report is written whole', `${name.the} is written whole`)
    .replace('to print the report on standard output', `to print ${name.the} on standard output`);
  return new HeapqlError(err.code, `cannot write ${name.the} to ${choice.path}: ${reason}`, { exitCode: err.exitCode, cause: err.cause ?? err });
}

/** Fails now, before a long analysis, when the output could not be written to its path. */
export function checkOutputPath(choice: OutputChoice, name: OutputName): void {
  try {
    checkOutputWritable(choice);
  } catch (err) {
    throw named(err, choice, name);
  }
}

/** Writes the rendered output to its path (whole or not at all), or prints it when there is none. */
export function writeNamedOutput(text: string, choice: OutputChoice, name: OutputName): void {
  try {
    writeOutput(text, choice);
  } catch (err) {
    throw named(err, choice, name);
  }
}
