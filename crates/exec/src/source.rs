//! Resolving FROM sources to the set of rows they designate, class-name lookup with
//! did-you-mean suggestions, and the regex preparation shared with LIKE.

use heapql_heap::{ClassIdx, ObjIdx};
use regex::Regex;

use crate::env::Env;
use crate::error::{ExecError, NameKind, UnknownName};
use crate::plan::{Attr, BinOp, Expr, Source};
use crate::rows::Table;

/// The rows a source yields, before `reachableOnly` and the filter.
pub(crate) enum Input {
    Objects(ObjSet),
    /// Rows of a subquery with columns (read with `{"k":"col"}`).
    Values(Table),
}

pub(crate) enum ObjSet {
    /// Every object, in index order.
    All,
    /// Objects whose class is flagged (`by_class[class_of(o)]`), in index order; `instances`
    /// is how many there are (from the class histogram), so a scan can stop after the last.
    /// None for java.lang.Class, whose objects the index may attribute in ways the histogram
    /// does not count (synthetic class objects, instances of unknown classes).
    Classes { by_class: Vec<bool>, classes: Vec<ClassIdx>, instances: Option<u64> },
    /// An explicit list (address, subquery, retained set), in its order.
    List(Vec<ObjIdx>),
}

impl Input {
    /// Number of scan steps (objects looked at, or value rows).
    pub fn scan_len(&self, env: &Env) -> usize {
        match self {
            Input::Objects(ObjSet::All) | Input::Objects(ObjSet::Classes { .. }) => env.heap.object_count() as usize,
            Input::Objects(ObjSet::List(v)) => v.len(),
            Input::Values(t) => t.len(),
        }
    }

    /// The classes whose instances this source yields, when known statically (for the
    /// unknown-field check); None for heterogeneous or unknown sources.
    pub fn static_classes(&self) -> Option<&[ClassIdx]> {
        match self {
            Input::Objects(ObjSet::Classes { classes, .. }) => Some(classes),
            _ => None,
        }
    }
}

/// Every class of a Java-form name (all loaders); with `subclasses`, their whole subtrees.
pub(crate) fn classes_for_name(env: &Env, name: &str, subclasses: bool) -> Result<Vec<ClassIdx>, ExecError> {
    let direct = env.heap.classes_named(name);
    if direct.is_empty() {
        return Err(unknown_class(env, name));
    }
    let mut out: Vec<ClassIdx> = direct.to_vec();
    if subclasses {
        add_subclasses(env, &mut out);
    }
    out.sort_unstable();
    Ok(out)
}

/// The classes of `FROM [INSTANCEOF] name`; None for `INSTANCEOF java.lang.Object`, which is
/// every object, arrays and class objects included, whether or not the dump lists a superclass
/// for synthetic array classes (the class must still be in the dump). INSTANCEOF a name whose
/// classes all look like interfaces gives the result a note (`interface_note`).
pub(crate) fn classes_of_name(env: &Env, name: &str, subclasses: bool) -> Result<Option<Vec<ClassIdx>>, ExecError> {
    if subclasses && name == "java.lang.Object" {
        classes_for_name(env, name, false)?;
        return Ok(None);
    }
    let classes = classes_for_name(env, name, subclasses)?;
    if subclasses {
        note_interfaces(env, Named::Class(name), env.heap.classes_named(name));
    }
    Ok(Some(classes))
}

/// Adds to `classes` (each once) every class below one of them, breadth first, no recursion.
fn add_subclasses(env: &Env, classes: &mut Vec<ClassIdx>) {
    let mut seen = vec![false; env.heap.class_count() as usize];
    for &c in classes.iter() {
        seen[c as usize] = true;
    }
    let mut i = 0;
    while i < classes.len() {
        for &s in env.heap.subclasses(classes[i]) {
            if !std::mem::replace(&mut seen[s as usize], true) {
                classes.push(s);
            }
        }
        i += 1;
    }
}

