//! The narrator: what a reader who cannot see the animation hears. It
//! turns the run's history into plain sentences at a pace a person can
//! follow: at most one sentence every `GAP_MS` of the reader's own time,
//! however fast the run plays, each one saying what happened last and, in
//! a few words, what it had to skip. A stale write that corrupts the
//! counter, or one that fencing rejects, is said at once and only once a
//! run. No ids a person would not say: clients by letter, tokens by number.
//!
//! The page only schedules: it tells the narrator what the run recorded
//! (`hear`) and asks, with the wall clock's time, whether a sentence is due
//! (`speak`). Nothing here reads a clock, so the same history heard at the
//! same moments gives the same sentences natively and in the browser.

use crate::sim::{ClientId, Command, Event, Record, Sim, Standing, Token, TokenWords};
use crate::words::capitalize;

/// The least time between two sentences, in the reader's milliseconds.
pub const GAP_MS: u64 = 2_000;
/// Skipped happenings named in a summary; more are only counted.
const SKIPPED_NAMED_MAX: usize = 2;
/// Happenings kept waiting at most: a summary never names more than
/// `SKIPPED_NAMED_MAX` of them, and the count of the rest needs no text.
const WAITING_MAX: usize = 64;

/// How much the narrator says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Narration {
    /// Nothing, not even the corruption (the page shows it).
    Off,
    /// Grants, expiries at the service, two believed holders and the verdict.
    #[default]
    Brief,
    /// Also pauses, wakes, writes, releases and the other faults.
    Full,
}

impl Narration {
    pub const ALL: [Narration; 3] = [Narration::Off, Narration::Brief, Narration::Full];

    /// Its name in the page's address (`narration=full`) and its menu.
    pub fn slug(self) -> &'static str {
        match self {
            Narration::Off => "off",
            Narration::Brief => "brief",
            Narration::Full => "full",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Narration> {
        Narration::ALL.into_iter().find(|n| n.slug() == slug)
    }

    /// What its menu says of it.
    pub fn label(self) -> &'static str {
        match self {
            Narration::Off => "Narration off",
            Narration::Brief => "Narration brief",
            Narration::Full => "Narration full",
        }
    }
}

/// A sentence to say, and whether it interrupts (the corruption, a fencing
/// rejection) or waits its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Speech {
    pub text: String,
    pub urgent: bool,
}

/// How much a happening matters: of the happenings waiting, the one that
/// matters most is said in full and the others summarised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Weight {
    /// Said only in full: waits, losses, cuts, crashes.
    Detail,
    /// Pauses and writes.
    Step,
    Lock,
    Alarm,
}

/// One happening, as the clause a sentence or a summary is made of
/// ("B was granted token 2").
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heard {
    clause: String,
    weight: Weight,
}

/// The narrator of one run: what it has heard and not yet said.
#[derive(Debug, Clone, Default)]
pub struct Narrator {
    /// The run heard, and how many of its records (counting those the
    /// history dropped); `None` before the first.
    heard: Option<(u64, u64)>,
    waiting: Vec<Heard>,
    /// Happenings skipped beyond `WAITING_MAX`, counted only.
    uncounted: usize,
    urgent: Option<String>,
    /// When the last sentence was said, in the reader's milliseconds.
    last_said_ms: Option<u64>,
    /// The run's corruption, and a fencing rejection, are said at once only
    /// the first time.
    corruption_said: bool,
    rejection_said: bool,
    /// Who the service last said holds the lock, and whether they had
    /// asked to release it since: a holder gone without that was expired
    /// (or cut off) by the service.
    holder: Option<ClientId>,
    releasing: Option<ClientId>,
    /// The newest grant the service made, for the verdict's "after".
    grant: Option<(ClientId, Option<Token>)>,
}

impl Narrator {
    /// Hears what run `run` recorded since the last call: `history` is what
    /// the run keeps, after `dropped` older records. A new run, or a run
    /// shorter than before (the playhead moved back), is heard from where it
    /// stands without a word about what came before.
    pub fn hear(
        &mut self,
        mode: Narration,
        run: u64,
        history: &[Record],
        dropped: u64,
        words: TokenWords,
    ) {
        let total = dropped + history.len() as u64;
        let from = match self.heard {
            Some((r, seen)) if r == run && seen <= total => seen,
            _ => {
                *self = Narrator {
                    last_said_ms: self.last_said_ms,
                    ..Narrator::default()
                };
                self.heard = Some((run, total));
                self.remember_holder(history);
                return;
            }
        };
        self.heard = Some((run, total));
        let skip = usize::try_from(from.saturating_sub(dropped)).unwrap_or(usize::MAX);
        for record in history.iter().skip(skip) {
            self.hear_one(mode, record, words);
        }
    }

