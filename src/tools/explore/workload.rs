//! The workload behind "per lock hold", in words: who contends, how long
//! they hold and think, how often and how long they pause, how long a
//! trial lasts and how many there are. A number per hold means nothing
//! without it, so the explorer prints it beside the results and the CSV
//! carries it in its comment lines.

use super::plan::{Axis, Check, Plan};
use super::profile::PauseProfile;
use super::trial::TRIAL_MS;
use crate::sim::latency::{latency_words, preset_of};
use crate::sim::TTL_MS_DEFAULT;
use crate::words::thousands;

/// Pauses per 1,000 hours as pauses per hour, for people: "120", "0.042".
pub fn rate_text(per_kilohour: u64) -> String {
    let whole = per_kilohour / 1_000;
    match per_kilohour % 1_000 {
        0 => thousands(whole),
        part => format!("{}.{}", whole, format!("{part:03}").trim_end_matches('0')),
    }
}

/// A pause length in microseconds, for people: "250 µs", "100 ms", "2 s".
pub fn micros_text(us: u64) -> String {
    let trimmed = |n: u64, unit: u64, name: &str| {
        let part = n % unit;
        if part == 0 {
            format!("{} {name}", thousands(n / unit))
        } else {
            let digits = unit.ilog10() as usize;
            let fraction = format!("{part:0digits$}");
            format!("{}.{} {name}", n / unit, fraction.trim_end_matches('0'))
        }
    };
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => trimmed(us, 1_000, "ms"),
        _ => trimmed(us, 1_000_000, "s"),
    }
}

/// A profile's numbers: "120 an hour per client, median 100 ms, p99 2 s,
/// none longer than 20 s", or for a histogram "120 an hour per client,
/// lengths from a histogram of 48 (20 ms ×5, 100 ms ×40, 2 s ×3), ...".
pub fn pauses_text(profile: &PauseProfile) -> String {
    let mut s = format!("{} an hour per client, ", rate_text(profile.per_kilohour));
    match &profile.histogram {
        Some(h) => {
            let bins: Vec<String> = h
                .bins()
                .iter()
                .map(|&(us, count)| format!("{} ×{}", micros_text(us), thousands(count.into())))
                .collect();
            s.push_str(&format!(
                "lengths drawn from a histogram of {} observed ({})",
                thousands(h.total()),
                bins.join(", ")
            ));
        }
        None => s.push_str(&format!(
            "log-normal lengths, median {}, p99 {}",
            micros_text(profile.median_us),
            micros_text(profile.p99_us)
        )),
    }
    match profile.max_us {
        Some(max) => s.push_str(&format!(
            ", none longer than {} (a longer draw lasts {0})",
            micros_text(max)
        )),
        None => s.push_str(", no longest pause"),
    }
    s
}

/// The faults besides pauses the plan injects, each as its rate and its
/// field's name ("600 partitions an hour"), in the plan's order.
fn fault_rates(plan: &Plan) -> Vec<String> {
    plan.faults
        .rates()
        .iter()
        .filter(|(_, rate)| *rate > 0)
        .map(|(kind, rate)| format!("{} {}", thousands(*rate), kind.field()))
        .collect()
}

/// What one trial of the plan is, and how many there are: the line the
/// explorer shows beside its results.
pub fn workload_text(plan: &Plan) -> String {
    let think_s = |ms: u64| micros_text(ms * 1_000);
    let check = match plan.check {
        Check::AtAcquire => "checks its lease once, when granted",
        Check::BeforeWrite => "checks its lease again just before writing",
    };
    let axis = match &plan.axis {
        Axis::P99Us(_) => "; each row replaces the p99",
        Axis::PerKilohour(_) => "; each row replaces the rate",
        Axis::MaxUs(_) => "; each row sets the longest pause",
        Axis::System(_) => "; each row is a system, meeting the same pauses",
    };
    let faults = fault_rates(plan);
    let faults = if faults.is_empty() {
        String::new()
    } else {
        format!(
            " Faults besides pauses: {}, each lasting up to {}.",
            faults.join(", "),
            micros_text(plan.faults.longest_ms * 1_000)
        )
    };
    format!(
        "Workload per hold: {} clients contend for one lock; each thinks between holds \
         (0 to {}, mean {}), holds it {}, writes once and releases; it {check}. \
         Renewal {}; latency {}. Pauses ({}): {}{axis}.{faults} Each trial runs {} of virtual time, \
         then lets holds under way finish; {} trials per cell, seed {}.",
        plan.clients,
        think_s(plan.think_ms * 2),
        think_s(plan.think_ms),
        micros_text(plan.hold_ms * 1_000),
        if plan.renewal { "on" } else { "off" },
        latency_text(plan),
        plan.pauses.name(),
        pauses_text(&plan.profile()),
        micros_text(TRIAL_MS * 1_000),
        thousands(u64::from(plan.trials)),
        plan.seed.0,
    )
}

