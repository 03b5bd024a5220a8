//! The executor's error: a stable code (crosses the native boundary as the JS error's `code`)
//! and a message meant for the person who wrote the query; a name the dump lacks also as data.

use std::fmt;
use std::fmt::Write as _;

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub code: &'static str,
    pub message: String,
    /// ERR_UNKNOWN_CLASS and ERR_UNKNOWN_FIELD: the name refused and what the message lists, as
    /// data (the fronts place the error by the name; none reads it back out of the message). The
    /// message is `unknown.message(Quoting::Plain)`.
    pub unknown: Option<Box<UnknownName>>,
}

/// What a name the dump lacks was used as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NameKind {
    /// A class name (`FROM`, `INSTANCEOF`).
    Class,
    /// A class pattern that matches no class (`FROM INSTANCEOF "<regex>"`).
    Pattern,
    /// An instance field read on objects.
    Field,
    /// A static field read on class objects (`classof(x).NAME`, `FROM java.lang.Class c … c.NAME`).
    Static,
}

/// A name the query uses that the dump lacks, with what the error's message lists beside it.
/// Crosses the native boundary as JSON (camelCase keys; ts/errors.ts `UnknownName`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnknownName {
    pub kind: NameKind,
    /// The name as the query writes it.
    pub name: String,
    /// A field: the class whose fields are listed (the source's first, when it has several);
    /// none for a static that no class of the dump has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// A field: how many classes the source has (1, or the "none of the N classes" of the message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_count: Option<u32>,
    /// A field: the fields of `class_name`, with its superclasses' (its statics for a static);
    /// none for an array class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// A class: up to three of the dump's classes by closeness; a static no class has: up to
    /// three statics' names of the dump.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
    /// What the message adds in fixed words (no name of the dump in them): what an array has
    /// instead of fields, where a string's text is, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How a refusal's message writes the dump's names and the refused one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quoting {
    /// As the CLI, the REPLs and the HTTP server say it: classes and lists bare, the refused
    /// field in single quotes (`Demo$Session has no field 'nosuch' (its fields: id, user)`).
    Plain,
    /// Every name (the refused one, classes, fields, suggestions) as a JSON string, as the MCP
    /// server says it: a class or field may be named with any text, a sentence or a quote
    /// included, and each then still reads as one name (`"Demo$Session" has no field "nosuch"
    /// (its fields: "id", "user")`).
    Json,
}

/// The data as the native boundary carries it: the name's data and its message JSON-quoted.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UnknownNameJson<'a> {
    #[serde(flatten)]
    name: &'a UnknownName,
    quoted_message: String,
}

impl UnknownName {
    /// The data as JSON, for the native boundary, with `quotedMessage`: the message with every
    /// name JSON-quoted (`Quoting::Json`).
    pub fn to_json(&self) -> String {
        let json = UnknownNameJson { name: self, quoted_message: self.message(Quoting::Json) };
        serde_json::to_string(&json).expect("names and lists serialize")
    }

