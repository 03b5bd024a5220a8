/**
 * What the server says when something needs the full analysis, written once: the analysis state
 * as the HTTP API names it (`GET /status`), and what to do in each state (POST /analyze before
 * it, wait while it runs, try again after a failure). A full-path query the planner refuses, a
 * look-up and the executor's ERR_NEEDS_ANALYSIS all say it with these words.
 */
import type { SessionStatus } from '../session/index.js';

export type ServerStatus = 'not_started' | 'analyzing' | 'ready' | 'failed';

export function serverStatus(s: SessionStatus): ServerStatus {
  switch (s.state) {
    case 'query-only':
      return 'not_started';
    case 'analyzing':
      return 'analyzing';
    case 'full':
      return 'ready';
    case 'failed':
      return 'failed';
  }
}

/** What to do when something needs the full analysis, in the server's state now. */
export function fullPathAdvice(s: SessionStatus): string {
  switch (serverStatus(s)) {
    case 'analyzing':
      return `the full analysis is running (${s.progress?.phase ?? 'starting'}); retry once GET /status says ready`;
    case 'failed':
      return `the last analysis failed (${s.error}); POST /analyze to try again`;
    case 'ready':
      // The analysis ended between the failed call and this answer.
      return 'the full analysis has just finished: retry';
    case 'not_started':
      return 'POST /analyze to run the full analysis, then retry once GET /status says ready';
  }
}

/** The other fronts' advice at the end of a reason: the library's, the executor's, the planner's. */
const OTHER_ADVICE = /(?:[:;]?\s*(?:run|call) (?:analyze\(\)|the analysis first)|\s*—\s*run `heapql analyze`).*$/;

/**
 * The message of something that needs the full analysis: `reason` (what needs it) without the
 * advice of the other fronts (the library's "run analyze() (!analyze in the REPL) first", the
 * executor's "run the analysis first (`heapql analyze`, …)", the planner's "— run `heapql
 * analyze` …"), then the server's own.
 */
export function needsFullPathMessage(reason: string, s: SessionStatus): string {
  return `${reason.replace(OTHER_ADVICE, '')}: ${fullPathAdvice(s)}`;
}