    /// The run's holder as the history left it, heard silently.
    fn remember_holder(&mut self, history: &[Record]) {
        for record in history {
            if let Event::HolderChanged { holder, token } = record.event {
                self.holder = holder;
                if let Some(c) = holder {
                    self.grant = Some((c, token));
                }
            }
        }
    }

    fn hear_one(&mut self, mode: Narration, record: &Record, words: TokenWords) {
        let event = &record.event;
        if mode == Narration::Off {
            self.follow(event);
            return;
        }
        if let Some(text) = self.urgent_of(event, words) {
            self.urgent = Some(text);
            return;
        }
        let heard = self.clause_of(record, words);
        self.follow(event);
        let Some(heard) = heard else { return };
        if mode == Narration::Brief && heard.weight == Weight::Detail {
            return;
        }
        if self.waiting.len() >= WAITING_MAX {
            self.uncounted += 1;
        } else {
            self.waiting.push(heard);
        }
    }

    /// Keeps track of the holder and the grants, whatever is said.
    fn follow(&mut self, event: &Event) {
        match *event {
            Event::HolderChanged { holder, token } => {
                self.holder = holder;
                self.releasing = None;
                if let Some(c) = holder {
                    self.grant = Some((c, token));
                }
            }
            Event::Clicked {
                client,
                command: Command::Release,
            }
            | Event::Released { client } => self.releasing = Some(client),
            Event::WriteAccepted {
                standing: Standing::Stale,
                ..
            } => self.corruption_said = true,
            Event::WriteRejected {
                standing: Standing::Stale,
                ..
            } => self.rejection_said = true,
            _ => {}
        }
    }

    /// The sentence said at once: the run's first corruption, and its
    /// first stale write that fencing rejected.
    fn urgent_of(&mut self, event: &Event, words: TokenWords) -> Option<String> {
        match *event {
            Event::WriteAccepted {
                client,
                token,
                value,
                standing: Standing::Stale,
                lost,
            } if !self.corruption_said => {
                self.corruption_said = true;
                let damage = match lost {
                    0 => format!("The counter is corrupted: it reads {value}."),
                    1 => format!("It overwrote an increment: the counter reads {value}."),
                    n => format!("It overwrote {n} increments: the counter reads {value}."),
                };
                Some(format!(
                    "The lock broke: {}'s stale write{} was accepted {}. {damage}",
                    client,
                    carried(words, token),
                    self.after_words(client, words),
                ))
            }
            Event::WriteRejected {
                client,
                token,
                standing: Standing::Stale,
                ..
            } if !self.rejection_said => {
                self.rejection_said = true;
                Some(format!(
                    "Fencing rejected {}'s stale write{}, sent {}. The counter is safe.",
                    client,
                    carried(words, token),
                    self.after_words(client, words),
                ))
            }
            _ => None,
        }
    }

    /// "after B was granted token 2", or "after another client was granted
    /// the lock".
    fn after_words(&self, writer: ClientId, words: TokenWords) -> String {
        match self.grant {
            Some((c, token)) if c != writer => {
                format!("after {c} was granted {}", grant_words(words, token))
            }
            _ => "after another client was granted the lock".to_string(),
        }
    }

