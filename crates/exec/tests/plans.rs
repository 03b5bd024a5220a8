//! Every golden plan written by the TypeScript planner deserializes into the Rust plan types
//! and serializes back to the same JSON value (the two schemas are the same).

use std::path::PathBuf;

use heapql_exec::{parse_plan, ERR_PLAN};

fn plans_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/plans")
}

#[test]
fn golden_plans_round_trip() {
    let dir = plans_dir();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e} (the planner's golden plans are part of the repository)", dir.display()));
    let mut checked = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let original: serde_json::Value = serde_json::from_str(&text).unwrap();
        let plan = parse_plan(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let back = serde_json::to_value(&plan).unwrap();
        assert_eq!(back, original, "{} does not round-trip", path.display());
        checked += 1;
    }
    assert!(checked > 0, "no golden plan in {}", dir.display());
    eprintln!("{checked} golden plans round-trip");
}

#[test]
fn version_mismatch_is_a_plan_error() {
    let e = parse_plan(r#"{"version": 2, "query": {}}"#).unwrap_err();
    assert_eq!(e.code, ERR_PLAN);
    assert!(e.message.contains("version 2"), "{}", e.message);
    let e = parse_plan(r#"{"query": {}}"#).unwrap_err();
    assert_eq!(e.code, ERR_PLAN);
    let e = parse_plan("not json").unwrap_err();
    assert_eq!(e.code, ERR_PLAN);
    let e = parse_plan(r#"{"version": 1, "query": {"op": "select"}}"#).unwrap_err();
    assert_eq!(e.code, ERR_PLAN);
    assert!(e.message.contains("malformed plan"), "{}", e.message);
}
