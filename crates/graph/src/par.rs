//! Work split over the cores: one job per thread, the first on the calling thread.

pub use heapql_heap::both;

/// The cores to split work over: what the machine offers, between 1 and `at_most`.
pub(crate) fn cores(at_most: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get()).clamp(1, at_most.max(1))
}

/// Runs every job, each on its own thread (the first on the calling one), and returns their
/// answers in order. A job's panic reaches the caller with its own message.
pub(crate) fn run_each<R: Send, J: FnOnce() -> R + Send>(jobs: impl IntoIterator<Item = J>) -> Vec<R> {
    std::thread::scope(|scope| {
        let mut jobs = jobs.into_iter();
        let first = jobs.next();
        let handles: Vec<_> = jobs.map(|job| scope.spawn(job)).collect();
        let mut out: Vec<R> = first.into_iter().map(|job| job()).collect();
        out.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        out
    })
}

#[cfg(test)]
mod tests {
    use super::{both, run_each};

    #[test]
    fn answers_come_in_order_and_panics_keep_their_message() {
        let squares = run_each((0..5u64).map(|k| move || k * k));
        assert_eq!(squares, vec![0, 1, 4, 9, 16]);
        assert!(run_each(Vec::<fn() -> u8>::new()).is_empty());
        for bad in [0, 2] {
            let outcome = std::panic::catch_unwind(|| run_each((0..3).map(|k| move || assert_ne!(k, bad, "job {k} broke"))));
            let message = outcome.expect_err("the panic reaches the caller");
            let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(text.contains(&format!("job {bad} broke")), "{text}");
        }
    }

    #[test]
    fn both_sides_answer_and_a_panic_on_the_other_thread_keeps_its_message() {
        assert_eq!(both(|| 1, || "two"), (1, "two"));
        let outcome = std::panic::catch_unwind(|| both(|| 1, || -> u8 { panic!("the other side broke") }));
        let message = outcome.expect_err("the panic reaches the caller");
        assert_eq!(message.downcast_ref::<&str>(), Some(&"the other side broke"));
    }
}