    fn clause_of(&self, record: &Record, words: TokenWords) -> Option<Heard> {
        use Event::*;
        let at = record.at;
        let (clause, weight) = match record.event {
            HolderChanged {
                holder: Some(c),
                token,
            } => (
                format!("{c} was granted {}", grant_words(words, token)),
                Weight::Lock,
            ),
            HolderChanged { holder: None, .. } => match self.holder {
                Some(c) if self.releasing == Some(c) => {
                    (format!("{c} released the lock"), Weight::Lock)
                }
                Some(c) => (
                    format!("the service let {c}'s lock go: nobody holds it now"),
                    Weight::Lock,
                ),
                None => return None,
            },
            TwoHolders { ref clients } => (
                format!("{} believe they hold the lock", both(clients)),
                Weight::Alarm,
            ),
            OneHolderAgain => (
                "only one client believes it holds the lock again".to_string(),
                Weight::Lock,
            ),
            Paused { client, until } => (
                format!(
                    "{client} froze in a pause of {}",
                    spoken_seconds(until.ms().saturating_sub(at.ms()))
                ),
                Weight::Step,
            ),
            Woke { client } => (format!("{client} woke from its pause"), Weight::Step),
            Queued {
                client,
                command: Command::Write,
            } => (
                format!("{client}'s write will leave the instant it wakes"),
                Weight::Step,
            ),
            WriteAccepted { client, value, .. } => (
                format!("the resource accepted {client}'s write: the counter reads {value}"),
                Weight::Step,
            ),
            WriteRejected { client, .. } => (
                format!("the resource rejected {client}'s write"),
                Weight::Step,
            ),
            Lost { client, .. } => (
                format!("{client} learned it no longer holds the lock"),
                Weight::Detail,
            ),
            Waiting { client, .. } => (format!("{client} waits for the lock"), Weight::Detail),
            AcquireFailed { client, .. } => {
                (format!("{client} failed to get the lock"), Weight::Detail)
            }
            Partitioned { client, .. } => (
                format!("{client} was cut off from the network"),
                Weight::Detail,
            ),
            Healed { client } => (format!("{client} is reachable again"), Weight::Detail),
            Crashed { client } => (format!("{client}'s host died"), Weight::Detail),
            Exited { client } => (format!("{client}'s process exited"), Weight::Detail),
            Restarted { client } => (format!("{client} restarted"), Weight::Detail),
            _ => return None,
        };
        Some(Heard { clause, weight })
    }

    /// Whether anything waits to be said.
    pub fn has_waiting(&self) -> bool {
        self.urgent.is_some() || !self.waiting.is_empty() || self.uncounted > 0
    }

    /// How long from `now_ms` until the next sentence may be said: `None`
    /// with nothing waiting, 0 when due (an urgent one is always due).
    pub fn due_in_ms(&self, now_ms: u64) -> Option<u64> {
        if self.urgent.is_some() {
            return Some(0);
        }
        if !self.has_waiting() {
            return None;
        }
        Some(
            self.last_said_ms
                .map_or(0, |last| (last + GAP_MS).saturating_sub(now_ms)),
        )
    }

    /// The sentence due at `now_ms`, if any: the urgent one at once, or
    /// once `GAP_MS` has passed since the last, the happening that matters
    /// most (the newest of those) with the others summarised.
    pub fn speak(&mut self, now_ms: u64) -> Option<Speech> {
        if let Some(text) = self.urgent.take() {
            self.last_said_ms = Some(now_ms);
            return Some(Speech { text, urgent: true });
        }
        if self.due_in_ms(now_ms) != Some(0) {
            return None;
        }
        let waiting = std::mem::take(&mut self.waiting);
        let uncounted = std::mem::take(&mut self.uncounted);
        let main = waiting
            .iter()
            .enumerate()
            .max_by_key(|(i, h)| (h.weight, *i))
            .map(|(i, _)| i)?;
        let mut text = format!("{}.", capitalize(&waiting[main].clause));
        let others: Vec<&str> = waiting
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != main)
            .map(|(_, h)| h.clause.as_str())
            .collect();
        let more = others.len().saturating_sub(SKIPPED_NAMED_MAX) + uncounted;
        if !others.is_empty() {
            let named = &others[others.len().saturating_sub(SKIPPED_NAMED_MAX)..];
            text.push_str(&format!(" Meanwhile {}", named.join(", and ")));
            if more > 0 {
                text.push_str(&format!(
                    ", and {more} more {}",
                    if more == 1 { "thing" } else { "things" }
                ));
            }
            text.push('.');
        }
        self.last_said_ms = Some(now_ms);
        Some(Speech {
            text,
            urgent: false,
        })
    }

    /// The reader asked for the whole state (`describe`), said at
    /// `now_ms`: what waited is covered by it, and the next sentence waits
    /// its gap after it.
    pub fn described(&mut self, now_ms: u64) {
        self.waiting.clear();
        self.uncounted = 0;
        self.last_said_ms = Some(now_ms);
    }
}

/// " with token 1", or nothing where the system's writes carry no token a
/// reader would count.
fn carried(words: TokenWords, token: Option<Token>) -> String {
    match (words, token) {
        (TokenWords::Granted, Some(t)) => format!(" with token {t}"),
        _ => String::new(),
    }
}

