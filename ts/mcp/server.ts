/**
 * The heapql MCP server: one dump (and optionally a baseline) behind Model Context Protocol
 * tools, on the session core. `createMcpServer` registers the tools on an SDK server;
 * `serveStdio` runs it over stdin/stdout until the client closes stdin.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import { VERSION } from '../version.js';
import { callParamsProblem } from './args.js';
import { McpContext, type McpLog, type McpOptions } from './context.js';
import { DATA_SENTENCE, RESULT_MAX, TEXT_MAX } from './limits.js';
import { heapqlTools } from './registrar.js';
import { LineTransport } from './stdio.js';
import { registerAnalysisTools } from './tools/analysis.js';
import { registerCompareTools } from './tools/compare.js';
import { registerDumpTools } from './tools/dump.js';
import { registerObjectTools } from './tools/object.js';
import { registerQueryTools } from './tools/query.js';

const stderrLog: McpLog = {
  notice: (line) => process.stderr.write(`heapql mcp: ${line}\n`),
  warn: (line) => process.stderr.write(`heapql mcp: warning: ${line}\n`),
  error: (line) => process.stderr.write(`heapql mcp: error: ${line}\n`),
};

const INSTRUCTIONS =
  'heapql investigates one Java/Android heap dump (HPROF). Start with describe_dump. OQL (run_oql, run_named_query), ' +
  'classes (list_classes, describe_class) and objects (inspect_object) work at once; analyze_heap adds retained sizes, ' +
  'dominators, referrers, paths to GC roots and the report (get_report_section: leak_suspects is the usual next step). ' +
  'Objects are referred to by objectId (stable for this dump). compare_with_baseline shows what grew since a baseline dump. ' +
  'A dump read with warnings (a file cut short) says them in the first answer, after its result. ' +
  `Text longer than ${TEXT_MAX} characters is cut ("…") and listed in a result's truncatedStrings with its full length; ` +
  `a result longer than ${RESULT_MAX} characters keeps only the first rows of its lists, listed in truncatedLists with how to get the rest. ` +
  DATA_SENTENCE;

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new HeapqlMcpServer({ name: 'heapql', version: VERSION }, { instructions: INSTRUCTIONS });
  // heapql's tools only: one a library user registers on the server answers as it returns.
  const tools = heapqlTools(server, ctx);
  registerDumpTools(tools, ctx);
  registerQueryTools(tools, ctx);
  registerObjectTools(tools, ctx);
  registerAnalysisTools(tools, ctx);
  registerCompareTools(tools, ctx);
  return server;
}

/**
 * heapql's server: the SDK's McpServer connected through `CallParamsCheck` on whichever transport
 * it is given (stdio, the SDK's in-memory pair of a library, …).
 */
class HeapqlMcpServer extends McpServer {
  override connect(transport: Transport): Promise<void> {
    return super.connect(new CallParamsCheck(transport));
  }
}

/**
 * A transport in front of another that answers a `tools/call` whose params the SDK would refuse
 * (arguments that are no object, no tool name) itself, before the SDK's own check: -32602 Invalid
 * params with one sentence (args.ts callParamsProblem), where the SDK answers -32603 with zod's
 * multi-line dump. The sentence also goes to the transport's onerror. Every other message, and
 * everything the server sends, passes on untouched.
 */
class CallParamsCheck implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    // Callbacks set on the inner transport before it was connected still hear from it first.
    const { onclose, onerror, onmessage } = this.inner;
    this.inner.onclose = () => {
      onclose?.();
      this.onclose?.();
    };
    this.inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    this.inner.onmessage = (message, extra) => {
      if (isJSONRPCRequest(message) && message.method === 'tools/call') {
        const problem = callParamsProblem(message.params);
        if (problem !== null) {
          this.inner.onerror?.(new Error(problem));
          void this.inner.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } });
          return;
        }
      }
      onmessage?.(message, extra);
      this.onmessage?.(message, extra);
    };
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Serves over stdio until stdin ends (the client wrote all it had to say) or SIGTERM/SIGINT.
 * Stdout carries the protocol only: anything else that would print there goes to stderr.
 *
 * The end of stdin stops the reading, not the work: the requests already received are answered
 * (however long they take, their progress notifications sent on the way) and flushed to stdout,
 * then the session closes (a `wait: false` analysis still running is cancelled). So a script that
 * writes its requests and closes its end of the pipe gets every answer. A signal stops at once.
 * Stdout closed by the client (EPIPE) stops at once too, quietly: nothing more can be answered.
 */
export async function serveStdio(options: Omit<McpOptions, 'log'> & { log?: McpLog }): Promise<void> {
  const log = options.log ?? stderrLog;
  console.log = console.error;
  console.info = console.error;
  const ctx = new McpContext({ ...options, log });
  const server = createMcpServer(ctx);
  // Not the SDK's StdioServerTransport: a line that is no message gets a JSON-RPC error, and the
  // end of stdin is told apart from a closed transport (stdio.ts).
  const transport = new LineTransport();
  transport.onerror = (err) => log.error(`protocol error: ${err.message}`);
  let stopNow: () => void = () => {};
  const stoppedNow = new Promise<void>((resolve) => (stopNow = resolve));
  const inputEnded = new Promise<void>((resolve) => (transport.oninputend = resolve));
  process.once('SIGTERM', stopNow);
  process.once('SIGINT', stopNow);
  // EPIPE: the client stopped reading. (The CLI's own handler ends the process first.)
  const outputFailed = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') log.error(`cannot write to standard output: ${err.message}`);
    stopNow();
  };
  process.stdout.on('error', outputFailed);
  try {
    await server.connect(transport);
    log.notice(`serving ${options.path} over stdio`);
    const ended = await Promise.race([inputEnded.then(() => true), stoppedNow.then(() => false)]);
    if (ended && transport.pending > 0) {
      const n = transport.pending;
      log.notice(`stdin ended: answering the ${n} request${n === 1 ? '' : 's'} received, then stopping`);
      await Promise.race([transport.answered(), stoppedNow]);
    }
  } finally {
    process.off('SIGTERM', stopNow);
    process.off('SIGINT', stopNow);
    await server.close();
    await ctx.close();
    process.stdout.off('error', outputFailed);
  }
}