    /// The refusal in words: the one wording of ERR_UNKNOWN_CLASS and ERR_UNKNOWN_FIELD, said
    /// from the data. The executor's message is its `Quoting::Plain` form.
    pub fn message(&self, quoting: Quoting) -> String {
        let q = |text: &str| match quoting {
            Quoting::Plain => text.to_string(),
            Quoting::Json => serde_json::to_string(text).expect("a string serializes"),
        };
        let list = |names: &[String]| names.iter().map(|n| q(n)).collect::<Vec<_>>().join(", ");
        let name = match (quoting, self.kind) {
            (Quoting::Plain, NameKind::Class) => self.name.clone(),
            (Quoting::Plain, _) => format!("'{}'", self.name),
            (Quoting::Json, _) => q(&self.name),
        };
        let note = self.note.as_deref();
        let guesses = match self.suggestions.as_deref() {
            Some(s) if !s.is_empty() => format!("; did you mean {}?", list(s)),
            _ => String::new(),
        };
        let mut msg = String::new();
        if self.kind == NameKind::Pattern {
            // Written in quotes as the query writes it (plain), or JSON-quoted.
            let pattern = match quoting {
                Quoting::Plain => format!("\"{}\"", self.name),
                Quoting::Json => name,
            };
            msg = format!("no class in this dump matches {pattern}");
            if let Some(note) = note {
                let _ = write!(msg, " ({note})");
            }
            return msg;
        }
        if self.kind == NameKind::Class {
            msg = format!("class {name} is not in this dump");
            if !guesses.is_empty() {
                msg.push_str(&guesses);
            } else if let Some(note) = note {
                let _ = write!(msg, " ({note})");
            }
            return msg;
        }
        let Some(class_name) = self.class_name.as_deref() else {
            // A static that no class of the dump has.
            let _ = write!(msg, "no class of this dump has a static field {name}");
            if let Some(note) = note {
                let _ = write!(msg, " ({note})");
            }
            msg.push_str(&guesses);
            return msg;
        };
        let cls = q(class_name);
        let count = self.class_count.unwrap_or(1);
        // An array class has no field list: what it has instead goes in its place.
        let listed = match (&self.fields, note) {
            (None, Some(note)) => format!("none; {note}"),
            (None, None) => "none".to_string(),
            (Some(fields), _) if fields.is_empty() => "none".to_string(),
            (Some(fields), _) => list(fields),
        };
        let _ = match (self.kind == NameKind::Static, count > 1) {
            (true, false) => write!(msg, "{cls} has no static field {name} (its statics, with its superclasses': {listed})"),
            (true, true) => write!(
                msg,
                "none of the {count} classes of the source has a static field {name} (the first, {cls}, has, with its superclasses': {listed})"
            ),
            (false, false) => write!(msg, "{cls} has no field {name} (its fields: {listed})"),
            (false, true) => write!(msg, "none of the {count} classes of the source has a field {name} (the first, {cls}, has: {listed})"),
        };
        if let (Some(_), Some(note)) = (&self.fields, note) {
            let _ = write!(msg, "; {note}");
        }
        msg
    }
}

pub const ERR_PLAN: &str = "ERR_PLAN";
pub const ERR_UNKNOWN_CLASS: &str = "ERR_UNKNOWN_CLASS";
pub const ERR_UNKNOWN_FIELD: &str = "ERR_UNKNOWN_FIELD";
pub const ERR_NEEDS_ANALYSIS: &str = "ERR_NEEDS_ANALYSIS";
pub const ERR_QUERY: &str = "ERR_QUERY";
pub const ERR_CANCELLED: &str = "ERR_CANCELLED";
/// A value (a text, a list) longer than one result cell can hold.
pub const ERR_TOO_LARGE: &str = "ERR_TOO_LARGE";

