//! What one execution runs against: the heap, the optional graph, reachability, cancellation,
//! progress, and a few heap-wide facts computed at most once per execution.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use heapql_heap::{ClassIdx, Heap, ObjIdx, Progress, ProgressFn, RootKind, StaticField};

use crate::error::ExecError;
use crate::graph_view::GraphView;
use crate::value::Value;

/// Everything an execution needs besides the plan. Build it with `ExecContext::new(&heap)`
/// and the `with_*` methods.
#[derive(Clone)]
pub struct ExecContext<'a> {
    pub heap: &'a Heap,
    /// The analyzed graph (full path). None on the query-only path.
    pub graph: Option<&'a dyn GraphView>,
    /// Reachability from GC roots, one bit per object (bit `o % 64` of word `o / 64`), used by
    /// `reachableOnly` plans. When None, the graph's `is_reachable` is used; with neither a
    /// `reachableOnly` plan fails with ERR_NEEDS_ANALYSIS.
    pub reachable: Option<&'a [u64]>,
    /// Set to true from another thread to stop; the execution returns ERR_CANCELLED.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Called with phase "query" and objects scanned so far / total to scan.
    pub progress: Option<ProgressFn>,
    /// Worker threads for scans that split; 0 = all available cores.
    pub threads: usize,
    /// The most UTF-16 units one result cell may take as text (a string, a list's JSON):
    /// `JS_STRING_MAX_UNITS` unless lowered (tests). A text or list that could not fit fails
    /// with ERR_TOO_LARGE before it is built.
    pub max_cell_units: usize,
    /// The most objects one `path(a, b)` search visits before it gives up: `PATH_MAX_VISITED`
    /// unless lowered (tests).
    pub path_max_visited: usize,
    /// Counts the output cells evaluated, for tests showing that a count or a seek evaluates
    /// none it need not (`select::counted_eval`); None (no counting) unless a test sets it.
    #[doc(hidden)]
    pub eval_counter: Option<Arc<AtomicU64>>,
}

/// Every result cell crosses to Node as one string (a text; a list as its JSON): at most this.
pub use heapql_heap::JS_STRING_MAX_UNITS;

impl<'a> ExecContext<'a> {
    pub fn new(heap: &'a Heap) -> ExecContext<'a> {
        ExecContext { heap, graph: None, reachable: None, cancel: None, progress: None, threads: 0, max_cell_units: JS_STRING_MAX_UNITS, path_max_visited: crate::graph_view::PATH_MAX_VISITED, eval_counter: None }
    }
    pub fn with_graph(mut self, graph: &'a dyn GraphView) -> Self {
        self.graph = Some(graph);
        self
    }
    pub fn with_reachable(mut self, bits: &'a [u64]) -> Self {
        self.reachable = Some(bits);
        self
    }
    pub fn with_cancel(mut self, cancel: Arc<AtomicBool>) -> Self {
        self.cancel = Some(cancel);
        self
    }
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
    pub fn with_max_cell_units(mut self, units: usize) -> Self {
        self.max_cell_units = units;
        self
    }
    pub fn with_path_max_visited(mut self, objects: usize) -> Self {
        self.path_max_visited = objects;
        self
    }
}

/// Internal view of the context for one execution.
pub(crate) struct Env<'a> {
    pub heap: &'a Heap,
    pub graph: Option<&'a dyn GraphView>,
    reachable: Option<&'a [u64]>,
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<ProgressFn>,
    pub threads: usize,
    pub max_cell_units: usize,
    pub path_max_visited: usize,
    pub eval_counter: Option<Arc<AtomicU64>>,
    /// The plan's `reachableOnly`: every source skips objects not reachable from GC roots.
    pub reachable_only: bool,
    scanned: AtomicU64,
    to_scan: AtomicU64,
    /// Classes named java.lang.String (rule 12 guard, object-vs-string comparisons).
    string_classes: OnceLock<Vec<ClassIdx>>,
    /// (object, root kind) sorted by object: `@GCRoots`.
    roots_by_object: OnceLock<Vec<(ObjIdx, RootKind)>>,
    system_properties: OnceLock<Value>,
    /// The result's notes (said once each, in the order they came).
    notes: Mutex<Vec<String>>,
    /// Field reads whose classes were not known when compiled (FROM subquery rows): a note
    /// when no object read had the field.
    probes: Mutex<Vec<Arc<FieldProbe>>>,
}

