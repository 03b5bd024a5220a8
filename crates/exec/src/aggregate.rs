//! Aggregate accumulators. NULL inputs are ignored by every aggregate. Partial states from
//! parallel workers merge (`merge`) before `finish`.
//!
//! - COUNT(*) counts rows, COUNT(e) non-NULL values;
//! - SUM stays an integer until a float shows up; the sum of nothing is 0. Integers are summed
//!   exactly (i128): a total beyond a Java long is given as a double (`beyond_long` tells, for
//!   the result's note), never wrapped around;
//! - AVG is a float, NULL for no input; its integers are summed exactly too, then divided; MIN/MAX use the total order of `value::total_cmp`;
//! - MEDIAN is PERCENTILE 50; PERCENTILE(p) is nearest-rank: the value at rank ceil(p/100·n)
//!   (rank 1 for p = 0) of the sorted non-NULL inputs, returned as it is (an integer stays one).

use std::cmp::Ordering;

use crate::error::ExecError;
use crate::plan::{AggFn, Aggregate};
use crate::value::{total_cmp, Value};

#[derive(Clone, Debug)]
pub(crate) enum Acc {
    Count(u64),
    Sum { int: i128, float: f64, is_float: bool },
    Avg { int: i128, float: f64, n: u64 },
    Min(Value),
    Max(Value),
    Values { values: Vec<Value>, p: u32 },
}

impl Acc {
    pub fn new(a: &Aggregate) -> Result<Acc, ExecError> {
        Ok(match a.func {
            AggFn::Count => Acc::Count(0),
            AggFn::Sum => Acc::Sum { int: 0, float: 0.0, is_float: false },
            AggFn::Avg => Acc::Avg { int: 0, float: 0.0, n: 0 },
            AggFn::Min => Acc::Min(Value::Null),
            AggFn::Max => Acc::Max(Value::Null),
            AggFn::Median => Acc::Values { values: Vec::new(), p: 50 },
            AggFn::Percentile => match a.p {
                Some(p) if p <= 100 => Acc::Values { values: Vec::new(), p },
                Some(p) => return Err(ExecError::plan(format!("PERCENTILE takes an integer from 0 to 100, not {p}"))),
                None => return Err(ExecError::plan("PERCENTILE needs its integer percentile `p`")),
            },
        })
    }

    /// Adds one input. For COUNT(*) the caller passes any non-NULL value.
    pub fn add(&mut self, v: Value, name: AggFn) -> Result<(), ExecError> {
        if v.is_null() {
            return Ok(());
        }
        match self {
            Acc::Count(n) => *n += 1,
            Acc::Sum { int, float, is_float } => match v {
                Value::Int(i) => *int += i as i128,
                Value::Float(f) => {
                    *float += f;
                    *is_float = true
                }
                other => return Err(not_a_number(name, &other)),
            },
            Acc::Avg { int, float, n } => match v {
                Value::Int(i) => {
                    *int += i as i128;
                    *n += 1
                }
                v => match v.as_f64() {
                    Some(f) => {
                        *float += f;
                        *n += 1
                    }
                    None => return Err(not_a_number(name, &v)),
                },
            },
            Acc::Min(cur) => {
                if cur.is_null() || total_cmp(&v, cur) == Ordering::Less {
                    *cur = v
                }
            }
            Acc::Max(cur) => {
                if cur.is_null() || total_cmp(&v, cur) == Ordering::Greater {
                    *cur = v
                }
            }
            Acc::Values { values, .. } => values.push(v),
        }
        Ok(())
    }

    pub fn merge(&mut self, other: Acc) {
        match (self, other) {
            (Acc::Count(a), Acc::Count(b)) => *a += b,
            (Acc::Sum { int, float, is_float }, Acc::Sum { int: i2, float: f2, is_float: fl2 }) => {
                *int += i2;
                *float += f2;
                *is_float |= fl2;
            }
            (Acc::Avg { int, float, n }, Acc::Avg { int: i2, float: f2, n: n2 }) => {
                *int += i2;
                *float += f2;
                *n += n2
            }
            (Acc::Min(a), Acc::Min(b)) => {
                if !b.is_null() && (a.is_null() || total_cmp(&b, a) == Ordering::Less) {
                    *a = b
                }
            }
            (Acc::Max(a), Acc::Max(b)) => {
                if !b.is_null() && (a.is_null() || total_cmp(&b, a) == Ordering::Greater) {
                    *a = b
                }
            }
            (Acc::Values { values, .. }, Acc::Values { values: v2, .. }) => values.extend(v2),
            _ => unreachable!("merging accumulators of different aggregates"),
        }
    }

