//! What the real client sends for each of a run's messages (the page's
//! "wire" disclosure in the event log and on the timeline): the worker
//! replays the page's run (its link's fragment) and turns each message it
//! sent into the real request or reply (`sim::RealClientBook`), which needs
//! every message before it (a reply names its request, a release the key
//! its grant made). The page asks for one message when a visitor opens
//! its "wire", so the templates stay out of the page's first load.

use crate::markup::escape;
use crate::sim::{Event, Millis, RealClientBook, Sim};
use crate::wire::link;

/// The message's wire text drawn for the log, or why it cannot be.
pub fn drawn(fragment: &str, message: u64) -> Result<String, String> {
    let run = link::decode(fragment)
        .map_err(|e| format!("The page's run could not be read for its wire text. {e}"))?;
    let sim = Sim::replay(&run.scenario, Millis(run.end_ms))
        .map_err(|e| format!("The run could not be replayed for its wire text: {e}"))?;
    let text = text_of(&sim, message)
        .ok_or_else(|| format!("Message {message} is not among the run's messages."))?;
    Ok(format!(
        r#"<pre class="log__wire-text" aria-label="Wire text of message {message}">{}</pre>"#,
        escape(&text)
    ))
}

/// The wire text of message `message` of the run, if it sent one.
pub fn text_of(sim: &Sim, message: u64) -> Option<String> {
    let mut book = RealClientBook::new(sim.config());
    for record in sim.history() {
        if let Event::MessageSent {
            id, from, to, body, ..
        } = &record.event
        {
            let text = book.text(*from, *to, body);
            if *id == message {
                return Some(text);
            }
            if *id > message {
                return None;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::presets;
    use crate::sim::{Backend, Fencing};
    use crate::wire::link::RunLink;

    #[test]
    fn draws_the_message_asked_for_escaped() {
        let scenario = presets::GC_PAUSE
            .scenario(Backend::Redis, Fencing::On)
            .unwrap();
        let sim = Sim::replay(&scenario, Millis(12_000)).unwrap();
        let fragment = link::encode(&RunLink::of(&sim, Millis(3_000)));
        let first = sim
            .history()
            .iter()
            .find_map(|r| match r.event {
                Event::MessageSent { id, .. } => Some(id),
                _ => None,
            })
            .unwrap();
        let html = drawn(&fragment, first).unwrap();
        assert!(html.starts_with(r#"<pre class="log__wire-text""#), "{html}");
        assert!(
            html.contains("EVAL &quot;if redis.call(&#39;set&#39;, KEYS[1], ARGV[1], &#39;NX&#39;, &#39;PX&#39;, ARGV[2]) then"),
            "{html}"
        );
        assert!(drawn(&fragment, u64::MAX)
            .unwrap_err()
            .contains("not among the run's messages"));
    }

    #[test]
    fn a_bad_link_is_a_message_not_a_panic() {
        assert!(drawn("not a run", 1)
            .unwrap_err()
            .contains("could not be read"));
    }
}