/// Whether a field read (one compiled `x.name`) met an object that has the field, and one that
/// has not. Two flags set once each: a relaxed load per read, no counting per row.
#[derive(Debug)]
pub(crate) struct FieldProbe {
    pub name: Box<str>,
    found: AtomicBool,
    missed: AtomicBool,
}

impl FieldProbe {
    #[inline]
    pub fn hit(&self) {
        if !self.found.load(Ordering::Relaxed) {
            self.found.store(true, Ordering::Relaxed);
        }
    }
    #[inline]
    pub fn miss(&self) {
        if !self.missed.load(Ordering::Relaxed) {
            self.missed.store(true, Ordering::Relaxed);
        }
    }
}

/// How often (in rows) loops look at the cancel flag.
pub(crate) const CANCEL_EVERY: usize = 4096;

impl<'a> Env<'a> {
    pub fn new(ctx: &ExecContext<'a>) -> Env<'a> {
        let threads = if ctx.threads == 0 {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        } else {
            ctx.threads
        };
        Env {
            heap: ctx.heap,
            graph: ctx.graph,
            reachable: ctx.reachable,
            max_cell_units: ctx.max_cell_units,
            path_max_visited: ctx.path_max_visited,
            eval_counter: ctx.eval_counter.clone(),
            cancel: ctx.cancel.clone(),
            progress: ctx.progress.clone(),
            threads: threads.max(1),
            reachable_only: false,
            scanned: AtomicU64::new(0),
            to_scan: AtomicU64::new(0),
            string_classes: OnceLock::new(),
            roots_by_object: OnceLock::new(),
            system_properties: OnceLock::new(),
            notes: Mutex::new(Vec::new()),
            probes: Mutex::new(Vec::new()),
        }
    }

    /// Adds a note to the result (a note already given is not repeated).
    pub fn note(&self, text: String) {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        if !notes.contains(&text) {
            notes.push(text);
        }
    }

    /// A probe for a field read whose classes are not known before the rows are read.
    pub fn field_probe(&self, name: &str) -> Arc<FieldProbe> {
        let probe = Arc::new(FieldProbe { name: name.into(), found: AtomicBool::new(false), missed: AtomicBool::new(false) });
        self.probes.lock().unwrap_or_else(|e| e.into_inner()).push(probe.clone());
        probe
    }

    /// The result's notes, once the execution is over: those given, then one per field that
    /// objects were read for and none of them had.
    pub fn take_notes(&self) -> Vec<String> {
        let probes = std::mem::take(&mut *self.probes.lock().unwrap_or_else(|e| e.into_inner()));
        for p in probes {
            if p.missed.load(Ordering::Relaxed) && !p.found.load(Ordering::Relaxed) {
                self.note(format!(
                    "no object read had a field '{}', so it is NULL on every row: check its name (the classes of these rows were not known before the query ran, so it could not be refused)",
                    p.name
                ));
            }
        }
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn check_cancel(&self) -> Result<(), ExecError> {
        match &self.cancel {
            Some(c) if c.load(Ordering::Relaxed) => Err(ExecError::cancelled()),
            _ => Ok(()),
        }
    }

    pub fn cancel_flag(&self) -> Option<&AtomicBool> {
        self.cancel.as_deref()
    }

    pub fn graph(&self, what: &str) -> Result<&'a dyn GraphView, ExecError> {
        self.graph.ok_or_else(|| ExecError::needs_analysis(what))
    }

    /// Fails early when a reachable-only plan cannot be honoured.
    pub fn check_reachability_available(&self) -> Result<(), ExecError> {
        if self.reachable.is_none() && self.graph.is_none() {
            return Err(ExecError::needs_analysis("reachable-only mode (restricting sources to objects reachable from GC roots)"));
        }
        Ok(())
    }

    pub fn is_reachable(&self, o: ObjIdx) -> bool {
        match self.reachable {
            Some(bits) => bits.get(o as usize / 64).is_some_and(|w| w >> (o % 64) & 1 == 1),
            None => self.graph.is_some_and(|g| g.is_reachable(o)),
        }
    }

    /// Announces how many more items the scans of this execution will visit.
    pub fn add_to_scan(&self, n: u64) {
        self.to_scan.fetch_add(n, Ordering::Relaxed);
    }

    pub fn report_scanned(&self, n: u64) {
        let done = self.scanned.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(p) = &self.progress {
            p(Progress { phase: "query", done, total: self.to_scan.load(Ordering::Relaxed).max(done) });
        }
    }

    pub fn string_classes(&self) -> &[ClassIdx] {
        self.string_classes.get_or_init(|| self.heap.classes_named("java.lang.String").to_vec())
    }

    pub fn is_string_class(&self, c: ClassIdx) -> bool {
        self.string_classes().contains(&c)
    }

    /// The statics a class object describing `c` has as its fields: `c`'s own, then its
    /// superclasses', nearest first (a walk up the supers ends: the index cuts cycles).
    pub fn statics_with_supers(&self, c: ClassIdx) -> impl Iterator<Item = &'a StaticField> + 'a {
        let heap = self.heap;
        std::iter::successors(Some(c), move |&k| heap.class(k).super_class).flat_map(move |k| heap.class(k).statics.iter())
    }

    pub fn root_kinds(&self, o: ObjIdx) -> &[(ObjIdx, RootKind)] {
        let all = self.roots_by_object.get_or_init(|| {
            let mut v: Vec<(ObjIdx, RootKind)> = self.heap.gc_roots().iter().map(|r| (r.object, r.kind)).collect();
            v.sort_unstable();
            v.dedup();
            v
        });
        let start = all.partition_point(|&(x, _)| x < o);
        let end = all.partition_point(|&(x, _)| x <= o);
        &all[start..end]
    }

    pub fn system_properties(&self) -> Value {
        self.system_properties
            .get_or_init(|| {
                let props = self.heap.system_properties();
                if props.is_empty() {
                    Value::Null
                } else {
                    Value::List(props.iter().map(|(k, v)| Value::str(&format!("{k}={v}"))).collect())
                }
            })
            .clone()
    }

    /// Splits `0..n` into up to `threads` contiguous ranges (one when the work is small) and runs
    /// `f` on each, in parallel; results come back in range order.
    pub fn par_ranges<T: Send>(
        &self,
        n: usize,
        min_per_thread: usize,
        f: impl Fn(Range<usize>) -> Result<T, ExecError> + Sync,
    ) -> Result<Vec<T>, ExecError> {
        let parts = (n / min_per_thread.max(1)).clamp(1, self.threads);
        if parts == 1 {
            return Ok(vec![f(0..n)?]);
        }
        let step = n.div_ceil(parts);
        let ranges: Vec<Range<usize>> = (0..parts).map(|i| (i * step).min(n)..((i + 1) * step).min(n)).collect();
        let results: Vec<Result<T, ExecError>> = std::thread::scope(|s| {
            let handles: Vec<_> = ranges.into_iter().map(|r| s.spawn(|| f(r))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(ExecError::query("internal error: a query worker panicked"))))
                .collect()
        });
        // A cancellation seen by one worker wins over other errors.
        if results.iter().any(|r| matches!(r, Err(e) if e.code == crate::error::ERR_CANCELLED)) {
            return Err(ExecError::cancelled());
        }
        results.into_iter().collect()
    }
}
