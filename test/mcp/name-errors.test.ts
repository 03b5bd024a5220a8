/**
 * The MCP server says a name the dump lacks in the executor's words with every name JSON-quoted:
 * the error's `unknownName.quotedMessage`, worded by the executor (crates/exec, `UnknownName::
 * message`, whose tests pin each kind), never re-worded here nor read back out of the message.
 */
import { describe, expect, it } from 'vitest';

import { HeapqlError, type UnknownName } from '../../ts/errors.js';
import { failureResult } from '../../ts/mcp/result.js';
import { OqlNameError } from '../../ts/oql/errors.js';

describe('a name error as an MCP tool error', () => {
  const refused: UnknownName = {
    kind: 'class',
    name: 'a.B',
    suggestions: ['a.Bc', 'x"y'],
    quotedMessage: 'class "a.B" is not in this dump; did you mean "a.Bc", "x\\"y"?',
  };

  it('placed (the session found the name in the text): its code, the place, the quoted words, the caret', () => {
    const err = new OqlNameError('class a.B is not in this dump; did you mean a.Bc, x"y?', refused, { line: 1, column: 15 });
    expect(failureResult(err, 'SELECT x FROM a.B x')).toEqual({
      content: [{ type: 'text', text: `ERR_UNKNOWN_CLASS: query:1:15: ${refused.quotedMessage}\n  SELECT x FROM a.B x\n                ^^^` }],
      isError: true,
    });
  });

  it('not placed (the query text does not name it): its code and the quoted words', () => {
    const err = new HeapqlError('ERR_UNKNOWN_CLASS', 'class a.B is not in this dump; did you mean a.Bc, x"y?', { unknownName: refused });
    expect(failureResult(err, 'SELECT 1')).toEqual({ content: [{ type: 'text', text: `ERR_UNKNOWN_CLASS: ${refused.quotedMessage}` }], isError: true });
  });
});
