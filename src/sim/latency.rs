//! How far apart the parties are: the latency presets a visitor picks, and
//! the words that say at what latency a time in milliseconds was measured.
//!
//! Each system's own delays (`LockSystem::LATENCY_US`, backends.md) are one
//! LAN round trip with the system's work in it (fsync, a quorum write). A
//! preset either slows them all down by `latency_scale` so messages can be
//! watched, or keeps them real and adds a network round trip between
//! parties in different zones or regions. Figures and sources: docs/latency.md.

use super::scenario::Config;

/// One choice in the page's latency setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatencyPreset {
    pub name: &'static str,
    pub latency_scale: u32,
    pub network_rtt_ms: u32,
}

/// The page's default first: the stories, tours and questions are timed
/// at it. Round trips: docs/latency.md.
pub const LATENCY_PRESETS: [LatencyPreset; 4] = [
    LatencyPreset {
        name: "Slowed 10x",
        latency_scale: 10,
        network_rtt_ms: 0,
    },
    // Same host and one zone differ by a fraction of a millisecond, below
    // the simulator's 1 ms clock and small beside the systems' own fsyncs.
    LatencyPreset {
        name: "One zone",
        latency_scale: 1,
        network_rtt_ms: 0,
    },
    LatencyPreset {
        name: "Cross-zone",
        latency_scale: 1,
        network_rtt_ms: 2,
    },
    LatencyPreset {
        name: "Cross-region",
        latency_scale: 1,
        network_rtt_ms: 70,
    },
];

impl LatencyPreset {
    /// The configuration with this preset's latency, all else kept.
    pub fn apply(&self, config: &Config) -> Config {
        Config {
            latency_scale: self.latency_scale,
            network_rtt_ms: self.network_rtt_ms,
            ..config.clone()
        }
    }
}

/// The preset a configuration runs at, if any (a link may carry any scale).
pub fn preset_of(config: &Config) -> Option<&'static LatencyPreset> {
    LATENCY_PRESETS.iter().find(|p| {
        p.latency_scale == config.latency_scale && p.network_rtt_ms == config.network_rtt_ms
    })
}

/// What a time in milliseconds means at this configuration: "10x real",
/// "real", "real + 70 ms round trip", "3x real + 2 ms round trip". Built
/// without `format!`: the page carries this, and each one costs bytes.
pub fn latency_words(config: &Config) -> String {
    let mut words = match config.latency_scale {
        1 => String::new(),
        n => n.to_string() + "x ",
    };
    words.push_str("real");
    if config.network_rtt_ms > 0 {
        words.push_str(" + ");
        words.push_str(&config.network_rtt_ms.to_string());
        words.push_str(" ms round trip");
    }
    words
}
