//! The host-page API of an embed (`docs/embed.md`): the commands a course
//! page sends, read and checked, carried out through the page's own
//! actions, and the events the run makes for the host.

#![cfg(not(target_arch = "wasm32"))]

use distlock::sim::{Backend, ClientId, Command, Fencing, Millis};
use distlock::ui::embed::PageRequest;
use distlock::ui::state::{Action, AppState, Notice};
use distlock::wire::host::{
    events_of, read_command, ClientAction, HostCommand, HostEvent, SeekTo, Settings,
};
use std::rc::Rc;
use yew::Reducible;

fn command(text: &str) -> HostCommand {
    read_command(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn send(state: Rc<AppState>, text: &str) -> Rc<AppState> {
    state.reduce(Action::Host(command(text)))
}

/// Every event the run's history makes for a host, in order.
fn events(state: &AppState) -> Vec<HostEvent> {
    state
        .sim
        .borrow()
        .history()
        .iter()
        .flat_map(events_of)
        .collect()
}

#[test]
fn commands_are_read_as_the_contract_names_them() {
    let cases = [
        (r#"{"type":"distlock","command":"play"}"#, HostCommand::Play),
        (
            r#"{"type":"distlock","command":"pause"}"#,
            HostCommand::Pause,
        ),
        (r#"{"type":"distlock","command":"step"}"#, HostCommand::Step),
        (
            r#"{"type":"distlock","command":"describe"}"#,
            HostCommand::Describe,
        ),
        (
            r#"{"type":"distlock","command":"seek","t_ms":1500}"#,
            HostCommand::Seek(SeekTo::Ms(1500)),
        ),
        (
            r#"{"type":"distlock","command":"seek","moment":5}"#,
            HostCommand::Seek(SeekTo::Moment(5)),
        ),
        (
            r#"{"type":"distlock","command":"client","client":"A","action":"write"}"#,
            HostCommand::Client(ClientId::ALL[0], ClientAction::Command(Command::Write)),
        ),
        (
            r#"{"type":"distlock","command":"client","client":"b","action":"gc-pause","seconds":8}"#,
            HostCommand::Client(ClientId::ALL[1], ClientAction::GcPause { seconds: Some(8) }),
        ),
        (
            r#"{"type":"distlock","command":"client","client":"D","action":"power-off"}"#,
            HostCommand::Client(ClientId::ALL[3], ClientAction::Command(Command::PowerOff)),
        ),
        (
            r#"{"type":"distlock","command":"set","fencing":true,"system":"etcd","speed":2,"ttl_s":"2.5"}"#,
            HostCommand::Set(Settings {
                system: Some(Backend::Etcd),
                fencing: Some(true),
                ttl_s: Some("2.5".into()),
                speed: Some("2".into()),
            }),
        ),
        (
            r#"{"type":"distlock","command":"load","story":"gc-pause","system":"etcd","fencing":false}"#,
            HostCommand::Load {
                story: Some("gc-pause".into()),
                system: Some(Backend::Etcd),
                fencing: Some(false),
                link: None,
            },
        ),
        (
            r#"{"type":"distlock","command":"load","link":"https://x.org/sim/#v1.abc"}"#,
            HostCommand::Load {
                story: None,
                system: None,
                fencing: None,
                link: Some("v1.abc".into()),
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(command(text), expected, "{text}");
    }
}

#[test]
fn a_malformed_or_unknown_message_is_named() {
    for (text, named) in [
        ("[1,2]", "not an object"),
        ("\"play\"", "not an object"),
        (r#"{"command":"play"}"#, "no type"),
        (r#"{"type":"other","command":"play"}"#, "\"other\""),
        (r#"{"type":"distlock"}"#, "no command"),
        (
            r#"{"type":"distlock","command":"jump"}"#,
            "Unknown command \"jump\"",
        ),
        (r#"{"type":"distlock","command":"seek"}"#, "t_ms"),
        (r#"{"type":"distlock","command":"seek","t_ms":-4}"#, "-4"),
        (
            r#"{"type":"distlock","command":"seek","moment":0}"#,
            "moment is 0",
        ),
        (
            r#"{"type":"distlock","command":"client","client":"E","action":"write"}"#,
            "no client \"E\"",
        ),
        (
            r#"{"type":"distlock","command":"client","client":"A","action":"fly"}"#,
            "\"fly\"",
        ),
        (
            r#"{"type":"distlock","command":"client","client":"A"}"#,
            "needs action",
        ),
        (r#"{"type":"distlock","command":"set"}"#, "at least one"),
        (
            r#"{"type":"distlock","command":"set","fencing":"yes"}"#,
            "fencing is \"yes\"",
        ),
        (
            r#"{"type":"distlock","command":"set","system":"paxos"}"#,
            "no system \"paxos\"",
        ),
        (r#"{"type":"distlock","command":"load"}"#, "story"),
        (
            r#"{"type":"distlock","event":"ready","id":"x"}"#,
            "is an event",
        ),
        ("{", "not JSON"),
    ] {
        match read_command(text) {
            Err(reason) => assert!(reason.contains(named), "{text}: {reason}"),
            Ok(read) => panic!("{text} was read as {read:?}"),
        }
    }
}

#[test]
fn events_are_json_with_the_frames_id() {
    let grant = HostEvent::Grant {
        client: ClientId::ALL[0],
        token: Some(33),
    };
    assert_eq!(
        grant.to_json("lesson-2"),
        r#"{"type":"distlock","event":"grant","id":"lesson-2","client":"A","token":33}"#
    );
    let write = HostEvent::Write {
        client: ClientId::ALL[1],
        token: None,
        accepted: false,
    };
    assert_eq!(
        write.to_json("x\"y"),
        r#"{"type":"distlock","event":"write","id":"x\"y","client":"B","token":null,"outcome":"rejected"}"#
    );
    assert_eq!(
        HostEvent::TourEnd.to_json("a"),
        r#"{"type":"distlock","event":"tour-end","id":"a"}"#
    );
}

/// The article's scenario through host commands alone: A takes the lock
/// and freezes, its lease runs out, B takes it and writes, A wakes and
/// writes with its old grant.
fn article(fencing: bool) -> Rc<AppState> {
    let mut state = Rc::new(AppState::default());
    let on = if fencing { "true" } else { "false" };
    state = send(
        state,
        &format!(r#"{{"type":"distlock","command":"set","system":"etcd","fencing":{on}}}"#),
    );
    assert_eq!(state.config().backend, Backend::Etcd);
    let steps = [
        r#"{"type":"distlock","command":"client","client":"A","action":"acquire"}"#,
        r#"{"type":"distlock","command":"seek","t_ms":1000}"#,
        r#"{"type":"distlock","command":"client","client":"A","action":"gc-pause","seconds":15}"#,
        r#"{"type":"distlock","command":"client","client":"B","action":"acquire"}"#,
        r#"{"type":"distlock","command":"seek","t_ms":12000}"#,
        r#"{"type":"distlock","command":"client","client":"B","action":"write"}"#,
        r#"{"type":"distlock","command":"client","client":"A","action":"write"}"#,
        r#"{"type":"distlock","command":"seek","t_ms":20000}"#,
    ];
    for step in steps {
        state = send(state, step);
        assert!(
            !matches!(state.notice, Some(Notice::Refused(_))),
            "{step}: {:?}",
            state.notice
        );
    }
    state
}

#[test]
fn the_articles_scenario_corrupts_without_fencing_and_is_refused_with_it() {
    let (a, b) = (ClientId::ALL[0], ClientId::ALL[1]);
    let off = events(&article(false));
    assert!(
        off.iter()
            .any(|e| matches!(e, HostEvent::Grant { client, .. } if *client == a)),
        "{off:?}"
    );
    assert!(off.contains(&HostEvent::Expired { client: a }), "{off:?}");
    assert!(
        off.iter()
            .any(|e| matches!(e, HostEvent::Grant { client, .. } if *client == b)),
        "{off:?}"
    );
    assert!(
        off.iter().any(|e| matches!(e, HostEvent::Corrupted { client, text } if *client == a && text.contains("corrupted"))),
        "{off:?}"
    );
    let on = events(&article(true));
    assert!(
        on.iter()
            .any(|e| matches!(e, HostEvent::Write { client, accepted: false, .. } if *client == a)),
        "{on:?}"
    );
    assert!(
        !on.iter().any(|e| matches!(e, HostEvent::Corrupted { .. })),
        "{on:?}"
    );
}

#[test]
fn a_command_the_run_cannot_take_answers_with_the_pages_reason_and_changes_nothing() {
    let state = Rc::new(AppState::default());
    let before = state.link();
    let after = send(
        state,
        r#"{"type":"distlock","command":"client","client":"C","action":"write"}"#,
    );
    let reason = match &after.answer.as_ref().expect("an answer").event {
        HostEvent::Error { reason } => reason.clone(),
        other => panic!("an error, got {other:?}"),
    };
    assert_eq!(
        after.notice,
        Some(Notice::Refused(reason.clone())),
        "the page says it too"
    );
    assert!(reason.contains('C'), "{reason}");
    assert_eq!(after.link(), before, "the run is unchanged");
    let again = send(
        after.clone(),
        r#"{"type":"distlock","command":"seek","moment":2}"#,
    );
    match &again.answer.as_ref().expect("an answer").event {
        HostEvent::Error { reason } => assert!(reason.contains("No story"), "{reason}"),
        other => panic!("an error, got {other:?}"),
    }
    assert_ne!(
        again.answer.as_ref().map(|a| a.count),
        after.answer.as_ref().map(|a| a.count)
    );
}

#[test]
fn seek_goes_to_a_key_moment_ahead_or_behind_and_describe_says_where() {
    let request = PageRequest::parse("?embed=1&preset=gc-pause&system=etcd", "", false);
    let state = Rc::new(AppState::opened(None, &request));
    let tour = state.story.as_ref().expect("a story").tour.clone();
    assert!(tour.len() >= 5, "{}", tour.len());
    let at5 = send(state, r#"{"type":"distlock","command":"seek","moment":5}"#);
    assert_eq!(at5.sim.borrow().now(), tour[4].at);
    assert!(!at5.running);
    let story = at5.story.as_ref().expect("still the story");
    assert_eq!(story.reached(at5.sim.borrow().now()), 5);
    let at2 = send(at5, r#"{"type":"distlock","command":"seek","moment":2}"#);
    assert_eq!(at2.sim.borrow().now(), tour[1].at);
    assert!(at2.future.is_some(), "the rest of the run is kept");
    let described = send(at2, r#"{"type":"distlock","command":"describe"}"#);
    match &described.answer.as_ref().expect("an answer").event {
        HostEvent::Description { text } => {
            assert!(text.contains("A GC pause outlives the lease"), "{text}");
            assert!(
                text.contains("etcd") && text.contains("Key moment 2 of"),
                "{text}"
            );
        }
        other => panic!("a description, got {other:?}"),
    }
    let far = send(
        described,
        r#"{"type":"distlock","command":"seek","moment":99}"#,
    );
    assert!(
        matches!(&far.answer.as_ref().expect("an answer").event, HostEvent::Error { reason } if reason.contains("no moment 99"))
    );
}

#[test]
fn load_opens_a_story_on_a_system_with_fencing_as_asked() {
    let state = send(
        Rc::new(AppState::default()),
        r#"{"type":"distlock","command":"load","story":"gc-pause","system":"etcd","fencing":true}"#,
    );
    assert_eq!(state.story.as_ref().map(|s| s.preset.id), Some("gc-pause"));
    assert_eq!(state.config().backend, Backend::Etcd);
    assert_eq!(state.config().fencing, Fencing::On);
    let refused = send(
        state.clone(),
        r#"{"type":"distlock","command":"load","story":"nope"}"#,
    );
    assert!(
        matches!(&refused.answer.as_ref().expect("answer").event, HostEvent::Error { reason } if reason.contains("\"nope\""))
    );
    assert_eq!(refused.link(), state.link());
    assert_eq!(refused.sim.borrow().now(), Millis(0));
}
