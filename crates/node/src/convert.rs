//! Error and value conversion between the crates and JavaScript.

use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypeName, Utf16String};
use napi::{sys, Error, Status, ValueType};

/// Every crate error becomes `Error("<CODE>: <message>")`; ts/native splits the code off.
pub fn coded(code: &str, message: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, format!("{code}: {message}"))
}

/// `coded`, with data (JSON) after the message past a NUL: JSON writes a NUL of its strings as
/// `\u0000`, so the last NUL of the text is this one, whatever the message holds.
pub fn coded_with_data(code: &str, message: impl std::fmt::Display, json: &str) -> Error {
    Error::new(Status::GenericFailure, format!("{code}: {message}\0{json}"))
}

/// `json` as the text handed to JavaScript, or `ERR_TOO_LARGE` when one string cannot hold it
/// (napi's own failure, "Failed to convert rust `String` into napi `string`", says neither
/// what nor what to do).
pub fn js_text(json: String, doing: &str) -> napi::Result<String> {
    if heapql_report::too_long_for_js(&json, heapql_report::JS_STRING_MAX_UNITS) {
        let mib = json.len() >> 20;
        return Err(coded("ERR_TOO_LARGE", format!("{doing}: its JSON is {mib} MiB, more than one JavaScript string holds (512 MiB); ask for fewer rows (the library's and the server's limit)")));
    }
    Ok(json)
}

pub fn heap_error(e: heapql_heap::HeapError) -> Error {
    heap_error_while(e, "")
}

/// `heap_error` with `doing` before the message; a changed dump's error carries its path as
/// data (ERR_DUMP_CHANGED's `dumpPath` in TypeScript: a session may hold several dumps).
fn heap_error_while(e: heapql_heap::HeapError, doing: &str) -> Error {
    match &e {
        heapql_heap::HeapError::Changed { path, .. } => coded_with_data(e.code(), format!("{doing}{e}"), &serde_json::json!({ "path": path }).to_string()),
        _ => coded(e.code(), format!("{doing}{e}")),
    }
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

/// `catch_panic` for a piece of work that reads `heap`'s dump, which is then asked again: a read
/// of its mapping that faulted before or during the work (cut short on disk, a failing device:
/// those reads gave zeros) makes the answer, or the panic the zeros led to, an error naming the
/// dump.
pub fn on_dump<T>(heap: &heapql_heap::Heap, what: &str, f: impl FnOnce() -> napi::Result<T>) -> napi::Result<T> {
    let outcome = catch_panic(what, f);
    heap.check_dump_unchanged().map_err(|e| heap_error_while(e, &format!("while {what}: ")))?;
    outcome
}

/// A value for JavaScript: JSON, or a string given by its UTF-16 units. A Java string or char
/// may be no valid UTF-16 (an unpaired surrogate): no Rust string, so no `serde_json` string,
/// can hold it, but a JavaScript string can, and gets it exactly (`JSON.stringify` then writes
/// `\ud800`).
pub enum JsCell {
    Json(serde_json::Value),
    Utf16(Vec<u16>),
}

impl TypeName for JsCell {
    fn type_name() -> &'static str {
        "JsCell"
    }
    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl ToNapiValue for JsCell {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> napi::Result<sys::napi_value> {
        match val {
            JsCell::Json(v) => unsafe { serde_json::Value::to_napi_value(env, v) },
            JsCell::Utf16(units) => unsafe { Utf16String::to_napi_value(env, Utf16String::from(units)) },
        }
    }
}

impl FromNapiValue for JsCell {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        unsafe { serde_json::Value::from_napi_value(env, value) }.map(JsCell::Json)
    }
}
