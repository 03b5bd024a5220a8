//! The N-API door: the only Rust code that knows about Node. It converts values, runs long work
//! off the event loop with progress and cancellation, and maps errors to stable codes. No logic:
//! every decision lives in the crates behind it.
//!
//! Errors cross as JavaScript errors whose message starts with a stable code
//! (`ERR_NOT_HPROF: ...`); `ts/native` turns that prefix into the error's `code` property. A
//! name the dump lacks (ERR_UNKNOWN_CLASS, ERR_UNKNOWN_FIELD) also crosses as data: its JSON
//! after the message, past a NUL (`convert::coded_with_data`).

#![deny(clippy::all)]

mod analysis;
mod cache;
mod convert;
mod heap_handle;
mod lookup;
mod patterns;
mod progress;
mod query;
mod report;
mod stream_gate;
mod waste;

pub use cache::*;
pub use heap_handle::*;
pub use lookup::*;
pub use patterns::*;
pub use progress::*;
pub use query::*;
pub use stream_gate::*;

use napi_derive::napi;

/// Bumped whenever the shape of this door changes; `ts/native` refuses a binary that differs.
pub const NATIVE_API_VERSION: u32 = 21;

#[napi]
pub fn native_api_version() -> u32 {
    NATIVE_API_VERSION
}

/// What this binary is, for `heapql --version`: the crate version, the target triple it was
/// compiled for and the cargo profile.
#[napi(object)]
pub struct BuildInfo {
    pub version: String,
    pub target: String,
    pub profile: String,
}

#[napi]
pub fn build_info() -> BuildInfo {
    BuildInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        target: env!("HEAPQL_BUILD_TARGET").to_string(),
        profile: env!("HEAPQL_BUILD_PROFILE").to_string(),
    }
}