/// The classes of FROM "<regex>" (every class whose whole name matches); with `subclasses`
/// (FROM INSTANCEOF "<regex>"), their subtrees too, and a pattern that matches no class is an
/// error, as a name the dump lacks is after INSTANCEOF. None: the pattern matches
/// java.lang.Object under INSTANCEOF, which is every object.
pub(crate) fn classes_for_pattern(env: &Env, pattern: &str, subclasses: bool) -> Result<Option<Vec<ClassIdx>>, ExecError> {
    let re = whole_match_regex(pattern)?;
    let heap = env.heap;
    let mut classes: Vec<ClassIdx> = (0..heap.class_count()).filter(|&c| re.is_match(&heap.class(c).name)).collect();
    if !subclasses {
        return Ok(Some(classes));
    }
    if classes.is_empty() {
        return Err(no_class_matches(pattern));
    }
    if classes.iter().any(|&c| heap.class(c).name == "java.lang.Object") {
        return Ok(None);
    }
    note_interfaces(env, Named::Pattern(pattern), &classes);
    add_subclasses(env, &mut classes);
    classes.sort_unstable();
    Ok(Some(classes))
}

/// What INSTANCEOF is followed by: a class name, or a regex over class names.
#[derive(Clone, Copy)]
enum Named<'a> {
    Class(&'a str),
    Pattern(&'a str),
}

/// Gives the result the note of INSTANCEOF (source or predicate) whose name or pattern stands
/// only for classes that look like interfaces (`interface_note`); `classes` are those it names
/// or matches, before their subclasses. The note is given once per query and text (`Env::note`).
fn note_interfaces(env: &Env, named: Named, classes: &[ClassIdx]) {
    if let Some(note) = interface_note(env, named, classes) {
        env.note(note);
    }
}

/// The note of INSTANCEOF a name or a pattern whose classes all look like interfaces in the
/// dump — no instances, no subclasses, no superclass but java.lang.Object, no instance fields:
/// a dump records no implemented interfaces, so such a query finds nothing, rightly (Eclipse
/// MAT answers the same) but not silently. None when `classes` is empty or one of them is a
/// real class. A few class facts per class, once per query.
fn interface_note(env: &Env, named: Named, classes: &[ClassIdx]) -> Option<String> {
    let heap = env.heap;
    let looks_like_interface = |c: ClassIdx| {
        let info = heap.class(c);
        heap.subclasses(c).is_empty()
            && heap.instance_layout(c).is_empty()
            && !info.name.ends_with("[]")
            && info.super_class.is_some_and(|s| heap.class(s).name == "java.lang.Object" && heap.class(s).super_class.is_none())
    };
    if classes.is_empty() || !classes.iter().all(|&c| looks_like_interface(c)) {
        return None;
    }
    let mut with_instances = vec![false; heap.class_count() as usize];
    for r in heap.class_histogram() {
        with_instances[r.class as usize] |= r.count > 0;
    }
    if classes.iter().any(|&c| with_instances[c as usize]) {
        return None;
    }
    let mut names: Vec<&str> = classes.iter().map(|&c| heap.class(c).name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let one = names.len() == 1;
    const SHOWN: usize = 3;
    let listed = if names.len() <= SHOWN {
        names.join(" and ")
    } else {
        format!("{} and {} more", names[..SHOWN].join(", "), names.len() - SHOWN)
    };
    // An implementing class to suggest: the JDK's own skeleton (java.util.Map → java.util.AbstractMap).
    let example = names.iter().find_map(|n| {
        let (pkg, simple) = n.rfind('.').map_or(("", *n), |i| (&n[..=i], &n[i + 1..]));
        let skeleton = format!("{pkg}Abstract{simple}");
        (!heap.classes_named(&skeleton).is_empty()).then_some(skeleton)
    });
    let simple = names[0].rsplit(['.', '$']).next().unwrap_or(names[0]);
    let target = match named {
        Named::Class(name) => name.to_string(),
        Named::Pattern(pattern) => format!("\"{pattern}\""),
    };
    Some(format!(
        "INSTANCEOF {target} finds nothing: {listed} {} no instances or subclasses in this dump and {}, and heap dumps do not \
         record implemented interfaces; use INSTANCEOF an implementing class{} or FROM \"<regex>\" over class names (e.g. \
         FROM \".*{simple}\")",
        if one { "has" } else { "have" },
        if one { "looks like an interface" } else { "look like interfaces" },
        example.map_or(String::new(), |e| format!(" (e.g. {e})")),
    ))
}

/// FROM INSTANCEOF "<regex>" whose pattern matches no class: ERR_UNKNOWN_CLASS, the pattern as
/// the name (the fronts place the error at the pattern's literal: ts/oql/locate.ts).
fn no_class_matches(pattern: &str) -> ExecError {
    let note = "a pattern matches the whole class name, e.g. \"java\\.util\\..*Map\" or \"Demo\\$\\$Lambda.*\"";
    let unknown = UnknownName {
        kind: NameKind::Pattern,
        name: pattern.to_string(),
        class_name: None,
        class_count: None,
        fields: None,
        suggestions: None,
        note: Some(note.to_string()),
    };
    ExecError::unknown_name(unknown)
}

pub(crate) fn class_bitmap(env: &Env, classes: &[ClassIdx]) -> Vec<bool> {
    let mut by_class = vec![false; env.heap.class_count() as usize];
    for &c in classes {
        by_class[c as usize] = true;
    }
    by_class
}

/// Resolves a non-subquery source. Subqueries are run by the caller.
pub(crate) fn resolve(env: &Env, source: &Source) -> Result<Input, ExecError> {
    match source {
        Source::All => Ok(Input::Objects(ObjSet::All)),
        Source::Class { name, subclasses } => match classes_of_name(env, name, *subclasses)? {
            Some(classes) => Ok(class_set(env, classes)),
            None => Ok(Input::Objects(ObjSet::All)),
        },
        Source::Regex { pattern, subclasses } => match classes_for_pattern(env, pattern, *subclasses)? {
            Some(classes) => Ok(class_set(env, classes)),
            None => Ok(Input::Objects(ObjSet::All)),
        },
        Source::Address { address } => {
            let id = parse_address(address)?;
            match env.heap.index_of(id) {
                Some(o) => Ok(Input::Objects(ObjSet::List(vec![o]))),
                None => Err(ExecError::query(format!(
                    "there is no object at address {address} in this dump (FROM OBJECTS takes the hex address of an object, e.g. from @objectAddress)"
                ))),
            }
        }
        Source::Subquery { .. } => unreachable!("subquery sources are run by select.rs"),
    }
}

fn class_set(env: &Env, classes: Vec<ClassIdx>) -> Input {
    let by_class = class_bitmap(env, &classes);
    let heap = env.heap;
    let with_class_objects = classes.iter().any(|&c| heap.class(c).name == "java.lang.Class");
    let instances = (!with_class_objects)
        .then(|| heap.class_histogram().iter().filter(|r| by_class[r.class as usize]).map(|r| r.count).sum());
    Input::Objects(ObjSet::Classes { by_class, classes, instances })
}

pub(crate) fn parse_address(text: &str) -> Result<u64, ExecError> {
    let t = text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
    let parsed = match hex {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse::<u64>().ok(),
    };
    parsed.ok_or_else(|| ExecError::query(format!("'{text}' is not an object address (expected hex such as 0x7f0012345678)")))
}

/// Compiles a FROM regex or LIKE pattern for a whole-string match. Two fixes make Java names
/// usable as written: an unescaped `$` that is not the last character is literal (`Outer$Inner`),
/// and `[]` is literal (`byte[]`, which is no valid regex otherwise).
pub(crate) fn whole_match_regex(pattern: &str) -> Result<Regex, ExecError> {
    compile_whole(pattern).map_err(|e| ExecError::query(format!("invalid regular expression \"{pattern}\": {e}")))
}

/// A LIKE pattern: the regex of `whole_match_regex`, and the lengths of the texts it can match,
/// so that a text too long or too short for it is refused from its length alone, unread.
#[derive(Debug)]
pub(crate) struct LikePattern {
    re: Regex,
    /// The fewest and the most UTF-8 bytes of a text it matches (None: no most).
    min_bytes: usize,
    max_bytes: Option<usize>,
    /// The same regex as a lazy DFA, fed a long text a character at a time (`match_chars`);
    /// None where it cannot be built.
    dfa: Option<regex_automata::hybrid::dfa::DFA>,
}

impl LikePattern {
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.re.is_match(text)
    }
    /// Whether a text of `units` UTF-16 units may match (LIKE reads a String with an unpaired
    /// surrogate as U+FFFD): it has from `units` to `3 × units` UTF-8 bytes (one to three a unit,
    /// four for a pair of two, three for U+FFFD in place of one).
    pub(crate) fn may_match_units(&self, units: usize) -> bool {
        self.max_bytes.is_none_or(|m| units <= m) && units.saturating_mul(3) >= self.min_bytes
    }
    /// Whether the text of these characters matches, read one character at a time and no
    /// further than the first after which no match is possible (`"abc.*"` refuses a text not
    /// starting with "abc" at its first differing character). None where the DFA cannot tell
    /// (none built, its cache given up, a Unicode word boundary): then match the whole text.
    pub(crate) fn match_chars(&self, chars: impl Iterator<Item = char>) -> Option<bool> {
        use regex_automata::{Anchored, Input};
        let dfa = self.dfa.as_ref()?;
        let mut cache = dfa.create_cache();
        let mut sid = dfa.start_state_forward(&mut cache, &Input::new("").anchored(Anchored::Yes)).ok()?;
        let mut buf = [0u8; 4];
        for c in chars {
            for &b in c.encode_utf8(&mut buf).as_bytes() {
                sid = dfa.next_state(&mut cache, sid, b).ok()?;
                if sid.is_tagged() {
                    if sid.is_dead() {
                        return Some(false);
                    }
                    if sid.is_quit() {
                        return None;
                    }
                }
            }
        }
        sid = dfa.next_eoi_state(&mut cache, sid).ok()?;
        if sid.is_quit() {
            return None;
        }
        Some(sid.is_match())
    }
}

pub(crate) fn like_pattern(pattern: &str) -> Result<LikePattern, ExecError> {
    let re = whole_match_regex(pattern)?;
    // The same pattern text as the regex was compiled from, under the same (default) syntax.
    let (min_bytes, max_bytes) = match regex_syntax::Parser::new().parse(re.as_str()) {
        Ok(hir) => (hir.properties().minimum_len().unwrap_or(0), hir.properties().maximum_len()),
        Err(_) => (0, None),
    };
    // The whole-match regex (anchored both ends) under the same default syntax as `Regex`.
    let dfa = regex_automata::hybrid::dfa::DFA::new(re.as_str()).ok();
    Ok(LikePattern { re, min_bytes, max_bytes, dfa })
}

fn compile_whole(pattern: &str) -> Result<Regex, regex::Error> {
    Regex::new(&format!("^(?:{})$", fix_java_regex(pattern)))
}

/// Checks a FROM regex or LIKE pattern exactly as `whole_match_regex` compiles it (the planner
/// asks before a query runs, so a pattern is judged by the engine that will run it). The error
/// is the regex engine's reason alone (`unclosed character class`), without its rendering of
/// the rewritten pattern.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    match compile_whole(pattern) {
        Ok(_) => Ok(()),
        Err(regex::Error::Syntax(text)) => {
            let reason = text.lines().rev().find_map(|l| l.strip_prefix("error: ")).unwrap_or(text.trim());
            Err(reason.to_string())
        }
        Err(other) => Err(other.to_string()),
    }
}