/// "token 2", or "the lock" where the grant carries no token.
fn grant_words(words: TokenWords, token: Option<Token>) -> String {
    match (words, token) {
        (TokenWords::Granted, Some(t)) => format!("token {t}"),
        _ => "the lock".to_string(),
    }
}

/// "A and B both", "A, B and C all", or the one name.
fn both(clients: &[ClientId]) -> String {
    let letters: Vec<String> = clients.iter().map(|c| c.to_string()).collect();
    match letters.len() {
        0 => "nobody".into(),
        1 => letters[0].clone(),
        2 => format!("{} and {} both", letters[0], letters[1]),
        n => format!("{} and {} all", letters[..n - 1].join(", "), letters[n - 1]),
    }
}

/// The whole state in two or three sentences, for the reader who asks:
/// who holds the lock by the service, who believes it, and what the
/// resource last accepted.
pub fn describe(sim: &Sim) -> String {
    let words = TokenWords::of(sim.config().backend);
    let at = spoken_seconds(sim.now().ms());
    let holder = match sim.holder() {
        Some(h) => format!(
            "At {at}, the service says {} holds the lock with {}.",
            h.client,
            grant_words(words, h.token)
        ),
        None => format!("At {at}, the service says nobody holds the lock."),
    };
    let believers = sim.believers();
    let belief = match believers.len() {
        0 => "No client believes it holds it.".to_string(),
        1 => format!("{} believes it holds it.", believers[0]),
        _ => format!("{} believe they hold it.", both(&believers)),
    };
    let last = sim.history().iter().rev().find_map(|r| match r.event {
        Event::WriteAccepted {
            client,
            token,
            standing,
            ..
        } => Some((client, token, standing)),
        _ => None,
    });
    let resource = sim.resource();
    let rejected = match resource.rejected() {
        0 => "has rejected none".to_string(),
        1 => "has rejected 1 write".to_string(),
        n => format!("has rejected {n} writes"),
    };
    let accepted = match last {
        Some((client, token, standing)) => format!(
            "The resource last accepted {client}'s{} write{}; the counter reads {}, and it {rejected}.",
            if standing.is_stale() { " stale" } else { "" },
            carried(words, token),
            resource.value()
        ),
        None => format!(
            "The resource has accepted no write yet; the counter reads {}, and it {rejected}.",
            resource.value()
        ),
    };
    let corrupted = if sim.oracle().corruptions() > 0 {
        " The counter is corrupted."
    } else {
        ""
    };
    format!("{holder} {belief} {accepted}{corrupted}")
}

