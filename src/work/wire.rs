//! The wire text of a run's messages, for the event log and the
//! timeline: the worker replays the page's run (its link's fragment) and
//! turns each message it sends into the real request or reply
//! (`sim::WireBook`). The page asks on first use, so the templates stay
//! out of its first load.

use crate::sim::{Event, Millis, Sim, WireBook};
use crate::wire::link;

/// The newest messages answered at most: a long run sends hundreds of
/// thousands, and the page shows the newest (the log keeps 60 lines).
pub const WIRE_MESSAGES_MAX: usize = 20_000;

/// `[[message id, wire text], ...]`, oldest first, as JSON: the page reads
/// it with its own small JSON reader.
pub(super) fn texts(fragment: &str) -> Result<String, String> {
    let run = link::decode(fragment)
        .map_err(|e| format!("The page's run could not be read for its wire text. {e}"))?;
    let sim = Sim::replay(&run.scenario, Millis(run.end_ms))
        .map_err(|e| format!("The run could not be replayed for its wire text: {e}"))?;
    Ok(serde_json::to_string(&of(&sim)).unwrap_or_default())
}

/// Each message the run sent, with its wire text, the newest
/// `WIRE_MESSAGES_MAX`.
pub fn of(sim: &Sim) -> Vec<(u64, String)> {
    let mut book = WireBook::new(sim.config());
    let mut out: Vec<(u64, String)> = sim
        .history()
        .iter()
        .filter_map(|r| match &r.event {
            Event::MessageSent {
                id, from, to, body, ..
            } => Some((*id, book.text(*from, *to, body))),
            _ => None,
        })
        .collect();
    let extra = out.len().saturating_sub(WIRE_MESSAGES_MAX);
    out.drain(..extra);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::presets;
    use crate::sim::{Backend, Fencing};
    use crate::wire::link::RunLink;

    #[test]
    fn answers_every_message_of_the_pages_run_by_its_id() {
        let scenario = presets::scenario("gc-pause", Backend::Redlock, Fencing::On).unwrap();
        let sim = Sim::replay(&scenario, Millis(12_000)).unwrap();
        let fragment = link::encode(&RunLink::of(&sim, Millis(3_000)));
        let json = texts(&fragment).unwrap();
        let pairs: Vec<(u64, String)> = serde_json::from_str(&json).unwrap();
        let sent: Vec<u64> = sim
            .history()
            .iter()
            .filter_map(|r| match r.event {
                Event::MessageSent { id, .. } => Some(id),
                _ => None,
            })
            .collect();
        assert_eq!(pairs.iter().map(|p| p.0).collect::<Vec<_>>(), sent);
        assert!(
            pairs[0].1.starts_with("SET lock:shared-counter "),
            "{}",
            pairs[0].1
        );
    }

    #[test]
    fn a_bad_link_is_a_message_not_a_panic() {
        assert!(texts("not a run")
            .unwrap_err()
            .contains("could not be read"));
    }
}
