//! Class names: HotSpot writes the VM's internal form (`java/lang/String`, `[I`,
//! `[[Ljava/lang/Object;`), the JVMTI agent and Android the Java form. We show the Java form
//! (hprof-format.md §14).

/// Java-form name of a class from either spelling.
pub fn java_name(raw: &str) -> String {
    let dims = raw.bytes().take_while(|&b| b == b'[').count();
    if dims > 0 {
        let elem = &raw[dims..];
        let base = match elem {
            "Z" => "boolean".to_string(),
            "C" => "char".to_string(),
            "F" => "float".to_string(),
            "D" => "double".to_string(),
            "B" => "byte".to_string(),
            "S" => "short".to_string(),
            "I" => "int".to_string(),
            "J" => "long".to_string(),
            e if e.starts_with('L') && e.ends_with(';') && e.len() > 2 => plain(&e[1..e.len() - 1]),
            e => plain(e),
        };
        return format!("{}{}", base, "[]".repeat(dims));
    }
    plain(raw)
}

/// `a/b/C` → `a.b.C`, keeping a hidden class's `/0x...` suffix (`Foo$$Lambda/0x0000...`) as
/// the JVM prints it.
fn plain(s: &str) -> String {
    match s.find("/0x") {
        Some(p) => format!("{}{}", s[..p].replace('/', "."), &s[p..]),
        None => s.replace('/', "."),
    }
}

#[cfg(test)]
mod tests {
    use super::java_name;

    #[test]
    fn both_spellings() {
        assert_eq!(java_name("java/lang/String"), "java.lang.String");
        assert_eq!(java_name("java.lang.String"), "java.lang.String");
        assert_eq!(java_name("[B"), "byte[]");
        assert_eq!(java_name("[[I"), "int[][]");
        assert_eq!(java_name("[Ljava/lang/Object;"), "java.lang.Object[]");
        assert_eq!(java_name("[[Ljava/lang/Object;"), "java.lang.Object[][]");
        assert_eq!(java_name("byte[]"), "byte[]");
        assert_eq!(java_name("a/Outer$Inner"), "a.Outer$Inner");
        assert_eq!(java_name("a/B$$Lambda/0x0000000801001200"), "a.B$$Lambda/0x0000000801001200");
    }
}
