//! The waste section's data, shaped exactly like `waste` in `ts/report/model.ts` (field
//! reference and formulas: docs/report-model.md, "waste"). serde writes camelCase names.

use serde::Serialize;

use crate::{DuplicateStrings, ObjectRef};

/// Every check, in the order the report lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Check {
    EmptyCollections,
    SmallCollections,
    SparseCollections,
    SparseArrays,
    BoxedPrimitives,
    DuplicateStrings,
    DuplicateArrays,
    ZeroTailArrays,
    Latin1Strings,
    PendingFinalization,
}

impl Check {
    pub const ALL: [Check; 10] = [
        Check::EmptyCollections,
        Check::SmallCollections,
        Check::SparseCollections,
        Check::SparseArrays,
        Check::BoxedPrimitives,
        Check::DuplicateStrings,
        Check::DuplicateArrays,
        Check::ZeroTailArrays,
        Check::Latin1Strings,
        Check::PendingFinalization,
    ];

    /// The heading a person reads.
    pub fn title(self) -> &'static str {
        match self {
            Check::EmptyCollections => "Empty collections",
            Check::SmallCollections => "Small collections at a large default capacity",
            Check::SparseCollections => "Sparse collections",
            Check::SparseArrays => "Sparse object arrays",
            Check::BoxedPrimitives => "Boxed primitives",
            Check::DuplicateStrings => "Duplicate strings",
            Check::DuplicateArrays => "Duplicate primitive arrays",
            Check::ZeroTailArrays => "Arrays with long zero tails",
            Check::Latin1Strings => "UTF-16 strings that fit Latin-1",
            Check::PendingFinalization => "Objects waiting for finalization",
        }
    }

    /// One sentence: what the check finds and how its overhead is counted.
    pub fn rule(self) -> &'static str {
        match self {
            Check::EmptyCollections => "collections with no element; overhead = retained size (the collection, its private empty backing array and whatever else only it keeps alive, which no other check counts again)",
            Check::SmallCollections => "collections under a quarter (hash tables) or half (lists) full at the class's default capacity; overhead = unused slots × reference size",
            Check::SparseCollections => "collections under a quarter (hash tables) or half (lists) full at a capacity other than the default; overhead = unused slots × reference size",
            Check::SparseArrays => "object arrays (not a collection's backing array) with more null than non-null slots; overhead = null slots × reference size",
            Check::BoxedPrimitives => "Integer, Long, … instances with values outside the JDK's box caches (−128..127) and not held by them; overhead = shallow size − the primitive's width",
            Check::DuplicateStrings => "Strings with the same text; overhead = every copy beyond the first (String + its own backing array)",
            Check::DuplicateArrays => "non-empty primitive arrays (not a String's) with the same type and content; overhead = shallow size of every copy beyond the first",
            Check::ZeroTailArrays => "primitive arrays (not a String's) whose trailing zero elements are more than half the length; overhead = zero tail × element size",
            Check::Latin1Strings => "Strings stored UTF-16 whose chars are all below 256; overhead = backing array size − the Latin-1 array's",
            Check::PendingFinalization => "objects whose Finalizer the JVM has queued or is running; overhead = the object's retained size (what it keeps alive is not counted again by another check)",
        }
    }
}

/// How the holder reaches the objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HolderKind {
    /// An instance field of `owner`.
    Field,
    /// A static field of class `owner`.
    StaticField,
    /// `owner` dominates the objects but reaches them through more than one path.
    Indirect,
    /// No single object holds them: their chain of containers starts at the GC roots.
    Root,
    /// Unreachable from the GC roots (garbage the dump still holds).
    Unreachable,
    /// A local variable of a frame on the stack of the thread `owner` is an instance of.
    Local,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    pub kind: HolderKind,
    /// The holding class (`com.acme.Cache`); for `root` and `unreachable`, the class of the
    /// topmost container.
    pub owner: String,
    /// The field name; null for `indirect`, `root` and `unreachable`.
    pub field: Option<String>,
    /// `com.acme.Cache.entries → java.util.HashMap`.
    pub label: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteRow {
    pub holder: Holder,
    /// Class of the wasteful objects.
    pub class_name: String,
    pub objects: u64,
    pub overhead: u64,
    pub overhead_percent: f64,
    /// The first such object (lowest object index).
    pub example: ObjectRef,
    /// Android: the heap these objects are in (`app`, `zygote`, `image`); None (no field) for a
    /// dump that records no heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap: Option<String>,
}

/// Android: the waste found in the objects of one heap, every check together.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteHeap {
    pub name: String,
    pub objects: u64,
    pub overhead: u64,
    /// `overhead` as a percent of the used heap (every heap), as the rows' percentages.
    pub overhead_percent: f64,
    /// The part of `overhead` in objects a GC root reaches.
    pub reachable_overhead: u64,
    /// The shallow sizes of this heap's objects a GC root reaches, summed (every one of them,
    /// wasteful or not): the heap's live bytes.
    pub reachable_shallow: u64,
    /// `reachable_overhead` as a percent of `reachable_shallow` (0 when that is 0): how much of
    /// what this heap's live objects take a change in the code would save. A finding counts in
    /// the heap of its own object, also for the part of its overhead in another heap's objects
    /// (an empty collection's retained size, a duplicate String's array), so in principle it
    /// can exceed 100.
    pub percent_of_reachable: f64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WasteCategory {
    pub check: Check,
    pub title: String,
    pub rule: String,
    pub objects: u64,
    pub overhead: u64,
    pub overhead_percent: f64,
    /// Biggest overhead first; capped (`holders` is the full count).
    pub rows: Vec<WasteRow>,
    pub holders: u64,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waste {
    pub used_heap: u64,
    /// Sum over the checks: `reachable_overhead + unreachable_overhead`.
    pub overhead: u64,
    pub overhead_percent: f64,
    /// The part of `overhead` in objects a GC root reaches: what a change in the code would
    /// save (the report's headline figure).
    pub reachable_overhead: u64,
    pub reachable_overhead_percent: f64,
    /// The part of `overhead` in objects no GC root reaches (garbage the dump still holds, such
    /// as the GC's filler arrays in a dump taken without a collection): the next garbage
    /// collection frees it, whatever the code does. 0 with `--reachable-only`. Told by each
    /// finding's own reachability, not by its holder (an unreachable object's field may hold it).
    pub unreachable_overhead: u64,
    pub unreachable_overhead_percent: f64,
    /// The dump is cut short (`HeapSummary::cut_short`): the GC root records written after the
    /// cut are missing, so `unreachable_overhead` is in objects no root *the dump records*
    /// reaches, not shown to be garbage; the headlines say so instead of "the next collection
    /// frees it".
    pub dump_cut_short: bool,
    /// Every check, in `Check::ALL` order (a check with nothing found has zero rows).
    pub categories: Vec<WasteCategory>,
    /// Android: every heap the dump has objects in, in the order it names them, with what its
    /// objects waste (they add up to `overhead` and `reachable_overhead`); None (no field) for
    /// a dump that records no heaps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaps: Option<Vec<WasteHeap>>,
    /// The duplicate-strings detail (values), as the report showed it before.
    pub duplicate_strings: DuplicateStrings,
}

impl Waste {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("waste data is plain values")
    }
}
