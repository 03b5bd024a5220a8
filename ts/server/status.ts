/**
 * The analysis state as the HTTP API names it (`GET /status`, the specification's words) from
 * the session's state.
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

/** The body of `GET /status`. */
export function statusBody(s: SessionStatus): Record<string, unknown> {
  const status = serverStatus(s);
  return {
    status,
    ...(status === 'analyzing' ? { progress: s.progress ?? { phase: 'starting', done: 0, total: 0 } } : {}),
    ...(status === 'failed' ? { reason: s.error ?? 'unknown reason' } : {}),
    reachableOnly: s.reachableOnly,
    dump: s.path,
    objects: s.objects,
    classes: s.classes,
  };
}
