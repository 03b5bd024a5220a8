//! The planner's regex check: FROM "<regex>" and LIKE patterns judged by the executor's own
//! compile step before a query runs (the planner cannot load the addon; the session asks here).

use napi_derive::napi;

/// For each pattern, null when the executor accepts it, else the regex engine's reason.
#[napi]
pub fn check_patterns(patterns: Vec<String>) -> Vec<Option<String>> {
    patterns.iter().map(|p| heapql_exec::check_pattern(p).err()).collect()
}
