//! How much memory the process can still take without pushing other pages out: the smaller
//! of the machine's available memory and what is left below the limit of every memory
//! cgroup the process is in (v1 and v2). Work that only pays while memory is plentiful
//! (faulting pages in ahead of a pass, `Pages::prefault`) asks first: inside a tight limit
//! it would evict the pages the pass itself reads.

use std::path::Path;

/// Bytes the process can still take (`u64::MAX` where nothing says).
pub fn memory_to_spare() -> u64 {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| mem_available(&m)).unwrap_or(u64::MAX);
    let groups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let limited = memory_cgroups(&groups)
        .into_iter()
        .filter_map(|(dir, v2)| cgroup_spare(Path::new("/sys/fs/cgroup"), &dir, v2))
        .min()
        .unwrap_or(u64::MAX);
    available.min(limited)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The memory cgroups of a `/proc/self/cgroup` text: (directory under the cgroup mount, v2?).
fn memory_cgroups(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if controllers.is_empty() {
            out.push((path.trim_start_matches('/').to_string(), true));
        } else if controllers.split(',').any(|c| c == "memory") {
            out.push((format!("memory/{}", path.trim_start_matches('/')), false));
        }
    }
    out
}

/// The least room left below a limit in `dir` (under `mount`) and its parents; None where
/// none of them has a limit.
fn cgroup_spare(mount: &Path, dir: &str, v2: bool) -> Option<u64> {
    let (limit_file, usage_file) = if v2 { ("memory.max", "memory.current") } else { ("memory.limit_in_bytes", "memory.usage_in_bytes") };
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).ok().and_then(|s| s.trim().parse::<u64>().ok());
    let mut best: Option<u64> = None;
    let mut d = mount.join(dir);
    while d.starts_with(mount) {
        // "max" (v2) and the huge v1 default do not parse or exceed any real memory.
        if let (Some(limit), Some(usage)) = (read(&d, limit_file), read(&d, usage_file)) {
            if limit < 1 << 60 {
                let room = limit.saturating_sub(usage);
                best = Some(best.map_or(room, |b| b.min(room)));
            }
        }
        if !d.pop() {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_available_memory_and_the_memory_cgroups() {
        assert_eq!(mem_available("MemTotal: 100 kB\nMemAvailable:   2048 kB\n"), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 100 kB\n"), None);
        let v1 = "9:name=systemd:/\n4:cpu,cpuacct:/x\n3:memory:/bench/run\n";
        assert_eq!(memory_cgroups(v1), vec![("memory/bench/run".to_string(), false)]);
        assert_eq!(memory_cgroups("0::/user.slice/a\n"), vec![("user.slice/a".to_string(), true)]);
    }

    #[test]
    fn the_tightest_limit_of_a_cgroup_and_its_parents_counts() {
        let mount = tempfile::tempdir().unwrap();
        let write = |dir: &str, limit: &str, usage: &str| {
            let d = mount.path().join(dir);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("memory.max"), limit).unwrap();
            std::fs::write(d.join("memory.current"), usage).unwrap();
        };
        write("", "max\n", "5000\n");
        write("outer", "1000\n", "600\n");
        write("outer/inner", "max\n", "100\n");
        assert_eq!(cgroup_spare(mount.path(), "outer/inner", true), Some(400));
        assert_eq!(cgroup_spare(mount.path(), "", true), None);
        write("over", "100\n", "150\n");
        assert_eq!(cgroup_spare(mount.path(), "over", true), Some(0));
    }
}
