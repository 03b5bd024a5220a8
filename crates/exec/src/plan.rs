//! Serde types of the physical plan, version 1 (`docs/physical-plan.md`).
//!
//! The TypeScript planner emits this JSON; these types read it and write it back unchanged
//! (every golden plan in `fixtures/plans/` round-trips to the same JSON value). Optional fields
//! are always written (as `null` or their default) and accepted when omitted.

use serde::{Deserialize, Serialize};

use crate::error::ExecError;

/// The only plan version this executor understands.
pub const PLAN_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub version: u32,
    #[serde(default)]
    pub reachable_only: bool,
    #[serde(default)]
    pub full_path: bool,
    pub query: Query,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Query {
    Select(Box<Select>),
    Union(Box<SetOp>),
    Intersect(Box<SetOp>),
    Except(Box<SetOp>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Select {
    pub source: Source,
    #[serde(default)]
    pub alias: Option<String>,
    #[serde(default)]
    pub filter: Option<Expr>,
    pub output: Output,
    #[serde(default)]
    pub group_by: Vec<Expr>,
    #[serde(default)]
    pub aggregates: Vec<Aggregate>,
    #[serde(default)]
    pub having: Option<Expr>,
    #[serde(default)]
    pub order_by: Vec<OrderKey>,
    #[serde(default)]
    pub distinct: bool,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub retained_set: bool,
    #[serde(default)]
    pub guards: Vec<Query>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetOp {
    pub left: Query,
    pub right: Query,
    #[serde(default)]
    pub distinct: bool,
    #[serde(default)]
    pub order_by: Vec<OrderKey>,
    #[serde(default)]
    pub limit: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Output {
    Objects,
    Columns { columns: Vec<OutputColumn> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputColumn {
    pub name: String,
    pub expr: Expr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderKey {
    pub expr: Expr,
    #[serde(default)]
    pub desc: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Source {
    Class {
        name: String,
        #[serde(default)]
        subclasses: bool,
    },
    /// Every class whose whole name matches; with `subclasses` (FROM INSTANCEOF "<regex>"),
    /// their whole subtrees too, and a pattern that matches no class is an error.
    Regex {
        pattern: String,
        #[serde(default)]
        subclasses: bool,
    },
    Address {
        address: String,
    },
    All,
    Subquery {
        query: Box<Query>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AggFn {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Median,
    Percentile,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    #[serde(rename = "fn")]
    pub func: AggFn,
    #[serde(default)]
    pub arg: Option<Expr>,
    #[serde(default)]
    pub p: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attr {
    #[serde(rename = "objectId")]
    ObjectId,
    #[serde(rename = "objectAddress")]
    ObjectAddress,
    #[serde(rename = "usedHeapSize")]
    UsedHeapSize,
    #[serde(rename = "retainedHeapSize")]
    RetainedHeapSize,
    #[serde(rename = "displayName")]
    DisplayName,
    #[serde(rename = "length")]
    Length,
    #[serde(rename = "systemProperties")]
    SystemProperties,
    #[serde(rename = "GCRoots")]
    GcRoots,
    #[serde(rename = "inbounds")]
    Inbounds,
    #[serde(rename = "outbounds")]
    Outbounds,
    #[serde(rename = "clazz")]
    Clazz,
    /// Android: the heap the object is in (`app`, `zygote`, `image`); NULL for other dumps.
    #[serde(rename = "heap")]
    Heap,
    /// A class object's defining class loader; NULL for the bootstrap loader and for any
    /// other object (`classof(x).@classLoader` is an instance's).
    #[serde(rename = "classLoader")]
    ClassLoader,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Func {
    #[serde(rename = "classof")]
    Classof,
    #[serde(rename = "toString")]
    ToString,
    #[serde(rename = "coalesce")]
    Coalesce,
    #[serde(rename = "nullif")]
    Nullif,
    #[serde(rename = "dominators")]
    Dominators,
    #[serde(rename = "dominatorof")]
    Dominatorof,
    #[serde(rename = "path")]
    Path,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    #[serde(rename = "+")]
    Add,
    #[serde(rename = "-")]
    Sub,
    #[serde(rename = "*")]
    Mul,
    #[serde(rename = "/")]
    Div,
    #[serde(rename = "%")]
    Rem,
    #[serde(rename = "=")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "and")]
    And,
    #[serde(rename = "or")]
    Or,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct When {
    pub when: Expr,
    pub then: Expr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "camelCase")]
pub enum Expr {
    /// `v` is kept as JSON so integers and floats round-trip exactly as written.
    Lit {
        v: serde_json::Value,
    },
    Row,
    Col {
        name: String,
    },
    Field {
        base: Box<Expr>,
        name: String,
    },
    Attr {
        base: Box<Expr>,
        name: Attr,
    },
    Call {
        #[serde(rename = "fn")]
        func: Func,
        args: Vec<Expr>,
    },
    Bin {
        op: BinOp,
        l: Box<Expr>,
        r: Box<Expr>,
    },
    Not {
        e: Box<Expr>,
    },
    Neg {
        e: Box<Expr>,
    },
    Like {
        e: Box<Expr>,
        pattern: String,
        #[serde(default)]
        negate: bool,
    },
    /// `x INSTANCEOF C` (`class`), or `x INSTANCEOF "<regex>"` (`pattern`): of a class whose whole
    /// name matches or of a subclass of one, as FROM INSTANCEOF "<regex>" takes; one of the two.
    Instanceof {
        e: Box<Expr>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        class: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    In {
        e: Box<Expr>,
        query: Box<Query>,
    },
    Case {
        whens: Vec<When>,
        #[serde(rename = "else", default)]
        else_: Option<Box<Expr>>,
    },
    Index {
        e: Box<Expr>,
        i: Box<Expr>,
    },
    Slice {
        e: Box<Expr>,
        from: Box<Expr>,
        to: Box<Expr>,
    },
    Agg {
        i: usize,
    },
    Key {
        i: usize,
    },
    Out {
        i: usize,
    },
}

/// Parses a plan: first the version (so a newer planner gets a clear message rather than a
/// schema error), then the whole document.
pub fn parse_plan(json: &str) -> Result<Plan, ExecError> {
    let raw: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| ExecError::plan(format!("the plan is not valid JSON: {e}")))?;
    match raw.get("version") {
        Some(v) if v.as_u64() == Some(PLAN_VERSION as u64) => {}
        Some(v) => {
            return Err(ExecError::plan(format!(
                "plan version {v} is not supported: this executor runs plan version {PLAN_VERSION} \
                 (rebuild the TypeScript planner and the native addon from the same release)"
            )))
        }
        None => {
            return Err(ExecError::plan(format!(
                "the plan has no \"version\" field (expected {{\"version\": {PLAN_VERSION}, ...}})"
            )))
        }
    }
    serde_json::from_value(raw).map_err(|e| ExecError::plan(format!("malformed plan: {e}")))
}
