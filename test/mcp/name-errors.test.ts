/**
 * The MCP server says a name the dump lacks from the executor's data (`unknownName`), every name
 * JSON-quoted, in the executor's words; the message is never read back. Each kind of refusal.
 */
import { describe, expect, it } from 'vitest';

import { HeapqlError, type UnknownName } from '../../ts/errors.js';
import { failureResult, quotedRefusal } from '../../ts/mcp/result.js';

describe('quotedRefusal', () => {
  const cases: [UnknownName, string][] = [
    [{ kind: 'class', name: 'a.B', suggestions: ['a.Bc', 'x"y'] }, 'class "a.B" is not in this dump; did you mean "a.Bc", "x\\"y"?'],
    [
      { kind: 'class', name: 'B', suggestions: [], note: 'class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner' },
      'class "B" is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)',
    ],
    [{ kind: 'field', name: 'n', className: 'C', classCount: 1, fields: ['a', 'b\nc'] }, '"C" has no field "n" (its fields: "a", "b\\nc")'],
    [{ kind: 'field', name: 'n', className: 'C', classCount: 1, fields: [] }, '"C" has no field "n" (its fields: none)'],
    [
      { kind: 'field', name: 'n', className: 'C', classCount: 3, fields: ['a'] },
      'none of the 3 classes of the source has a field "n" (the first, "C", has: "a")',
    ],
    [
      { kind: 'field', name: 'size', className: 'int[]', classCount: 1, note: 'arrays have @length and [i]' },
      '"int[]" has no field "size" (its fields: none; arrays have @length and [i])',
    ],
    [
      { kind: 'field', name: 'count', className: 'java.lang.String', classCount: 1, fields: ['value'], note: 'strings of this JVM keep their text in value' },
      '"java.lang.String" has no field "count" (its fields: "value"); strings of this JVM keep their text in value',
    ],
    [
      { kind: 'static', name: 'X', className: 'C', classCount: 1, fields: ['Y'] },
      `"C" has no static field "X" (its statics, with its superclasses': "Y")`,
    ],
    [
      { kind: 'static', name: 'X', className: 'C', classCount: 2, fields: [] },
      `none of the 2 classes of the source has a static field "X" (the first, "C", has, with its superclasses': none)`,
    ],
    [
      { kind: 'static', name: 'X', suggestions: ['XX'], note: "the fields of a class object are its class's statics" },
      `no class of this dump has a static field "X" (the fields of a class object are its class's statics); did you mean "XX"?`,
    ],
  ];
  it.each(cases)('%j', (refused, said) => {
    expect(quotedRefusal(refused)).toBe(said);
  });

  it('a name error the query text does not name (no place): its code and the quoted words', () => {
    const err = new HeapqlError('ERR_UNKNOWN_CLASS', 'class a.B is not in this dump; did you mean a.Bc?', { unknownName: cases[0]![0] });
    expect(failureResult(err, 'SELECT 1')).toEqual({ content: [{ type: 'text', text: `ERR_UNKNOWN_CLASS: ${cases[0]![1]}` }], isError: true });
  });
});