/// The latency the trials run at, in the page's words and with its
/// preset's name: "real (one zone)", "real + 70 ms round trip
/// (cross-region)".
pub fn latency_text(plan: &Plan) -> String {
    let config = plan.config(TTL_MS_DEFAULT, plan.seed);
    let mut words = latency_words(&config);
    if let Some(preset) = preset_of(&config) {
        words.push_str(" (");
        words.push_str(&preset.name.to_lowercase());
        words.push(')');
    }
    words
}

/// The plan's system, or its systems on the rows.
pub fn systems_text(plan: &Plan) -> String {
    let names: Vec<&str> = plan.systems().iter().map(|b| b.name()).collect();
    match names.as_slice() {
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last} (one a row)", rest.join(", ")),
        [] => String::new(),
    }
}

/// Fencing as the settings say it: "off", "on", or "on (highest token
/// seen)" when the plan names a mode (each system's own otherwise).
pub fn fencing_text(plan: &Plan) -> String {
    match (plan.fencing.is_on(), plan.fence.is_documented()) {
        (false, _) => "off".to_string(),
        (true, true) => "on".to_string(),
        (true, false) => format!("on ({})", plan.fence.label()),
    }
}

/// The settings an answer was run at, in one line: its first line on the
/// page, and the CSV's first comment line. "Redis, TTL 1 s, 5 s or 30 s
/// (the columns), rows p99 20 ms or 1 s, latency 10x real, fencing on,
/// renewal on, JVM G1 pauses, no other faults, 1,000 trials per cell,
/// seed 1, rates at 60 locks an hour".
pub fn settings_text(plan: &Plan) -> String {
    let or_list = |items: Vec<String>| match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    let ttls = or_list(
        plan.ttls_ms
            .iter()
            .map(|&ms| micros_text(ms * 1_000))
            .collect(),
    );
    let rows = match &plan.axis {
        Axis::P99Us(v) => format!(
            ", rows p99 {}",
            or_list(v.iter().map(|&us| micros_text(us)).collect())
        ),
        Axis::PerKilohour(v) => format!(
            ", rows {} pauses an hour",
            or_list(v.iter().map(|&r| rate_text(r)).collect())
        ),
        Axis::MaxUs(v) => format!(
            ", rows longest pause {}",
            or_list(v.iter().map(|&us| micros_text(us)).collect())
        ),
        Axis::System(_) => String::new(),
    };
    let faults = fault_rates(plan);
    let faults = if faults.is_empty() {
        "no other faults".to_string()
    } else {
        faults.join(", ")
    };
    format!(
        "{}, TTL {ttls} (the columns){rows}, latency {}, fencing {}, renewal {}, {} pauses, {faults}, {} trials per cell, seed {}, rates at {} locks an hour",
        systems_text(plan),
        latency_text(plan),
        fencing_text(plan),
        if plan.renewal { "on" } else { "off" },
        plan.pauses.name(),
        thousands(u64::from(plan.trials)),
        plan.seed.0,
        thousands(plan.locks_per_hour),
    )
}

/// The CSV's comment lines, before its header: the settings, the
/// workload, and how the intervals were made. Each line starts with `#`.
pub fn csv_comment(plan: &Plan) -> String {
    let mut s = format!(
        "# Settings: {}\n# {}\n",
        settings_text(plan),
        workload_text(plan)
    );
    if let Some(h) = plan.profile().histogram {
        s.push_str(&format!("# pause histogram (ms:count): {}\n", h.compact()));
    }
    s.push_str(
        "# Intervals: 95%, over trials (events in one trial are not independent): \
         the Wilson interval over holds / design_effect.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::super::histogram::ms_text;
    use super::*;

    #[test]
    fn lengths_read_as_people_write_them() {
        assert_eq!(ms_text(1_500), "1.5");
        assert_eq!(micros_text(20_000_000), "20 s");
        assert_eq!(rate_text(42), "0.042");
    }
}
