//! CPU time and voluntary context switches of this process's threads,
//! grouped by role (read from `/proc/self/task`), so a round can say where
//! the service's and the client's time per action went.

use std::collections::BTreeMap;

/// Each live thread's role, CPU seconds and voluntary context switches.
pub type Sample = BTreeMap<u64, (&'static str, f64, u64)>;

/// The role of a thread from its name (Linux keeps 15 bytes of it).
fn role(comm: &str) -> &'static str {
    if comm.starts_with("tokio-rt-worker") || comm.starts_with("posthorn-db") {
        "transactions"
    } else if comm.starts_with("actix-rt|system") {
        "HTTP workers"
    } else if comm.starts_with("load-") {
        "load client"
    } else {
        "other"
    }
}

/// Every live thread of this process.
pub fn sample() -> Sample {
    let mut sample = Sample::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return sample;
    };
    for task in tasks.flatten() {
        let path = task.path();
        let (Ok(stat), Ok(status)) = (
            std::fs::read_to_string(path.join("stat")),
            std::fs::read_to_string(path.join("status")),
        ) else {
            continue;
        };
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let comm = head.split_once(" (").map_or("", |(_, c)| c);
        // utime and stime, the 12th and 13th fields after "pid (comm) ".
        let ticks: u64 = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .filter_map(|f| f.parse::<u64>().ok())
            .sum();
        let switches = status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        let Some(tid) = path.file_name().and_then(|n| n.to_str()?.parse().ok()) else {
            continue;
        };
        sample.insert(tid, (role(comm), ticks as f64 / 100.0, switches));
    }
    sample
}

/// "role 0.12 ms, 3.4 switches; …" per unit of work between two samples,
/// thread by thread, summed by role. A thread that ended in between is
/// not counted; the blocking pool ends only threads idle for seconds.
pub fn per_unit(before: &Sample, after: &Sample, units: f64) -> String {
    if units <= 0.0 {
        return "n/a".into();
    }
    let mut roles: BTreeMap<&str, (f64, u64)> = BTreeMap::new();
    for (tid, (role, cpu, switches)) in after {
        let (_, cpu0, switches0) = before.get(tid).copied().unwrap_or_default();
        let sum = roles.entry(role).or_default();
        sum.0 += (cpu - cpu0).max(0.0);
        sum.1 += switches.saturating_sub(switches0);
    }
    roles
        .iter()
        .filter(|(_, (cpu, _))| *cpu > 0.0)
        .map(|(role, (cpu, switches))| {
            let ms = cpu * 1e3 / units;
            format!(
                "{role} {ms:.2} ms, {:.1} switches",
                *switches as f64 / units
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
