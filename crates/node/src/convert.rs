//! Error and value conversion between the crates and JavaScript.

use napi::{Error, Status};

/// Every crate error becomes `Error("<CODE>: <message>")`; ts/native splits the code off.
pub fn coded(code: &str, message: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, format!("{code}: {message}"))
}

pub fn heap_error(e: heapql_heap::HeapError) -> Error {
    coded(e.code(), &e)
}

/// A panic inside a crate must never take the Node process down: it becomes an error.
/// The default hook's backtrace is printed only with HEAPQL_DEBUG=1.
pub fn catch_panic<T>(what: &str, f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        if std::env::var("HEAPQL_DEBUG").as_deref() != Ok("1") {
            std::panic::set_hook(Box::new(|_| {}));
        }
    });
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(coded("ERR_INTERNAL", format!("internal error while {what}: {text} (please report this with the dump's producer and size)")))
        }
    }
}
