/**
 * MCP progress notifications for the full analysis. The analysis reports per phase (`graph`,
 * `dominators`, `retained`), each counting from zero; MCP wants one number that only grows, so
 * the phases are laid end to end: progress = phases finished + fraction of the current one, of
 * a total of three. A report is sent when the number grew by a hundredth of a phase, and only
 * when the client asked for them (it sent a progressToken).
 */
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

import type { ProgressEvent } from '../session/index.js';

/** The analysis's phases in the order it runs them (crates/graph/src/analysis.rs). */
const PHASES = ['graph', 'dominators', 'retained'];

export interface ProgressSink {
  onProgress: (event: ProgressEvent) => void;
  /**
   * Sends the final 3/3 if the last report fell short (the session drops reports that trail the
   * end) and waits until every notification is written, before the tool's response.
   */
  finish: () => Promise<void>;
}

export function analysisProgress(
  token: string | number | undefined,
  send: (n: ServerNotification) => Promise<void>,
): ProgressSink {
  const total = PHASES.length;
  let last = 0;
  let pending: Promise<void> = Promise.resolve();
  const emit = (progress: number, message: string) => {
    if (token === undefined) return;
    last = progress;
    // Sent in order; a client that went away must not fail the tool.
    pending = pending.then(() =>
      send({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => {}),
    );
  };
  return {
    onProgress(e) {
      const phase = PHASES.indexOf(e.phase);
      if (phase < 0) return;
      const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
      const progress = Math.floor((phase + fraction) * 100) / 100;
      if (progress <= last) return;
      emit(progress, `${e.phase}: ${e.done} of ${e.total}`);
    },
    async finish() {
      if (token === undefined) return;
      if (last < total) emit(total, 'analysis finished');
      await pending;
      // The SDK's client handles notifications a microtask later than responses: a response read
      // in the same chunk as the last notification would retire the token first and drop it.
      await new Promise((resolve) => setTimeout(resolve, 20));
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
export function scanProgress(
  token: string | number | undefined,
  send: (n: ServerNotification) => Promise<void>,
): { stage: (name: string) => (event: ProgressEvent) => void; finish: () => Promise<void> } {
  let sent = 0;
  let pending: Promise<void> = Promise.resolve();
  let current = '';
  let lastFraction = -1;
  return {
    stage(name) {
      return (e) => {
        if (token === undefined) return;
        const key = `${name}\u0000${e.phase}`;
        const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
        if (key === current && fraction < lastFraction + 0.01) return;
        current = key;
        lastFraction = fraction;
        sent++;
        const message = e.total > 0 ? `${name}: ${e.done} of ${e.total}` : `${name}: ${e.done}`;
        const params = { progressToken: token, progress: sent, message };
        pending = pending.then(() => send({ method: 'notifications/progress', params }).catch(() => {}));
      };
    },
    async finish() {
      if (token === undefined || sent === 0) return;
      await pending;
      // As analysisProgress's finish: the SDK's client handles a notification a microtask later
      // than a response read in the same chunk, and would drop it.
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