    /// A SUM of integers only whose exact total is beyond a Java long: `finish` gives it as a
    /// double (rounded); the result says so in a note.
    pub fn beyond_long(&self) -> bool {
        matches!(self, Acc::Sum { int, is_float: false, .. } if i64::try_from(*int).is_err())
    }

    pub fn finish(self) -> Value {
        match self {
            Acc::Count(n) => Value::Int(n as i64),
            Acc::Sum { int, float, is_float } => {
                if is_float {
                    Value::Float(float + int as f64)
                } else {
                    match i64::try_from(int) {
                        Ok(i) => Value::Int(i),
                        Err(_) => Value::Float(int as f64),
                    }
                }
            }
            Acc::Avg { int, float, n } => {
                if n == 0 {
                    Value::Null
                } else {
                    Value::Float((int as f64 + float) / n as f64)
                }
            }
            Acc::Min(v) | Acc::Max(v) => v,
            Acc::Values { mut values, p } => nearest_rank(&mut values, p),
        }
    }
}

fn not_a_number(f: AggFn, v: &Value) -> ExecError {
    let kind = match v {
        Value::Str(_) | Value::Utf16(_) => "a string",
        Value::Obj(_) => "an object",
        Value::Bool(_) => "a boolean",
        Value::List(_) => "a list",
        _ => "a non-number",
    };
    ExecError::query(format!(
        "{} needs numbers but got {kind}; aggregate a numeric attribute or field (e.g. @usedHeapSize)",
        format!("{f:?}").to_uppercase()
    ))
}

