//! The record walk: the non-heap records the index keeps (strings, LOAD CLASS, frames, traces,
//! thread starts).

use super::*;

/// The non-heap records the index keeps.
#[derive(Default)]
pub(super) struct Recs {
    pub(super) id_size: u32,
    pub(super) utf8: FxHashMap<u64, (u64, u32)>,
    /// class id -> (first LOAD CLASS serial, name id)
    pub(super) load: FxHashMap<u64, u64>,
    pub(super) serial_class: FxHashMap<u32, u64>,
    pub(super) frames: FxHashMap<u64, (u64, u64, u64, u32, i32)>,
    pub(super) traces: FxHashMap<u32, Vec<u64>>,
    pub(super) starts: Vec<(u32, u64, u32, u64)>,
}

impl Recs {
    pub(super) fn visit(&mut self, r: Record<'_>) {
        match r {
            Record::Utf8 { id, body_off, text } => {
                self.utf8.entry(id).or_insert((body_off, text.len() as u32));
            }
            Record::LoadClass { serial, class_id, name_id, .. } => {
                self.load.entry(class_id).or_insert(name_id);
                self.serial_class.insert(serial, class_id);
            }
            Record::Frame { id, method_name_id, signature_id, source_file_id, class_serial, line } => {
                self.frames.insert(id, (method_name_id, signature_id, source_file_id, class_serial, line));
            }
            Record::Trace { serial, count, frame_ids, .. } => {
                let ids = self.id_size as usize;
                let v = (0..count as usize).map(|i| be_id(frame_ids, i * ids, self.id_size)).collect();
                self.traces.insert(serial, v);
            }
            Record::StartThread { serial, object_id, trace_serial, name_id, .. } => {
                self.starts.push((serial, object_id, trace_serial, name_id))
            }
            _ => {}
        }
    }

    pub(super) fn text(&self, src: &Source, id: u64) -> Option<String> {
        let &(off, len) = self.utf8.get(&id)?;
        Some(heapql_hprof::mutf8::decode(&src.bytes(off, len as usize)).into_owned())
    }
}

/// Walks the top-level records, keeping what the index needs; returns them with the file's
/// layout (its heap dumps and their segments).
pub(super) fn read_records(src: &Source, header: &Header, ctl: Control<'_>) -> Result<(Recs, Layout), HErr> {
    let mut recs = Recs { id_size: header.id_size, ..Default::default() };
    let layout = walk(src, header, ctl, &mut |r: Record<'_>| recs.visit(r))?;
    Ok((recs, layout))
}
