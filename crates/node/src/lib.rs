//! The N-API door: the only Rust code that knows about Node. It converts values, runs long work
//! off the event loop with progress and cancellation, and maps errors to stable codes. No logic:
//! every decision lives in the crates behind it.
//!
//! Errors cross as JavaScript errors whose message starts with a stable code
//! (`ERR_NOT_HPROF: ...`); `ts/native` turns that prefix into the error's `code` property.

#![deny(clippy::all)]

mod analysis;
mod convert;
mod heap_handle;
mod lookup;
mod progress;
mod query;
mod report;
mod waste;

pub use heap_handle::*;
pub use lookup::*;
pub use progress::*;
pub use query::*;

use napi_derive::napi;

/// Bumped whenever the shape of this door changes; `ts/native` refuses a binary that differs.
pub const NATIVE_API_VERSION: u32 = 5;

#[napi]
pub fn native_api_version() -> u32 {
    NATIVE_API_VERSION
}