pub(crate) fn nearest_rank(values: &mut [Value], p: u32) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    let n = values.len();
    let rank = ((p as u64 * n as u64).div_ceil(100) as usize).clamp(1, n);
    let (_, v, _) = values.select_nth_unstable_by(rank - 1, total_cmp);
    v.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agg(func: AggFn, p: Option<u32>) -> Acc {
        Acc::new(&Aggregate { func, arg: None, p }).unwrap()
    }

    fn run(func: AggFn, p: Option<u32>, vals: &[Value]) -> Value {
        let mut a = agg(func, p);
        for v in vals {
            a.add(v.clone(), func).unwrap();
        }
        a.finish()
    }

    #[test]
    fn percentiles_nearest_rank() {
        let vals: Vec<Value> = [15, 20, 35, 40, 50].iter().map(|&i| Value::Int(i)).collect();
        assert!(matches!(run(AggFn::Percentile, Some(30), &vals), Value::Int(20)));
        assert!(matches!(run(AggFn::Percentile, Some(40), &vals), Value::Int(20)));
        assert!(matches!(run(AggFn::Percentile, Some(50), &vals), Value::Int(35)));
        assert!(matches!(run(AggFn::Percentile, Some(100), &vals), Value::Int(50)));
        assert!(matches!(run(AggFn::Percentile, Some(0), &vals), Value::Int(15)));
        assert!(matches!(run(AggFn::Median, None, &vals), Value::Int(35)));
        let ten: Vec<Value> = (1..=10).rev().map(Value::Int).collect();
        assert!(matches!(run(AggFn::Percentile, Some(95), &ten), Value::Int(10)));
        assert!(matches!(run(AggFn::Percentile, Some(90), &ten), Value::Int(9)));
        assert!(matches!(run(AggFn::Median, None, &ten), Value::Int(5)));
        assert!(run(AggFn::Median, None, &[Value::Null]).is_null());
        assert!(Acc::new(&Aggregate { func: AggFn::Percentile, arg: None, p: Some(101) }).is_err());
    }

    #[test]
    fn sums_counts_nulls() {
        let vals = [Value::Int(1), Value::Null, Value::Int(2)];
        assert!(matches!(run(AggFn::Sum, None, &vals), Value::Int(3)));
        assert!(matches!(run(AggFn::Count, None, &vals), Value::Int(2)));
        assert!(matches!(run(AggFn::Sum, None, &[]), Value::Int(0)));
        assert!(run(AggFn::Avg, None, &[]).is_null());
        match run(AggFn::Sum, None, &[Value::Int(1), Value::Float(0.5)]) {
            Value::Float(f) => assert_eq!(f, 1.5),
            v => panic!("{v:?}"),
        }
        match run(AggFn::Avg, None, &vals) {
            Value::Float(f) => assert_eq!(f, 1.5),
            v => panic!("{v:?}"),
        }
        assert!(matches!(run(AggFn::Min, None, &vals), Value::Int(1)));
        assert!(matches!(run(AggFn::Max, None, &vals), Value::Int(2)));
        let mut a = agg(AggFn::Sum, None);
        assert_eq!(a.add(Value::str("x"), AggFn::Sum).unwrap_err().code, "ERR_QUERY");
    }

    #[test]
    fn long_sums_are_exact_never_wrapped() {
        // {0..8, Long.MAX_VALUE}: 36 + 2^63 - 1 is beyond a long; wrapped it was negative.
        let mut vals: Vec<Value> = (0..9).map(Value::Int).collect();
        vals.push(Value::Int(i64::MAX));
        let mut a = agg(AggFn::Sum, None);
        for v in &vals {
            a.add(v.clone(), AggFn::Sum).unwrap();
        }
        assert!(a.beyond_long());
        match a.finish() {
            Value::Float(f) => assert_eq!(f, (i64::MAX as i128 + 36) as f64),
            v => panic!("{v:?}"),
        }
        // Back within range after passing beyond it: exact, an integer.
        let back = [Value::Int(i64::MAX), Value::Int(i64::MAX), Value::Int(-i64::MAX), Value::Int(-5)];
        let mut b = agg(AggFn::Sum, None);
        for v in &back {
            b.add(v.clone(), AggFn::Sum).unwrap();
        }
        assert!(!b.beyond_long());
        assert!(matches!(b.finish(), Value::Int(x) if x == i64::MAX - 5));
        // Long.MIN_VALUE alone is a long; one below it is not.
        let mut c = agg(AggFn::Sum, None);
        c.add(Value::Int(i64::MIN), AggFn::Sum).unwrap();
        assert!(!c.beyond_long());
        c.add(Value::Int(-1), AggFn::Sum).unwrap();
        assert!(c.beyond_long());
        // AVG agrees with the exact SUM.
        match run(AggFn::Avg, None, &vals) {
            Value::Float(f) => assert_eq!(f, (i64::MAX as i128 + 36) as f64 / 10.0),
            v => panic!("{v:?}"),
        }
        // Merged parts give the same exact total.
        let (mut l, mut r) = (agg(AggFn::Sum, None), agg(AggFn::Sum, None));
        for v in &vals[..5] {
            l.add(v.clone(), AggFn::Sum).unwrap();
        }
        for v in &vals[5..] {
            r.add(v.clone(), AggFn::Sum).unwrap();
        }
        l.merge(r);
        assert!(l.beyond_long());
    }

    #[test]
    fn merge_equals_single_pass() {
        let vals: Vec<Value> = (0..100).map(|i| Value::Int((i * 37) % 101)).collect();
        for (f, p) in [(AggFn::Sum, None), (AggFn::Min, None), (AggFn::Max, None), (AggFn::Percentile, Some(95)), (AggFn::Count, None)] {
            let whole = run(f, p, &vals);
            let mut a = agg(f, p);
            let mut b = agg(f, p);
            for v in &vals[..40] {
                a.add(v.clone(), f).unwrap();
            }
            for v in &vals[40..] {
                b.add(v.clone(), f).unwrap();
            }
            a.merge(b);
            assert!(crate::value::values_equal(&a.finish(), &whole), "{f:?}");
        }
    }
}
