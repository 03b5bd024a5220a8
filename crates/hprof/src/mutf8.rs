//! Names in UTF8 records (hprof-format.md §5.1): HotSpot writes the JVM's symbols as *modified*
//! UTF-8 — NUL as `C0 80`, a character outside the Basic Multilingual Plane as its two UTF-16
//! surrogates of three bytes each. Read as standard UTF-8, such a character became six
//! replacement characters (`Sup𝔘` read `Sup������`, so the class could not be named in a query).

use std::borrow::Cow;

/// The text of a name: standard UTF-8 as it is; otherwise decoded as modified UTF-8 (which also
/// takes standard four-byte sequences, as other writers use them), a lone surrogate or a byte
/// that starts no character becoming U+FFFD.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(decode_modified(bytes)),
    }
}

/// Continuation byte `b` (`10xxxxxx`)?
fn cont(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn decode_modified(b: &[u8]) -> String {
    // UTF-16 units first: a surrogate pair written as two three-byte sequences then joins into
    // one character, and a surrogate left alone becomes U+FFFD, both by `from_utf16_lossy`.
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let rest = &b[i + 1..];
        if c < 0x80 {
            units.push(c as u16);
            i += 1;
        } else if c & 0xE0 == 0xC0 && rest.first().is_some_and(|&x| cont(x)) {
            let v = ((c as u16 & 0x1F) << 6) | (rest[0] as u16 & 0x3F);
            // Overlong forms other than NUL's `C0 80` are not characters.
            units.push(if v >= 0x80 || v == 0 { v } else { 0xFFFD });
            i += 2;
        } else if c & 0xF0 == 0xE0 && rest.len() >= 2 && cont(rest[0]) && cont(rest[1]) {
            let v = ((c as u16 & 0x0F) << 12) | ((rest[0] as u16 & 0x3F) << 6) | (rest[1] as u16 & 0x3F);
            units.push(if v >= 0x800 { v } else { 0xFFFD });
            i += 3;
        } else if c & 0xF8 == 0xF0 && rest.len() >= 3 && rest[..3].iter().all(|&x| cont(x)) {
            let v = ((c as u32 & 0x07) << 18) | ((rest[0] as u32 & 0x3F) << 12) | ((rest[1] as u32 & 0x3F) << 6) | (rest[2] as u32 & 0x3F);
            match char::from_u32(v).filter(|_| v >= 0x1_0000) {
                Some(ch) => units.extend_from_slice(ch.encode_utf16(&mut [0; 2])),
                None => units.push(0xFFFD),
            }
            i += 4;
        } else {
            units.push(0xFFFD);
            i += 1;
        }
    }
    String::from_utf16_lossy(&units)
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn standard_utf8_is_borrowed_as_it_is() {
        assert!(matches!(decode("café.Ωmega$Ünï".as_bytes()), std::borrow::Cow::Borrowed("café.Ωmega$Ünï")));
        assert_eq!(decode("a😀b".as_bytes()), "a😀b");
    }

    #[test]
    fn surrogate_pairs_and_nul_of_modified_utf8() {
        // `Sup𝔘` as HotSpot writes it: U+1D518 as the surrogates D835 DD18, three bytes each.
        assert_eq!(decode(&[b'S', b'u', b'p', 0xED, 0xA0, 0xB5, 0xED, 0xB4, 0x98]), "Sup𝔘");
        assert_eq!(decode(&[b'a', 0xC0, 0x80, b'b']), "a\0b");
        // Two characters outside the plane in a row, and one beside standard text.
        let two = [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xED, 0xA0, 0xB5, 0xED, 0xB4, 0x98, b'!'];
        assert_eq!(decode(&two), "😀𝔘!");
    }

    #[test]
    fn what_is_no_character_becomes_a_replacement() {
        // A high surrogate alone, a low one alone, a stray continuation byte, a cut sequence.
        assert_eq!(decode(&[b'x', 0xED, 0xA0, 0xB5, b'y']), "x\u{FFFD}y");
        assert_eq!(decode(&[0xED, 0xB4, 0x98]), "\u{FFFD}");
        assert_eq!(decode(&[b'a', 0x80, b'b']), "a\u{FFFD}b");
        assert_eq!(decode(&[b'a', 0xE2, 0x82]), "a\u{FFFD}\u{FFFD}");
        // An overlong two-byte form of 'A' is no character either.
        assert_eq!(decode(&[0xC1, 0x81]), "\u{FFFD}");
    }
}
