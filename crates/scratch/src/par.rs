//! Two jobs side by side, for the passes that split their work over both cores.

/// Runs `lower` on this thread and `upper` on another, side by side. A panic in either is
/// passed on with its own message, not replaced by a generic one that hides what went wrong.
pub fn both<A, B: Send>(lower: impl FnOnce() -> A, upper: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|s| {
        let upper = s.spawn(upper);
        let a = lower();
        (a, upper.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
    })
}