impl ExecError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ExecError {
        ExecError { code, message: message.into(), unknown: None }
    }
    /// ERR_UNKNOWN_CLASS or ERR_UNKNOWN_FIELD (by `unknown.kind`) with its data, said by
    /// `unknown.message(Quoting::Plain)`.
    pub fn unknown_name(unknown: UnknownName) -> ExecError {
        let code = if matches!(unknown.kind, NameKind::Class | NameKind::Pattern) { ERR_UNKNOWN_CLASS } else { ERR_UNKNOWN_FIELD };
        ExecError { code, message: unknown.message(Quoting::Plain), unknown: Some(Box::new(unknown)) }
    }
    pub fn plan(message: impl Into<String>) -> ExecError {
        ExecError::new(ERR_PLAN, message)
    }
    pub fn query(message: impl Into<String>) -> ExecError {
        ExecError::new(ERR_QUERY, message)
    }
    pub fn cancelled() -> ExecError {
        ExecError::new(ERR_CANCELLED, "the query was cancelled")
    }
    pub fn needs_analysis(what: &str) -> ExecError {
        ExecError::new(
            ERR_NEEDS_ANALYSIS,
            format!(
                "{what} needs the full analysis (object graph and dominator tree); \
                 run the analysis first (`heapql analyze`, `!analyze` in the REPL, POST /analyze)"
            ),
        )
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ExecError {}

/// Expression evaluation carries errors boxed so a result is as small as a value (the hot
/// per-row path returns values through several levels).
impl From<Box<ExecError>> for ExecError {
    fn from(e: Box<ExecError>) -> ExecError {
        *e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|s| s.to_string()).collect())
    }

    fn class(name: &str, suggestions: &[&str], note: Option<&str>) -> UnknownName {
        UnknownName {
            kind: NameKind::Class,
            name: name.into(),
            class_name: None,
            class_count: None,
            fields: None,
            suggestions: names(suggestions),
            note: note.map(str::to_string),
        }
    }

    fn field(kind: NameKind, name: &str, class: &str, count: u32, fields: Option<&[&str]>, note: Option<&str>) -> UnknownName {
        UnknownName {
            kind,
            name: name.into(),
            class_name: Some(class.into()),
            class_count: Some(count),
            fields: fields.and_then(names),
            suggestions: None,
            note: note.map(str::to_string),
        }
    }

    const FULLY: &str = "class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner";
    const ARRAY: &str = "arrays have @length and [i]";
    const STRING: &str = "strings of this JVM keep their text in value: use toString(s) for the text, @length for its length";
    const CLASS_OBJECT: &str = "the fields of a class object are its class's statics";

    /// Each kind of refusal, with its message as the executor words it (the CLI's, the REPLs',
    /// the HTTP server's: tests across the fronts pin these words) and as the MCP server does.
    fn cases() -> Vec<(UnknownName, &'static str, &'static str)> {
        vec![
            (
                class("com.example.Nod", &["com.example.Node", "com.example.Num"], None),
                "class com.example.Nod is not in this dump; did you mean com.example.Node, com.example.Num?",
                r#"class "com.example.Nod" is not in this dump; did you mean "com.example.Node", "com.example.Num"?"#,
            ),
            (
                class("Nothing", &[], Some(FULLY)),
                "class Nothing is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)",
                r#"class "Nothing" is not in this dump (class names are fully qualified, e.g. java.util.HashMap, byte[], Outer$Inner)"#,
            ),
            (
                field(NameKind::Field, "vv", "com.example.Node", 1, Some(&["next", "v", "name"]), None),
                "com.example.Node has no field 'vv' (its fields: next, v, name)",
                r#""com.example.Node" has no field "vv" (its fields: "next", "v", "name")"#,
            ),
            (
                field(NameKind::Field, "vv", "com.example.Empty", 1, Some(&[]), None),
                "com.example.Empty has no field 'vv' (its fields: none)",
                r#""com.example.Empty" has no field "vv" (its fields: none)"#,
            ),
            (
                field(NameKind::Field, "vv", "com.example.Node", 2, Some(&["next", "v"]), None),
                "none of the 2 classes of the source has a field 'vv' (the first, com.example.Node, has: next, v)",
                r#"none of the 2 classes of the source has a field "vv" (the first, "com.example.Node", has: "next", "v")"#,
            ),
            (
                field(NameKind::Field, "size", "int[]", 1, None, Some(ARRAY)),
                "int[] has no field 'size' (its fields: none; arrays have @length and [i])",
                r#""int[]" has no field "size" (its fields: none; arrays have @length and [i])"#,
            ),
            (
                field(NameKind::Field, "size", "int[]", 3, None, Some(ARRAY)),
                "none of the 3 classes of the source has a field 'size' (the first, int[], has: none; arrays have @length and [i])",
                r#"none of the 3 classes of the source has a field "size" (the first, "int[]", has: none; arrays have @length and [i])"#,
            ),
            (
                field(NameKind::Field, "count", "java.lang.String", 1, Some(&["hash", "value"]), Some(STRING)),
                "java.lang.String has no field 'count' (its fields: hash, value); strings of this JVM keep their text in value: use toString(s) for the text, @length for its length",
                r#""java.lang.String" has no field "count" (its fields: "hash", "value"); strings of this JVM keep their text in value: use toString(s) for the text, @length for its length"#,
            ),
            (
                field(NameKind::Static, "NOPE", "com.example.Item", 1, Some(&["SHARED_HOLDER"]), None),
                "com.example.Item has no static field 'NOPE' (its statics, with its superclasses': SHARED_HOLDER)",
                r#""com.example.Item" has no static field "NOPE" (its statics, with its superclasses': "SHARED_HOLDER")"#,
            ),
            (
                field(NameKind::Static, "NOPE", "com.example.Item", 2, Some(&[]), None),
                "none of the 2 classes of the source has a static field 'NOPE' (the first, com.example.Item, has, with its superclasses': none)",
                r#"none of the 2 classes of the source has a static field "NOPE" (the first, "com.example.Item", has, with its superclasses': none)"#,
            ),
            (
                UnknownName {
                    kind: NameKind::Static,
                    name: "SHARED_HOLDR".into(),
                    class_name: None,
                    class_count: None,
                    fields: None,
                    suggestions: names(&["SHARED_HOLDER"]),
                    note: Some(CLASS_OBJECT.into()),
                },
                "no class of this dump has a static field 'SHARED_HOLDR' (the fields of a class object are its class's statics); did you mean SHARED_HOLDER?",
                r#"no class of this dump has a static field "SHARED_HOLDR" (the fields of a class object are its class's statics); did you mean "SHARED_HOLDER"?"#,
            ),
            (
                UnknownName {
                    kind: NameKind::Static,
                    name: "ZZZ".into(),
                    class_name: None,
                    class_count: None,
                    fields: None,
                    suggestions: names(&[]),
                    note: Some(CLASS_OBJECT.into()),
                },
                "no class of this dump has a static field 'ZZZ' (the fields of a class object are its class's statics)",
                r#"no class of this dump has a static field "ZZZ" (the fields of a class object are its class's statics)"#,
            ),
        ]
    }

    #[test]
    fn each_refusal_is_worded_once_plain_and_quoted() {
        for (unknown, plain, quoted) in cases() {
            assert_eq!(unknown.message(Quoting::Plain), plain);
            assert_eq!(unknown.message(Quoting::Json), quoted);
            // The executor's error says the plain words; the native boundary carries the quoted.
            let e = ExecError::unknown_name(unknown.clone());
            assert_eq!((e.code, e.message.as_str()), (if unknown.kind == NameKind::Class { ERR_UNKNOWN_CLASS } else { ERR_UNKNOWN_FIELD }, plain));
            let json: serde_json::Value = serde_json::from_str(&unknown.to_json()).unwrap();
            assert_eq!(json["quotedMessage"], quoted);
            assert_eq!(json["name"], unknown.name.as_str());
        }
    }

    /// A name of the dump may hold any text: quoted, each reads as one JSON string, whatever it
    /// holds (a quote, a backslash, a line break, a NUL), and nothing of it escapes its quotes.
    #[test]
    fn a_pattern_no_class_matches_is_worded_as_one() {
        let unknown = UnknownName {
            kind: NameKind::Pattern,
            name: "Nope\".*".to_string(),
            class_name: None,
            class_count: None,
            fields: None,
            suggestions: None,
            note: Some("a note".to_string()),
        };
        assert_eq!(unknown.message(Quoting::Plain), "no class in this dump matches \"Nope\".*\" (a note)");
        assert_eq!(unknown.message(Quoting::Json), "no class in this dump matches \"Nope\\\".*\" (a note)");
        let e = ExecError::unknown_name(unknown);
        assert_eq!(e.code, ERR_UNKNOWN_CLASS);
        assert!(e.unknown.unwrap().to_json().contains("\"kind\":\"pattern\""));
    }

    #[test]
    fn quoted_names_are_json_strings() {
        let hostile = "a\"b\\c\nd\0e";
        let escaped = r#""a\"b\\c\nd\u0000e""#;
        let unknown = field(NameKind::Field, hostile, hostile, 1, Some(&[hostile, "x"]), None);
        assert_eq!(unknown.message(Quoting::Json), format!("{escaped} has no field {escaped} (its fields: {escaped}, \"x\")"));
        // Plain: as written (the CLI shows control characters its own way).
        assert_eq!(unknown.message(Quoting::Plain), format!("{hostile} has no field '{hostile}' (its fields: {hostile}, x)"));
        let unknown = class(hostile, &[hostile], None);
        assert_eq!(unknown.message(Quoting::Json), format!("class {escaped} is not in this dump; did you mean {escaped}?"));
        // The JSON the native boundary carries holds no raw NUL (the addon's separator).
        assert!(!unknown.to_json().contains('\0'));
    }
}