/// "8 seconds", "9.5 seconds": time as a person says it.
fn spoken_seconds(ms: u64) -> String {
    let tenths = ms / 100;
    match (tenths / 10, tenths % 10) {
        (1, 0) => "1 second".to_string(),
        (s, 0) => format!("{s} seconds"),
        (s, t) => format!("{s}.{t} seconds"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Millis;

    fn at(ms: u64, event: Event) -> Record {
        Record {
            at: Millis(ms),
            event,
        }
    }

    fn client(letter: char) -> ClientId {
        ClientId::ALL[(letter as u8 - b'A') as usize]
    }

    fn grant(letter: char, token: u64) -> Event {
        Event::HolderChanged {
            holder: Some(client(letter)),
            token: Some(Token(token)),
        }
    }

    fn heard(mode: Narration, history: &[Record]) -> Narrator {
        let mut n = Narrator::default();
        n.hear(mode, 1, &[], 0, TokenWords::Granted);
        n.hear(mode, 1, history, 0, TokenWords::Granted);
        n
    }

    #[test]
    fn a_grant_is_said_at_once_and_the_next_waits_two_seconds() {
        let mut history = vec![at(0, grant('A', 1))];
        let mut n = heard(Narration::Brief, &history);
        let first = n.speak(10_000).expect("the grant is due");
        assert_eq!(first.text, "A was granted token 1.");
        assert!(!first.urgent);
        history.push(at(
            5_000,
            Event::HolderChanged {
                holder: None,
                token: None,
            },
        ));
        n.hear(Narration::Brief, 1, &history, 0, TokenWords::Granted);
        assert_eq!(n.due_in_ms(10_500), Some(1_500));
        assert_eq!(n.speak(11_999), None, "not two seconds yet");
        assert_eq!(
            n.speak(12_000).map(|s| s.text).as_deref(),
            Some("The service let A's lock go: nobody holds it now.")
        );
        assert_eq!(n.speak(20_000), None, "nothing waits");
    }

    #[test]
    fn what_was_skipped_is_summarised_without_ids() {
        let history = vec![
            at(0, grant('A', 1)),
            at(
                100,
                Event::Paused {
                    client: client('A'),
                    until: Millis(8_100),
                },
            ),
            at(
                5_000,
                Event::HolderChanged {
                    holder: None,
                    token: None,
                },
            ),
            at(5_100, grant('B', 2)),
            at(
                5_200,
                Event::WriteAccepted {
                    client: client('B'),
                    token: Some(Token(2)),
                    value: 1,
                    standing: Standing::Holder,
                    lost: 0,
                },
            ),
        ];
        let mut n = heard(Narration::Full, &history);
        let said = n.speak(0).expect("due").text;
        assert!(
            said.starts_with("B was granted token 2. Meanwhile "),
            "{said}"
        );
        assert!(
            said.contains("the resource accepted B's write: the counter reads 1"),
            "{said}"
        );
        assert!(said.contains("more things"), "{said}");
        // Brief leaves a client's wait out.
        let waits = [at(
            0,
            Event::Waiting {
                client: client('C'),
                token: None,
            },
        )];
        assert!(!heard(Narration::Brief, &waits).has_waiting());
        assert!(heard(Narration::Full, &waits).has_waiting());
        let pause = [at(
            100,
            Event::Paused {
                client: client('A'),
                until: Millis(8_100),
            },
        )];
        assert_eq!(
            heard(Narration::Brief, &pause)
                .speak(0)
                .map(|s| s.text)
                .as_deref(),
            Some("A froze in a pause of 8 seconds.")
        );
    }

    #[test]
    fn the_corruption_is_urgent_and_said_once() {
        let stale = |value| Event::WriteAccepted {
            client: client('A'),
            token: Some(Token(1)),
            value,
            standing: Standing::Stale,
            lost: 1,
        };
        let history = vec![
            at(0, grant('A', 1)),
            at(5_100, grant('B', 2)),
            at(8_000, stale(1)),
        ];
        let mut n = heard(Narration::Brief, &history);
        let said = n.speak(3_000).expect("urgent");
        assert!(said.urgent);
        assert_eq!(
            said.text,
            "The lock broke: A's stale write with token 1 was accepted after B was granted token 2. It overwrote an increment: the counter reads 1."
        );
        // The grants wait their turn, two seconds after the alarm.
        assert_eq!(n.due_in_ms(3_000), Some(GAP_MS));
        let mut more = history.clone();
        more.push(at(9_000, stale(2)));
        n.hear(Narration::Brief, 1, &more, 0, TokenWords::Granted);
        assert!(n.speak(5_000).is_some_and(|s| !s.urgent), "only once a run");
    }

    #[test]
    fn a_fencing_rejection_is_urgent() {
        let history = vec![
            at(0, grant('A', 1)),
            at(5_100, grant('B', 2)),
            at(
                8_000,
                Event::WriteRejected {
                    client: client('A'),
                    token: Some(Token(1)),
                    reason: crate::sim::RejectReason::TokenBelowHighest {
                        token: Token(1),
                        highest: Token(2),
                    },
                    standing: Standing::Stale,
                },
            ),
        ];
        let said = heard(Narration::Brief, &history).speak(0).expect("urgent");
        assert!(said.urgent);
        assert_eq!(
            said.text,
            "Fencing rejected A's stale write with token 1, sent after B was granted token 2. The counter is safe."
        );
    }

    #[test]
    fn off_says_nothing_and_a_new_run_starts_silent() {
        let history = vec![at(0, grant('A', 1))];
        let mut off = heard(Narration::Off, &history);
        assert!(!off.has_waiting());
        assert_eq!(off.speak(0), None);
        // Heard first with its history, a run says nothing of its past.
        let mut n = Narrator::default();
        n.hear(Narration::Full, 7, &history, 0, TokenWords::Granted);
        assert!(!n.has_waiting());
        // The playhead moved back: heard again from where it stands.
        n.hear(Narration::Full, 7, &[], 0, TokenWords::Granted);
        n.hear(Narration::Full, 7, &history, 0, TokenWords::Granted);
        assert!(n.has_waiting());
    }

    #[test]
    fn release_and_version_grants_are_worded() {
        let history = vec![
            at(
                0,
                Event::HolderChanged {
                    holder: Some(client('C')),
                    token: Some(Token(0)),
                },
            ),
            at(
                10,
                Event::Clicked {
                    client: client('C'),
                    command: Command::Release,
                },
            ),
            at(
                20,
                Event::HolderChanged {
                    holder: None,
                    token: None,
                },
            ),
        ];
        let mut n = Narrator::default();
        n.hear(Narration::Brief, 1, &[], 0, TokenWords::RowVersion);
        n.hear(Narration::Brief, 1, &history, 0, TokenWords::RowVersion);
        assert_eq!(
            n.speak(0).map(|s| s.text).as_deref(),
            Some("C released the lock. Meanwhile C was granted the lock.")
        );
    }

    /// The scenario to run first on etcd, fencing off or on, played to its
    /// end and heard as it was recorded, a sentence asked for every
    /// second of the reader's time; and its last state described.
    fn story_told(fencing: crate::sim::Fencing) -> (Vec<Speech>, String) {
        use crate::lesson::presets::GC_PAUSE;
        use crate::sim::{Backend, Playback, Refusals};
        let scenario = GC_PAUSE.scenario(Backend::Etcd, fencing).expect("on etcd");
        let end = Millis(GC_PAUSE.run_ms_on(Backend::Etcd));
        let (mut sim, mut playback) =
            Playback::start(&scenario, Refusals::Stop, Millis(0)).expect("plays");
        let mut n = Narrator::default();
        let words = TokenWords::Granted;
        n.hear(Narration::Brief, 1, &[], 0, words);
        let mut said = Vec::new();
        let mut wall_ms = 0;
        while sim.now() <= end && playback.step(&mut sim).expect("a step") {
            n.hear(
                Narration::Brief,
                1,
                sim.history(),
                sim.history_dropped(),
                words,
            );
            said.extend(n.speak(wall_ms));
            wall_ms += 100;
        }
        (said, describe(&sim))
    }

    #[test]
    fn the_scenario_to_run_first_is_told_and_its_corruption_said_once() {
        let (said, described) = story_told(crate::sim::Fencing::Off);
        let urgent: Vec<&Speech> = said.iter().filter(|s| s.urgent).collect();
        assert_eq!(urgent.len(), 1, "{said:#?}");
        // etcd's tokens are its revisions: A's is 2, B's 3.
        assert!(
            urgent[0].text.starts_with(
                "The lock broke: A's stale write with token 2 was accepted after B was granted token 3."
            ),
            "{}",
            urgent[0].text
        );
        assert!(
            said.iter()
                .any(|s| s.text.contains("B was granted token 3")),
            "{said:#?}"
        );
        assert!(
            described.contains("The counter is corrupted."),
            "{described}"
        );
        assert!(
            described.starts_with("At ") && described.contains("the service says"),
            "{described}"
        );
        let (said, described) = story_told(crate::sim::Fencing::On);
        let urgent: Vec<&Speech> = said.iter().filter(|s| s.urgent).collect();
        assert_eq!(urgent.len(), 1, "{said:#?}");
        assert!(
            urgent[0].text.starts_with(
                "Fencing rejected A's stale write with token 2, sent after B was granted token 3."
            ),
            "{}",
            urgent[0].text
        );
        assert!(described.contains("it has rejected 1 write"), "{described}");
        assert!(!described.contains("corrupted"), "{described}");
    }

    #[test]
    fn a_fresh_run_is_described_in_three_sentences() {
        let sim = Sim::new(crate::sim::Config::default()).expect("the default run");
        assert_eq!(
            describe(&sim),
            "At 0 seconds, the service says nobody holds the lock. No client believes it holds it. The resource has accepted no write yet; the counter reads 0, and it has rejected none."
        );
    }

    #[test]
    fn seconds_are_said_as_a_person_says_them() {
        assert_eq!(spoken_seconds(8_000), "8 seconds");
        assert_eq!(spoken_seconds(1_000), "1 second");
        assert_eq!(spoken_seconds(9_560), "9.5 seconds");
        assert_eq!(spoken_seconds(0), "0 seconds");
    }

    #[test]
    fn the_modes_read_back_from_their_slugs() {
        for mode in Narration::ALL {
            assert_eq!(Narration::from_slug(mode.slug()), Some(mode));
        }
        assert_eq!(Narration::from_slug("loud"), None);
    }
}
