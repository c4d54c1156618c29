//! The host-page messages of an embedded page (`docs/embed.md`): the
//! commands a course page sends its frame, read from JSON into a checked
//! `HostCommand` with every wrong field named, and the events the frame
//! sends back, written as JSON. Every message is an object with
//! `type: "distlock"`; the host's carry `command`, the frame's `event`
//! and the frame's `id`.

use super::json::{self, Json};
use super::run_json::string;
use crate::sim::{Backend, ClientId, Command, PartitionScope, Record, Standing};
use crate::words::seconds_1;

/// The `type` every message carries, both ways.
pub const MESSAGE_TYPE: &str = "distlock";

/// The commands a host may send, as `docs/embed.md` lists them.
pub const COMMANDS: [&str; 11] = [
    "play", "pause", "step", "seek", "client", "set", "load", "reset", "unload", "describe", "tour",
];

/// The actions of a `client` command, as the card's buttons are named.
pub const CLIENT_ACTIONS: [&str; 9] = [
    "acquire",
    "write",
    "release",
    "gc-pause",
    "partition",
    "heal",
    "exit",
    "power-off",
    "restart",
];

/// The longest text a host may send in one message: a run link is the
/// longest thing a command carries.
pub const MESSAGE_CHARS_MAX: usize = 64 * 1024;

/// Where a `seek` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeekTo {
    /// A virtual time, in milliseconds.
    Ms(u64),
    /// A story's key moment, counted from 1.
    Moment(usize),
}

/// What a `client` command asks for: a card's command, or a GC pause whose
/// length the card's own choice gives when the host names none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAction {
    Command(Command),
    GcPause { seconds: Option<u64> },
}

/// The settings a `set` command changes; at least one is given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub system: Option<Backend>,
    pub fencing: Option<bool>,
    /// As the TTL field takes it: seconds, decimals allowed.
    pub ttl_s: Option<String>,
    /// As the speed slider takes it: a multiple, 0.25 to 8.
    pub speed: Option<String>,
}

/// One command from the host page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCommand {
    Play,
    Pause,
    Step,
    Seek(SeekTo),
    Client(ClientId, ClientAction),
    Set(Settings),
    /// A story (its id, checked by the page) on a system with fencing on or
    /// off, or a run link (its fragment); both: the run with its story.
    Load {
        story: Option<String>,
        system: Option<Backend>,
        fencing: Option<bool>,
        link: Option<String>,
    },
    Describe,
    /// A fresh run with the same settings (a story starts again).
    Reset,
    /// The story's script stops; the run goes on by hand.
    Unload,
    /// The tour's bar: `open` shows or closes it.
    Tour {
        open: bool,
    },
}

/// Reads one message's data, as JSON text, into a command; or says what
/// is wrong with it, in words a host page's author can act on.
pub fn read_command(text: &str) -> Result<HostCommand, String> {
    if text.len() > MESSAGE_CHARS_MAX {
        return Err(format!(
            "The message is {} characters long; a command is at most {MESSAGE_CHARS_MAX}.",
            text.len()
        ));
    }
    let message = json::parse(text).map_err(|e| format!("The message is not JSON: {e}."))?;
    if !message.is_object() {
        return Err(format!(
            "The message is {}, not an object like {{type: \"distlock\", command: \"play\"}}.",
            message.to_text()
        ));
    }
    match message.get("type") {
        Some(Json::Str(t)) if t == MESSAGE_TYPE => {}
        Some(other) => {
            return Err(format!(
                "The message's type is {}; this page reads only type \"distlock\".",
                other.to_text()
            ))
        }
        None => {
            return Err("The message has no type: give it type \"distlock\".".into());
        }
    }
    let name = match message.get("command") {
        Some(Json::Str(name)) => name.as_str(),
        Some(other) => {
            return Err(format!(
                "The message's command is {}, not a name such as \"play\".",
                other.to_text()
            ))
        }
        None if message.get("event").is_some() => {
            return Err(
                "The message is an event: a host page sends commands (\"command\": \"play\")."
                    .into(),
            )
        }
        None => {
            return Err(format!(
                "The message has no command: one of {}.",
                listed(&COMMANDS)
            ))
        }
    };
    match name {
        "play" => Ok(HostCommand::Play),
        "pause" => Ok(HostCommand::Pause),
        "step" => Ok(HostCommand::Step),
        "describe" => Ok(HostCommand::Describe),
        "reset" => Ok(HostCommand::Reset),
        "unload" => Ok(HostCommand::Unload),
        "seek" => read_seek(&message),
        "client" => read_client(&message),
        "set" => read_set(&message),
        "load" => read_load(&message),
        "tour" => match message.get("open").and_then(Json::as_bool) {
            Some(open) => Ok(HostCommand::Tour { open }),
            None => Err("tour needs \"open\": true or false.".into()),
        },
        other => Err(format!(
            "Unknown command \"{}\": this page takes {}.",
            shortened(other),
            listed(&COMMANDS)
        )),
    }
}

