/** `heapql/scheduler`: client of the taskcontrol scheduler and ThreadControl for JavaScript threads. */
export {
  SchedulerClient,
  checkId,
  checkLotteryPriority,
  parseId,
  DEFAULT_SCHEDULER_URL,
  DEFAULT_SCHEDULER_TIMEOUT_MS,
  type SchedulerClientOptions,
  type CallOptions,
  type SetPlanOptions,
  type ResumeOptions,
  type StatusReading,
  type TaskStatus,
  type Target,
  type PlanEntry,
  type PlanListing,
} from './client.js';
export {
  parsePlan,
  validatePlan,
  checkPlanSteps,
  planWarnings,
  WARN_CONSECUTIVE_STOP_SECONDS,
  formatPlan,
  toServerPlan,
  formatReadPlan,
  decodeServerPlan,
  serverSeconds,
  MAX_STOP_SECONDS,
  MAX_CONSECUTIVE_STOP_SECONDS,
  MAX_STEP_SECONDS,
  type PlanAction,
  type PlanStep,
  type ReadPlan,
  type ReadPlanStep,
} from './plan.js';
export { ThreadControl, DEFAULT_SCHEDULER_PORT, type ThreadControlOptions, type ThreadRef } from './thread-control.js';
export { registerThreadId, currentOsThreadId } from './thread-ids.js';
export {
  ServiceError,
  ServiceUnavailableError,
  ServiceTimeoutError,
  ServiceHttpError,
  ServiceProtocolError,
  ServiceFailureError,
  ServiceAbortedError,
  InvalidArgumentError,
} from '../errors.js';
