/**
 * MCP progress notifications of a tool call. One call may report two things in turn: the dump's
 * index it waits for (a tool called right after the server started, before the index is built)
 * and then its own work (the full analysis; a query's scans). MCP wants one number that only
 * grows over the whole call, so both go through the call's `CallProgress`, which sends a report
 * only above the last number sent. Reports are sent only when the client asked for them (the
 * request carries a progressToken).
 *
 * The full analysis reports per phase (`graph`, `dominators`, `retained`), each counting from
 * zero: its phases are laid end to end above what the call sent before (progress = that base +
 * phases finished + fraction of the current one, of a total of the base + 3), a report sent when
 * the number grew by a hundredth of a phase.
 */
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

import type { ProgressEvent } from '../session/index.js';

type Send = (n: ServerNotification) => Promise<void>;

/** What a tool callback's `extra` gives to report progress (the SDK's RequestHandlerExtra). */
export interface ProgressExtra {
  _meta?: { progressToken?: string | number };
  sendNotification: Send;
}

/** The progress notifications of one tool call: numbers that only grow, sent in order. */
export class CallProgress {
  /** The last progress number sent (0 before the first). */
  last = 0;
  private sent = 0;
  private flushed = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    readonly token: string | number | undefined,
    private readonly send: Send,
  ) {}

  /** The client asked for progress (sent a progressToken). */
  get wanted(): boolean {
    return this.token !== undefined;
  }

  /** Sends one report, unless unwanted or not above the last number sent. */
  notify(progress: number, message: string, total?: number): void {
    if (this.token === undefined || progress <= this.last) return;
    this.last = progress;
    this.sent++;
    const params = { progressToken: this.token, progress, ...(total !== undefined ? { total } : {}), message };
    // Sent in order; a client that went away must not fail the tool.
    this.pending = this.pending.then(() => this.send({ method: 'notifications/progress', params }).catch(() => {}));
  }

  /** Waits until every report is written, before the tool's response (at once when none is new). */
  async flush(): Promise<void> {
    if (this.sent === this.flushed) return;
    this.flushed = this.sent;
    await this.pending;
    // The SDK's client handles notifications a microtask later than responses: a response read
    // in the same chunk as the last notification would retire the token first and drop it.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const calls = new WeakMap<object, CallProgress>();

/** The call's progress (one per tool call: its `extra`, as the SDK hands it to the callback). */
export function callProgress(extra: ProgressExtra): CallProgress {
  let call = calls.get(extra);
  if (!call) {
    call = new CallProgress(extra._meta?.progressToken, (n) => extra.sendNotification(n));
    calls.set(extra, call);
  }
  return call;
}

/**
 * Reports of a dump's index while a call waits for it (`McpContext.followIndex`, and
 * `McpContext.baseline` for compare_with_baseline's baseline): the number of reports so far (the
 * index's phases — `records`, `index`, `verifying cache`, `writing cache` — have their own
 * totals), no `total`, the message saying which dump (`what`: `the dump`, `the baseline dump`) and
 * the phase (`indexing the dump: records 5242771 of 9812392`), and its end (`indexing the dump:
 * done`). A report is sent when the phase changes or its fraction grew by a hundredth.
 */
export function indexProgress(call: CallProgress, what = 'the dump'): (event: ProgressEvent) => void {
  let phase = '';
  let lastFraction = -1;
  return (e) => {
    const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
    if (e.phase === phase && fraction < lastFraction + 0.01) return;
    phase = e.phase;
    lastFraction = fraction;
    // The index's last report (`done`, 1 of 1) is no phase: said as the end it is.
    const how = e.phase === 'done' ? 'done' : `${e.phase} ${e.done}${e.total > 0 ? ` of ${e.total}` : ''}`;
    call.notify(call.last + 1, `indexing ${what}: ${how}`);
  };
}

/** The analysis's phases in the order it runs them (crates/graph/src/analysis.rs). */
const PHASES = ['graph', 'dominators', 'retained'];

export interface ProgressSink {
  onProgress: (event: ProgressEvent) => void;
  /**
   * Sends the final report (progress = total) if the last fell short (the session drops reports
   * that trail the end) and waits until every notification is written, before the tool's response.
   */
  finish: () => Promise<void>;
}

export function analysisProgress(call: CallProgress): ProgressSink {
  // Above what the call sent before (the index it waited for).
  const base = call.last;
  const total = base + PHASES.length;
  return {
    onProgress(e) {
      const phase = PHASES.indexOf(e.phase);
      if (phase < 0) return;
      const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
      // In hundredths, divided once: `base + k / 100` would send 30.009999999999998 for 30.01.
      const progress = (Math.round(base * 100) + Math.floor((phase + fraction) * 100)) / 100;
      call.notify(progress, `${e.phase}: ${e.done} of ${e.total}`, total);
    },
    async finish() {
      if (call.last < total) call.notify(total, 'analysis finished', total);
      await call.flush();
    },
  };
}

/**
 * MCP progress notifications for a tool that scans (run_oql, run_named_query): while the query
 * scans, and while its counting run (totalRows) scans. Without
 * them a long query sent nothing, so a client that keeps a request alive while progress comes
 * (the SDK's `resetTimeoutOnProgress`) still gave up at its request timeout (60 s by default),
 * as a query over the 4 GB benchmark dump did. The stages have different units and the query's
 * own total grows as its scans start, so `progress` is the number of reports sent (it only
 * grows), with no `total`; the message says what runs (`scanning: 1200000 of 7400000 objects`).
 * A report is sent when the stage changes or its fraction grew by a hundredth, and only when
 * the client sent a progressToken.
 */
export function scanProgress(call: CallProgress): { stage: (name: string) => (event: ProgressEvent) => void; finish: () => Promise<void> } {
  let current = '';
  let lastFraction = -1;
  return {
    stage(name) {
      return (e) => {
        if (!call.wanted) return;
        const key = `${name}\u0000${e.phase}`;
        const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
        if (key === current && fraction < lastFraction + 0.01) return;
        current = key;
        lastFraction = fraction;
        // A reachable-only query on a dump not analyzed first finds the reachable objects.
        const step = e.phase === 'reachability' ? `${name}, finding the reachable objects` : name;
        call.notify(call.last + 1, e.total > 0 ? `${step}: ${e.done} of ${e.total}` : `${step}: ${e.done}`);
      };
    },
    finish: () => call.flush(),
  };
}

/** Which dump of compare_with_baseline a query runs on. */
export type ComparedDump = 'baseline' | 'current';

/**
 * compare_with_baseline's progress once both dumps are open: each query it runs on a dump (the
 * histogram of the reachable objects with --reachable-only, the reachable `int[]`s) reports as
 * scanProgress does, the message naming the dump and the query (`scanning the baseline dump
 * (reachable objects by class): 1200000 of 4000000`; `this dump` for the current one). Each
 * query's start is reported too (`…: started`); a reachable-only query first finds the dump's
 * reachable objects (`…, finding the reachable objects: 300000 of 4000000`).
 */
export function compareProgress(call: CallProgress): (dump: ComparedDump, what: string) => (event: ProgressEvent) => void {
  const scans = scanProgress(call);
  return (dump, what) => {
    const name = `scanning ${dump === 'baseline' ? 'the baseline dump' : 'this dump'} (${what})`;
    call.notify(call.last + 1, `${name}: started`);
    return scans.stage(name);
  };
}