fn read_seek(message: &Json) -> Result<HostCommand, String> {
    match (message.get("t_ms"), message.get("moment")) {
        (Some(t), None) => t
            .as_u64()
            .map(|ms| HostCommand::Seek(SeekTo::Ms(ms)))
            .ok_or_else(|| {
                format!(
                    "seek's t_ms is {}: give a whole number of milliseconds from 0.",
                    t.to_text()
                )
            }),
        (None, Some(n)) => n
            .as_u64()
            .filter(|&n| n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .map(|n| HostCommand::Seek(SeekTo::Moment(n)))
            .ok_or_else(|| {
                format!(
                    "seek's moment is {}: give a key moment's number, from 1.",
                    n.to_text()
                )
            }),
        (Some(_), Some(_)) => Err("seek takes t_ms or moment, not both.".into()),
        (None, None) => Err("seek needs t_ms (milliseconds) or moment (from 1).".into()),
    }
}

fn read_client(message: &Json) -> Result<HostCommand, String> {
    let client = match message.get("client") {
        Some(Json::Str(name)) => {
            let mut letters = name.chars();
            match (letters.next(), letters.next()) {
                (Some(letter), None) => ClientId::from_letter(letter.to_ascii_uppercase()),
                _ => None,
            }
            .ok_or_else(|| {
                format!(
                    "There is no client \"{}\": the clients are A, B, C and D.",
                    shortened(name)
                )
            })?
        }
        Some(other) => {
            return Err(format!(
                "client is {}: name a client, \"A\", \"B\", \"C\" or \"D\".",
                other.to_text()
            ))
        }
        None => return Err("A client command needs client: \"A\", \"B\", \"C\" or \"D\".".into()),
    };
    let action = match message.get("action") {
        Some(Json::Str(action)) => action.as_str(),
        Some(other) => {
            return Err(format!(
                "action is {}: one of {}.",
                other.to_text(),
                listed(&CLIENT_ACTIONS)
            ))
        }
        None => {
            return Err(format!(
                "A client command needs action: one of {}.",
                listed(&CLIENT_ACTIONS)
            ))
        }
    };
    let command = match action {
        "acquire" => Command::Acquire,
        "write" => Command::Write,
        "release" => Command::Release,
        "partition" => Command::Partition {
            scope: PartitionScope::Service,
        },
        "heal" => Command::Heal,
        "exit" => Command::Exit,
        "power-off" => Command::PowerOff,
        "restart" => Command::Restart,
        "gc-pause" => {
            let seconds = match message.get("seconds") {
                None => None,
                Some(s) => Some(s.as_u64().filter(|&s| s >= 1).ok_or_else(|| {
                    format!(
                        "gc-pause's seconds is {}: give a whole number of seconds from 1.",
                        s.to_text()
                    )
                })?),
            };
            return Ok(HostCommand::Client(
                client,
                ClientAction::GcPause { seconds },
            ));
        }
        other => {
            return Err(format!(
                "Unknown client action \"{}\": one of {}.",
                shortened(other),
                listed(&CLIENT_ACTIONS)
            ))
        }
    };
    Ok(HostCommand::Client(client, ClientAction::Command(command)))
}

fn read_set(message: &Json) -> Result<HostCommand, String> {
    let settings = Settings {
        system: read_system(message)?,
        fencing: read_fencing(message)?,
        ttl_s: read_number_text(message, "ttl_s")?,
        speed: read_number_text(message, "speed")?,
    };
    if settings == Settings::default() {
        return Err("set needs at least one of fencing, system, ttl_s and speed.".into());
    }
    Ok(HostCommand::Set(settings))
}

fn read_load(message: &Json) -> Result<HostCommand, String> {
    let text = |key: &str| -> Result<Option<String>, String> {
        match message.get(key) {
            None => Ok(None),
            Some(Json::Str(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "load's {key} is {}: give it as text.",
                other.to_text()
            )),
        }
    };
    let story = text("story")?;
    // A whole address is taken too: its fragment is the run.
    let link = text("link")?.map(|l| match l.split_once('#') {
        Some((_, fragment)) => fragment.to_string(),
        None => l,
    });
    if story.is_none() && link.is_none() {
        return Err(
            "load needs story (such as \"gc-pause\") or link (a run link), or both.".into(),
        );
    }
    Ok(HostCommand::Load {
        story,
        system: read_system(message)?,
        fencing: read_fencing(message)?,
        link,
    })
}

fn read_system(message: &Json) -> Result<Option<Backend>, String> {
    let Some(value) = message.get("system") else {
        return Ok(None);
    };
    let known = || {
        let slugs: Vec<&str> = Backend::ALL.iter().map(|b| b.slug()).collect();
        slugs.join(", ")
    };
    match value.as_str() {
        Some(slug) => Backend::from_slug(slug).map(Some).ok_or_else(|| {
            format!(
                "There is no system \"{}\": this page knows {}.",
                shortened(slug),
                known()
            )
        }),
        None => Err(format!(
            "system is {}: name one of {}.",
            value.to_text(),
            known()
        )),
    }
}

fn read_fencing(message: &Json) -> Result<Option<bool>, String> {
    match message.get("fencing") {
        None => Ok(None),
        Some(value) => value
            .as_bool()
            .map(Some)
            .ok_or_else(|| format!("fencing is {}: give true or false.", value.to_text())),
    }
}

/// A number given as a number or as text, kept as text for the page's own
/// field readers (which say what is out of range).
fn read_number_text(message: &Json, key: &str) -> Result<Option<String>, String> {
    match message.get(key) {
        None => Ok(None),
        Some(Json::Number(n)) => Ok(Some(n.clone())),
        Some(Json::Str(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{key} is {}: give a number.", other.to_text())),
    }
}

/// "a, b or c".
fn listed(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A name quoted back, cut to a length a message can hold.
fn shortened(text: &str) -> String {
    const QUOTED_CHARS_MAX: usize = 24;
    match text.char_indices().nth(QUOTED_CHARS_MAX) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// One event the frame sends its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostEvent {
    /// The frame is listening. With what it shows: the story (if any), the
    /// system, fencing, and how many key moments the tour has.
    Ready {
        story: Option<String>,
        system: Backend,
        fencing: bool,
        moments: usize,
    },
    /// The run reached (or was moved to) key moment `n` of `of`.
    Moment {
        n: usize,
        of: usize,
        caption: String,
    },
    Grant {
        client: ClientId,
        token: Option<u64>,
    },
    /// The service ended the client's lease or session.
    Expired {
        client: ClientId,
    },
    Write {
        client: ClientId,
        token: Option<u64>,
        accepted: bool,
    },
    Corrupted {
        client: ClientId,
        text: String,
    },
    /// The tour reached its last key moment.
    TourEnd,
    Height {
        px: u32,
    },
    Description {
        text: String,
    },
    Error {
        reason: String,
    },
}

impl HostEvent {
    /// The event's name, as its `event` field gives it.
    pub fn name(&self) -> &'static str {
        match self {
            HostEvent::Ready { .. } => "ready",
            HostEvent::Moment { .. } => "moment",
            HostEvent::Grant { .. } => "grant",
            HostEvent::Expired { .. } => "expired",
            HostEvent::Write { .. } => "write",
            HostEvent::Corrupted { .. } => "corrupted",
            HostEvent::TourEnd => "tour-end",
            HostEvent::Height { .. } => "height",
            HostEvent::Description { .. } => "description",
            HostEvent::Error { .. } => "error",
        }
    }

    /// The message as JSON text, from the frame called `id`.
    pub fn to_json(&self, id: &str) -> String {
        let mut fields = vec![
            ("type", string(MESSAGE_TYPE)),
            ("event", string(self.name())),
            ("id", string(id)),
        ];
        let client = |c: &ClientId| string(&c.letter().to_string());
        let token = |t: &Option<u64>| t.map_or("null".to_string(), |t| t.to_string());
        match self {
            HostEvent::Ready {
                story,
                system,
                fencing,
                moments,
            } => {
                fields.push(("story", story.as_deref().map_or("null".into(), string)));
                fields.push(("system", string(system.slug())));
                fields.push(("fencing", fencing.to_string()));
                fields.push(("moments", moments.to_string()));
            }
            HostEvent::Moment { n, of, caption } => {
                fields.push(("n", n.to_string()));
                fields.push(("of", of.to_string()));
                fields.push(("caption", string(caption)));
            }
            HostEvent::Grant {
                client: c,
                token: t,
            } => {
                fields.push(("client", client(c)));
                fields.push(("token", token(t)));
            }
            HostEvent::Expired { client: c } => fields.push(("client", client(c))),
            HostEvent::Write {
                client: c,
                token: t,
                accepted,
            } => {
                fields.push(("client", client(c)));
                fields.push(("token", token(t)));
                let outcome = if *accepted { "accepted" } else { "rejected" };
                fields.push(("outcome", string(outcome)));
            }
            HostEvent::Corrupted { client: c, text } => {
                fields.push(("client", client(c)));
                fields.push(("text", string(text)));
            }
            HostEvent::TourEnd => {}
            HostEvent::Height { px } => fields.push(("px", px.to_string())),
            HostEvent::Description { text } => fields.push(("text", string(text))),
            HostEvent::Error { reason } => fields.push(("reason", string(reason))),
        }
        let members: Vec<String> = fields
            .into_iter()
            .map(|(key, value)| format!("{}:{value}", string(key)))
            .collect();
        format!("{{{}}}", members.join(","))
    }
}

/// The event one record of the run's history makes for a host, if any: a
/// grant, the service ending a lease or session, a write as the resource
/// answered it, and a stale write it took (the corruption, after its write).
pub fn events_of(record: &Record) -> Vec<HostEvent> {
    use crate::sim::{Event, ServiceEvent};
    let token = |t: &Option<crate::sim::Token>| t.map(|t| t.0);
    match &record.event {
        Event::Acquired {
            client, token: t, ..
        } => vec![HostEvent::Grant {
            client: *client,
            token: token(t),
        }],
        Event::WriteAccepted {
            client,
            token: t,
            standing,
            ..
        } => {
            let write = HostEvent::Write {
                client: *client,
                token: token(t),
                accepted: true,
            };
            if *standing != Standing::Stale {
                return vec![write];
            }
            let with = t.map_or("no token".to_string(), |t| format!("token {t}"));
            let text = format!(
                "At t={} {client} wrote with {with} after the lock had gone to another client, and the resource took it: the data is corrupted.",
                seconds_1(record.at.ms())
            );
            vec![
                write,
                HostEvent::Corrupted {
                    client: *client,
                    text,
                },
            ]
        }
        Event::WriteRejected {
            client, token: t, ..
        } => vec![HostEvent::Write {
            client: *client,
            token: token(t),
            accepted: false,
        }],
        Event::Service(service) => {
            let client = match service {
                ServiceEvent::RedisKeyExpired { client, .. }
                | ServiceEvent::ZkSessionExpired { client, .. }
                | ServiceEvent::EtcdLeaseExpired { client, .. }
                | ServiceEvent::ChubbySessionExpired { client, .. }
                | ServiceEvent::ConsulSessionExpired { client, .. }
                | ServiceEvent::ConsulNodeFailed { client, .. } => Some(*client),
                ServiceEvent::PgSessionEnded {
                    client,
                    freed_lock: true,
                    ..
                } => Some(*client),
                // DynamoDB keeps no clock of its own: a lease is over
                // when another client's put replaces the holder's item.
                ServiceEvent::DynamoItemPut {
                    client,
                    replaced: Some(old),
                    ..
                } if old != client => Some(*old),
                _ => None,
            };
            client
                .map(|client| vec![HostEvent::Expired { client }])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}
