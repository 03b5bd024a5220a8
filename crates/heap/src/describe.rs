//! How an object cell is shown: its address, its class name and a MAT-style label
//! (`java.lang.String @ 0x7f01  "hello"`, `char[10] @ 0x…`, `class java.util.HashMap @ 0x…`).
//! A String's text in its label has `"` and `\` escaped by a backslash (`"say \"hi\""`).

use crate::{Heap, ObjIdx, ObjectKind};

/// Strings longer than this are cut in labels (with `…`).
const LABEL_TEXT_MAX: usize = 100;

/// `(address, class_name, label)` of an object. For a class object `class_name` is the name
/// of the class it describes (tables show `classof(x)` by that name).
pub fn describe(heap: &Heap, o: ObjIdx) -> (String, String, String) {
    let address = format!("0x{:x}", heap.object_id(o));
    let class_name = heap.class(heap.class_of(o)).name.clone();
    match heap.object_kind(o) {
        ObjectKind::Class => {
            let described = heap.class_described_by(o).map(|c| heap.class(c).name.clone()).unwrap_or(class_name);
            let label = format!("class {described} @ {address}");
            (address, described, label)
        }
        ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_) => {
            let len = heap.array_length(o).unwrap_or(0);
            let shown = match class_name.find("[]") {
                Some(i) => format!("{}[{len}]{}", &class_name[..i], &class_name[i + 2..]),
                None => format!("{class_name}[{len}]"),
            };
            let label = format!("{shown} @ {address}");
            (address, class_name, label)
        }
        ObjectKind::Instance => {
            let mut label = format!("{class_name} @ {address}");
            if let Some(text) = heap.string_value(o) {
                label.push_str("  \"");
                let mut chars = text.chars();
                for c in chars.by_ref().take(LABEL_TEXT_MAX) {
                    // The text ends where the quotes do: a `"` or `\` in it is escaped by a
                    // backslash, as the report's thread labels are (`thread "say \"hi\""`).
                    // Control characters stay as they are; each output shows them its way.
                    if matches!(c, '"' | '\\') {
                        label.push('\\');
                    }
                    label.push(c);
                }
                if chars.next().is_some() {
                    label.push('…');
                }
                label.push('"');
            }
            (address, class_name, label)
        }
    }
}