fn fix_java_regex(p: &str) -> String {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 4);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            out.push(c);
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if c == '$' && i + 1 < chars.len() {
            out.push_str("\\$");
        } else if c == '[' && chars.get(i + 1) == Some(&']') {
            out.push_str("\\[\\]");
            i += 1;
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

fn simple_name(name: &str) -> &str {
    let cut = name.rfind(['.', '$']).map(|i| i + 1).unwrap_or(0);
    &name[cut..]
}

/// ERR_UNKNOWN_CLASS with up to three suggestions: same simple name first (`String` →
/// `java.lang.String`), then the closest names by edit distance.
pub(crate) fn unknown_class(env: &Env, name: &str) -> ExecError {
    let mut names: Vec<&str> = (0..env.heap.class_count()).map(|c| env.heap.class(c).name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let suggestions = suggest(name, &names);
    // With no suggestion, how a class is named.
    let note = suggestions
        .is_empty()
        .then(|| "class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner".to_string());
    let unknown = UnknownName {
        kind: NameKind::Class,
        name: name.to_string(),
        class_name: None,
        class_count: None,
        fields: None,
        suggestions: Some(suggestions),
        note,
    };
    ExecError::unknown_name(unknown)
}

pub(crate) fn suggest(name: &str, names: &[&str]) -> Vec<String> {
    let wanted_simple = simple_name(name).to_ascii_lowercase();
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, usize, &str)> = Vec::new();
    for &n in names {
        let rank_simple = simple_name(n).to_ascii_lowercase() == wanted_simple;
        let d = strsim::levenshtein(&lower, &n.to_ascii_lowercase());
        let limit = (name.len() / 3).max(2);
        if rank_simple {
            scored.push((0, d, n));
        } else if d <= limit {
            scored.push((1, d, n));
        }
    }
    scored.sort();
    scored.into_iter().take(3).map(|(_, _, n)| n.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_names_as_regex() {
        let re = whole_match_regex("Outer$Inner").unwrap();
        assert!(re.is_match("Outer$Inner"));
        assert!(whole_match_regex("byte[]").unwrap().is_match("byte[]"));
        assert!(whole_match_regex("java\\.util\\..*Map").unwrap().is_match("java.util.HashMap"));
        assert!(!whole_match_regex("java\\.util\\..*Map").unwrap().is_match("java.util.HashMap$Node"));
        assert!(whole_match_regex("abc$").unwrap().is_match("abc"));
        assert!(whole_match_regex("(").is_err());
    }

    #[test]
    fn patterns_checked_as_compiled() {
        assert_eq!(check_pattern("(?i)item.*"), Ok(()));
        assert_eq!(check_pattern("Outer$Inner|byte[]"), Ok(()));
        assert_eq!(check_pattern("[^]*\\n[^]*"), Err("unclosed character class".to_string()));
        assert_eq!(check_pattern("java(.*"), Err("unclosed group".to_string()));
        assert!(check_pattern("(?=a)").unwrap_err().contains("look-around"));
    }

    #[test]
    fn suggestions() {
        let names = ["java.lang.String", "java.lang.StringBuilder", "java.util.HashMap", "com.acme.String"];
        assert_eq!(suggest("String", &names), vec!["com.acme.String", "java.lang.String"]);
        assert_eq!(suggest("java.util.HashMapp", &names), vec!["java.util.HashMap"]);
        assert!(suggest("zzzzzzzzzz", &names).is_empty());
    }
}

/// The object index a filter pins down: a top-level conjunct `@objectId = <integer>` (either
/// side). None when the filter has no such conjunct.
fn pinned_object(filter: &Expr) -> Option<f64> {
    match filter {
        Expr::Bin { op: BinOp::And, l, r } => pinned_object(l).or_else(|| pinned_object(r)),
        Expr::Bin { op: BinOp::Eq, l, r } => {
            let id_of = |e: &Expr| matches!(e, Expr::Attr { base, name: Attr::ObjectId } if **base == Expr::Row);
            let lit = |e: &Expr| match e {
                Expr::Lit { v } => v.as_f64(),
                _ => None,
            };
            if id_of(l) { lit(r) } else if id_of(r) { lit(l) } else { None }
        }
        _ => None,
    }
}

/// A point look-up: with `WHERE @objectId = n` (a conjunct), a class or whole-heap source is
/// narrowed to object n (or to nothing when n is not in the source), so the filter runs on one
/// row instead of scanning the heap. The filter itself still runs on that row.
pub(crate) fn narrow_to_pinned(env: &Env, input: Input, filter: Option<&Expr>) -> Input {
    let Some(n) = filter.and_then(pinned_object) else { return input };
    let count = env.heap.object_count();
    let o = (n >= 0.0 && n.fract() == 0.0 && n < count as f64).then_some(n as ObjIdx);
    match (input, o) {
        (Input::Objects(ObjSet::All), o) => Input::Objects(ObjSet::List(o.into_iter().collect())),
        (Input::Objects(ObjSet::Classes { by_class, .. }), o) => {
            Input::Objects(ObjSet::List(o.filter(|&o| by_class[env.heap.class_of(o) as usize]).into_iter().collect()))
        }
        (other, _) => other,
    }
}
