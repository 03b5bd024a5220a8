/**
 * The output path of `heapql waste` and `heapql diff`, checked and written the way the report's
 * is (ts/report/output.ts: before the analysis, the same checks and temporary file as the write)
 * but named for what is written: "cannot write the waste report to …", not "the report".
 */
import { checkOutputWritable, writeOutput, type OutputChoice, type OutputName } from '../report/index.js';

export type { OutputName };

export const WASTE_OUTPUT: OutputName = { the: 'the waste report' };
export const DIFF_OUTPUT: OutputName = { the: 'the comparison' };

/** Fails now, before a long analysis, when the output could not be written to its path. */
export function checkOutputPath(choice: OutputChoice, name: OutputName): void {
  checkOutputWritable(choice, name);
}

/** Writes the rendered output to its path (whole or not at all), or prints it when there is none. */
export function writeNamedOutput(text: string, choice: OutputChoice, name: OutputName): void {
  writeOutput(text, choice, process.stdout, name);
}
