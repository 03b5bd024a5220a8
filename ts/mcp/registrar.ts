/**
 * How heapql's own tools are registered: through a registrar that adds the dump's warnings to
 * the first answer, not through the server's registerTool itself, so that a tool a library user
 * registers on the same server (createMcpServer returns it) answers just as it returns.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import type { McpContext } from './context.js';
import { callProgress, type ProgressExtra } from './progress.js';

/** What the tool modules register on: McpServer's registerTool, with heapql's answer rules. */
export type ToolRegistrar = Pick<McpServer, 'registerTool'>;

type ToolCallback = (...args: unknown[]) => CallToolResult | Promise<CallToolResult>;

/** The SDK's `extra` among a tool callback's arguments (the last; the first are the tool's arguments). */
function extraOf(args: unknown[]): ProgressExtra | undefined {
  const last = args[args.length - 1];
  return last instanceof Object && 'sendNotification' in last && typeof last.sendNotification === 'function' ? (last as ProgressExtra) : undefined;
}

/**
 * Registers on `server` with every answer passed through this: the first answer after the dump
 * opened also carries the dump's warnings (McpContext.takeDumpWarnings), as a second text block
 * after the result, so content[0] stays the result (JSON or the error). describe_dump lists them
 * itself. A call made while the dump's index is built reports the index's progress while it
 * waits (when the request carries a progressToken; McpContext.followIndex), every notification
 * sent before the answer.
 */
export function heapqlTools(server: McpServer, ctx: McpContext): ToolRegistrar {
  const register = server.registerTool.bind(server) as unknown as (name: string, config: unknown, cb: ToolCallback) => unknown;
  const registerTool = (name: string, config: unknown, cb: ToolCallback) =>
    register(name, config, async (...args: unknown[]) => {
      const extra = extraOf(args);
      const progress = extra ? callProgress(extra) : undefined;
      const unfollow = progress ? ctx.followIndex(progress) : () => {};
      let result: CallToolResult;
      try {
        result = await cb(...args);
      } finally {
        unfollow();
        await progress?.flush();
      }
      // A cancelled call's answer is never sent: the warnings wait for the next one.
      if (args.some((a) => a instanceof Object && 'signal' in a && (a.signal as AbortSignal).aborted)) return result;
      if (name === 'describe_dump') {
        if (!result.isError) ctx.dumpWarningsSaid();
        return result;
      }
      const warnings = ctx.takeDumpWarnings();
      return warnings === null ? result : { ...result, content: [...result.content, { type: 'text', text: warnings }] };
    });
  return { registerTool: registerTool as unknown as McpServer['registerTool'] };
}
