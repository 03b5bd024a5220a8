//! Tag values and basic types of the HPROF format (hprof-format.md §3, §4, §7–§9).

/// Top-level record tags.
pub mod tag {
    pub const UTF8: u8 = 0x01;
    pub const LOAD_CLASS: u8 = 0x02;
    pub const UNLOAD_CLASS: u8 = 0x03;
    pub const FRAME: u8 = 0x04;
    pub const TRACE: u8 = 0x05;
    pub const ALLOC_SITES: u8 = 0x06;
    pub const HEAP_SUMMARY: u8 = 0x07;
    pub const START_THREAD: u8 = 0x0A;
    pub const END_THREAD: u8 = 0x0B;
    pub const HEAP_DUMP: u8 = 0x0C;
    pub const CPU_SAMPLES: u8 = 0x0D;
    pub const CONTROL_SETTINGS: u8 = 0x0E;
    pub const HEAP_DUMP_SEGMENT: u8 = 0x1C;
    pub const HEAP_DUMP_END: u8 = 0x2C;

    /// Every top-level tag a known writer produces.
    pub fn is_known(t: u8) -> bool {
        matches!(t, 0x01..=0x07 | 0x0A..=0x0E | 0x1C | 0x2C)
    }

    /// The record's name as hprof-format.md spells it (`None` for an unknown tag).
    pub fn name(t: u8) -> Option<&'static str> {
        Some(match t {
            UTF8 => "UTF8",
            LOAD_CLASS => "LOAD CLASS",
            UNLOAD_CLASS => "UNLOAD CLASS",
            FRAME => "FRAME",
            TRACE => "TRACE",
            ALLOC_SITES => "ALLOC SITES",
            HEAP_SUMMARY => "HEAP SUMMARY",
            START_THREAD => "START THREAD",
            END_THREAD => "END THREAD",
            HEAP_DUMP => "HEAP DUMP",
            CPU_SAMPLES => "CPU SAMPLES",
            CONTROL_SETTINGS => "CONTROL SETTINGS",
            HEAP_DUMP_SEGMENT => "HEAP DUMP SEGMENT",
            HEAP_DUMP_END => "HEAP DUMP END",
            _ => return None,
        })
    }
}

/// Heap dump sub-record tags.
pub mod sub {
    /// Every sub-record tag the segment scan reads (`subrecords::scan_segment`).
    pub fn is_known(t: u8) -> bool {
        matches!(
            t,
            ROOT_UNKNOWN
                | ROOT_JNI_GLOBAL..=ROOT_THREAD_OBJECT
                | CLASS_DUMP..=PRIM_ARRAY_DUMP
                | ROOT_INTERNED_STRING..=ROOT_JNI_MONITOR
                | UNREACHABLE
                | PRIM_ARRAY_NODATA
                | HEAP_DUMP_INFO
        )
    }

    pub const ROOT_UNKNOWN: u8 = 0xFF;
    pub const ROOT_JNI_GLOBAL: u8 = 0x01;
    pub const ROOT_JNI_LOCAL: u8 = 0x02;
    pub const ROOT_JAVA_FRAME: u8 = 0x03;
    pub const ROOT_NATIVE_STACK: u8 = 0x04;
    pub const ROOT_STICKY_CLASS: u8 = 0x05;
    pub const ROOT_THREAD_BLOCK: u8 = 0x06;
    pub const ROOT_MONITOR_USED: u8 = 0x07;
    pub const ROOT_THREAD_OBJECT: u8 = 0x08;
    pub const CLASS_DUMP: u8 = 0x20;
    pub const INSTANCE_DUMP: u8 = 0x21;
    pub const OBJ_ARRAY_DUMP: u8 = 0x22;
    pub const PRIM_ARRAY_DUMP: u8 = 0x23;
    // Android (JAVA PROFILE 1.0.3) extensions.
    pub const ROOT_INTERNED_STRING: u8 = 0x89;
    pub const ROOT_FINALIZING: u8 = 0x8A;
    pub const ROOT_DEBUGGER: u8 = 0x8B;
    pub const ROOT_REFERENCE_CLEANUP: u8 = 0x8C;
    pub const ROOT_VM_INTERNAL: u8 = 0x8D;
    pub const ROOT_JNI_MONITOR: u8 = 0x8E;
    pub const UNREACHABLE: u8 = 0x90;
    pub const PRIM_ARRAY_NODATA: u8 = 0xC3;
    pub const HEAP_DUMP_INFO: u8 = 0xFE;
}

/// A basic type code of a field, static or primitive array (hprof-format.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BasicType {
    Object,
    Boolean,
    Char,
    Float,
    Double,
    Byte,
    Short,
    Int,
    Long,
}

impl BasicType {
    /// Decodes a type code; None for codes no writer uses (0, 1, 3, > 11).
    pub fn from_code(code: u8) -> Option<BasicType> {
        Some(match code {
            2 => BasicType::Object,
            4 => BasicType::Boolean,
            5 => BasicType::Char,
            6 => BasicType::Float,
            7 => BasicType::Double,
            8 => BasicType::Byte,
            9 => BasicType::Short,
            10 => BasicType::Int,
            11 => BasicType::Long,
            _ => return None,
        })
    }

    pub fn code(self) -> u8 {
        match self {
            BasicType::Object => 2,
            BasicType::Boolean => 4,
            BasicType::Char => 5,
            BasicType::Float => 6,
            BasicType::Double => 7,
            BasicType::Byte => 8,
            BasicType::Short => 9,
            BasicType::Int => 10,
            BasicType::Long => 11,
        }
    }

    /// Width in the file; references take `id_size` bytes.
    #[inline]
    pub fn file_size(self, id_size: u32) -> u32 {
        match self {
            BasicType::Object => id_size,
            BasicType::Boolean | BasicType::Byte => 1,
            BasicType::Char | BasicType::Short => 2,
            BasicType::Float | BasicType::Int => 4,
            BasicType::Double | BasicType::Long => 8,
        }
    }

    /// Java spelling of a primitive type (`int`), `Object` for references.
    pub fn java_name(self) -> &'static str {
        match self {
            BasicType::Object => "Object",
            BasicType::Boolean => "boolean",
            BasicType::Char => "char",
            BasicType::Float => "float",
            BasicType::Double => "double",
            BasicType::Byte => "byte",
            BasicType::Short => "short",
            BasicType::Int => "int",
            BasicType::Long => "long",
        }
    }

    /// Primitive element types in code order 4..=11 (index = code - 4).
    pub const PRIMITIVES: [BasicType; 8] = [
        BasicType::Boolean,
        BasicType::Char,
        BasicType::Float,
        BasicType::Double,
        BasicType::Byte,
        BasicType::Short,
        BasicType::Int,
        BasicType::Long,
    ];
}

/// Big-endian reads from a slice the caller has bounds-checked.
#[inline(always)]
pub fn be_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
#[inline(always)]
pub fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline(always)]
pub fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
}
/// An identifier of `id_size` (4 or 8) bytes.
#[inline(always)]
pub fn be_id(b: &[u8], at: usize, id_size: u32) -> u64 {
    if id_size == 8 {
        be_u64(b, at)
    } else {
        be_u32(b, at) as u64
    }
}
/// A raw value of type `ty` as an unsigned bit pattern (references are ids).
#[inline]
pub fn be_value(b: &[u8], at: usize, ty: BasicType, id_size: u32) -> u64 {
    match ty.file_size(id_size) {
        1 => b[at] as u64,
        2 => be_u16(b, at) as u64,
        4 => be_u32(b, at) as u64,
        _ => be_u64(b, at),
    }
}
