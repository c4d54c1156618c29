//! The run's JSON as links and run files carry it, written by hand.
//!
//! serde's serializer, with the derived code for every setting and command,
//! cost the page's first load about 2 KiB (gzip) for one object written
//! when a visitor shares a run. This writes the very same bytes (field
//! order, names, left-out defaults and escapes as serde_json wrote them,
//! which tests/core/link_writer.rs checks against serde_json for every setting
//! and command), so every link the page has ever written still reads, and
//! a link written now reads in an older page.

use crate::sim::{Action, Command, Config, NodeCommand, PartitionScope, Record, TimedAction};
use std::fmt::Write as _;

/// The whole run: `{"version":..,"config":..,"actions":[..],"playhead_ms":..,
/// "end_ms":..}` and, for a file, `"history"`, a sentence per record.
pub fn run(
    version: u32,
    config: &Config,
    actions: &[TimedAction],
    playhead_ms: u64,
    end_ms: u64,
    history: Option<&[Record]>,
) -> String {
    let mut out = Out::default();
    out.open();
    out.number("version", version.into());
    out.key("config");
    write_config(&mut out, config);
    out.key("actions");
    out.list(actions, write_action);
    out.number("playhead_ms", playhead_ms);
    out.number("end_ms", end_ms);
    if let Some(records) = history {
        out.key("history");
        out.list(records, |out, record| {
            out.open();
            out.number("at_ms", record.at.ms());
            out.key("text");
            out.string(&record.event.to_string());
            out.close();
        });
    }
    out.close();
    out.text
}

/// Compact JSON being written: members and items get their commas as
/// they come.
#[derive(Default)]
struct Out {
    text: String,
    /// Whether the object or array just opened is still empty.
    first: bool,
}

impl Out {
    fn open(&mut self) {
        self.text.push('{');
        self.first = true;
    }

    fn close(&mut self) {
        self.text.push('}');
        self.first = false;
    }

    fn key(&mut self, key: &str) {
        self.comma();
        self.text.push('"');
        self.text.push_str(key);
        self.text.push_str("\":");
    }

    fn comma(&mut self) {
        if !self.first {
            self.text.push(',');
        }
        self.first = false;
    }

    fn number(&mut self, key: &str, n: u64) {
        self.key(key);
        let _ = write!(self.text, "{n}");
    }

    fn signed(&mut self, key: &str, n: i64) {
        self.key(key);
        let _ = write!(self.text, "{n}");
    }

    fn boolean(&mut self, key: &str, on: bool) {
        self.key(key);
        self.text.push_str(if on { "true" } else { "false" });
    }

    fn word(&mut self, key: &str, word: &str) {
        self.key(key);
        self.string(word);
    }

    fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Out, &T)) {
        self.text.push('[');
        self.first = true;
        for one in items {
            self.comma();
            item(self, one);
        }
        self.text.push(']');
        self.first = false;
    }

    /// A JSON string escaped as serde_json escapes it: quote, backslash
    /// and control characters only, `\u00XX` in lower-case hex for those
    /// without a short escape.
    fn string(&mut self, text: &str) {
        self.text.push('"');
        for c in text.chars() {
            match c {
                '"' => self.text.push_str("\\\""),
                '\\' => self.text.push_str("\\\\"),
                '\n' => self.text.push_str("\\n"),
                '\r' => self.text.push_str("\\r"),
                '\t' => self.text.push_str("\\t"),
                '\u{8}' => self.text.push_str("\\b"),
                '\u{c}' => self.text.push_str("\\f"),
                c if c < ' ' => {
                    let _ = write!(self.text, "\\u{:04x}", u32::from(c));
                }
                c => self.text.push(c),
            }
        }
        self.text.push('"');
    }
}

/// `text` as a JSON string, escaped as serde_json escapes it (the page's
/// requests to its worker are written with this too).
pub fn string(text: &str) -> String {
    let mut out = Out::default();
    out.string(text);
    out.text
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// Each setting under its serde name; the defaults serde left out
/// (no network round trip, Redis's wait off, DynamoDB's expiry check on,
/// Consul's retries 0, the documented fencing mode) are left out here too.
fn write_config(out: &mut Out, c: &Config) {
    use crate::sim::{
        ConsulToken, ExtendMode, KeyCleanup, Persistence, ReleaseMode, RestartPolicy, ZkClient,
    };
    out.open();
    out.word("backend", c.backend.slug());
    out.word("fencing", on_off(c.fencing.is_on()));
    out.number("ttl_ms", c.ttl_ms);
    out.number("seed", c.seed.0);
    out.number("latency_scale", c.latency_scale.into());
    if c.network_rtt_ms != 0 {
        out.number("network_rtt_ms", c.network_rtt_ms.into());
    }
    out.key("renewal");
    out.list(&c.renewal, |out, &on| {
        out.text.push_str(if on { "true" } else { "false" })
    });

    let r = &c.redis;
    out.key("redis");
    out.open();
    out.word(
        "release",
        match r.release {
            ReleaseMode::CheckValue => "check-value",
            ReleaseMode::PlainDel => "plain-del",
        },
    );
    out.word(
        "extend",
        match r.extend {
            ExtendMode::CheckValue => "check-value",
            ExtendMode::BlindSet => "blind-set",
        },
    );
    out.word(
        "persistence",
        match r.persistence {
            Persistence::Fsync => "fsync",
            Persistence::None => "none",
        },
    );
    out.word(
        "restart",
        match r.restart {
            RestartPolicy::Immediate => "immediate",
            RestartPolicy::Delayed => "delayed",
        },
    );
    if !r.wait.is_off() {
        out.word("wait", r.wait.slug());
    }
    out.close();

    out.key("zk");
    out.open();
    out.number("tick_ms", c.zk.tick_ms);
    out.word(
        "client",
        match c.zk.client {
            ZkClient::Curator => "curator",
            ZkClient::Native => "native",
        },
    );
    out.close();

    out.key("chubby");
    out.open();
    out.number("lock_delay_ms", c.chubby.lock_delay_ms);
    out.close();

    out.key("dynamo");
    out.open();
    out.number("heartbeats_per_lease", c.dynamo.heartbeats_per_lease.into());
    out.number("extra_wait_pct", c.dynamo.extra_wait_pct.into());
    if !c.dynamo.app_checks_expiry {
        out.boolean("app_checks_expiry", false);
    }
    if c.dynamo.session_monitor {
        out.boolean("session_monitor", true);
    }
    out.close();

    let consul = &c.consul;
    out.key("consul");
    out.open();
    out.word(
        "token",
        match consul.token {
            ConsulToken::ModifyIndex => "modify-index",
            ConsulToken::LockIndex => "lock-index",
            ConsulToken::Sequencer => "sequencer",
        },
    );
    out.word(
        "cleanup",
        match consul.cleanup {
            KeyCleanup::Keep => "keep",
            KeyCleanup::Delete => "delete",
        },
    );
    out.number("lock_delay_s", consul.lock_delay_s);
    if consul.monitor_retries != 0 {
        out.number("monitor_retries", consul.monitor_retries.into());
    }
    out.close();

    out.key("pg");
    out.open();
    out.number("keepalives_idle_s", c.pg.keepalives_idle_s);
    out.number("keepalives_interval_s", c.pg.keepalives_interval_s);
    out.number("keepalives_count", c.pg.keepalives_count);
    out.close();

    if !c.fence.is_documented() {
        out.word("fence", c.fence.word());
    }
    out.close();
}

/// `{"at_ms":..,"client":"A","command":{"do":..}}` or, for a node,
/// `"node":3` in the client's place (serde's flattened, untagged action).
fn write_action(out: &mut Out, timed: &TimedAction) {
    out.open();
    out.number("at_ms", timed.at.ms());
    match timed.action {
        Action::Client { client, command } => {
            let mut letter = [0; 4];
            out.word("client", client.letter().encode_utf8(&mut letter));
            out.key("command");
            write_command(out, command);
        }
        Action::Node { node, command } => {
            out.number("node", u8::from(node).into());
            out.key("command");
            write_node_command(out, command);
        }
    }
    out.close();
}

/// A client's command, tagged by `"do"` as serde's kebab-case names it.
fn write_command(out: &mut Out, command: Command) {
    out.open();
    match command {
        Command::Acquire => out.word("do", "acquire"),
        Command::Write => out.word("do", "write"),
        Command::WriteDelayed { extra_ms } => {
            out.word("do", "write-delayed");
            out.number("extra_ms", extra_ms);
        }
        Command::Release => out.word("do", "release"),
        Command::GcPause { pause_ms } => {
            out.word("do", "gc-pause");
            out.number("pause_ms", pause_ms);
        }
        Command::Partition { scope } => {
            out.word("do", "partition");
            out.word(
                "scope",
                match scope {
                    PartitionScope::Service => "service",
                    PartitionScope::ServiceAndResource => "service-and-resource",
                },
            );
        }
        Command::Heal => out.word("do", "heal"),
        // "crash", as every link from before process exits meant it.
        Command::PowerOff => out.word("do", "crash"),
        Command::Exit => out.word("do", "exit"),
        Command::Restart => out.word("do", "restart"),
        Command::Renewal { on } => {
            out.word("do", "renewal");
            out.boolean("on", on);
        }
        Command::ClockJump { jump_ms } => {
            out.word("do", "clock-jump");
            out.signed("jump_ms", jump_ms);
        }
        Command::ClockRate { rate_pct } => {
            out.word("do", "clock-rate");
            out.signed("rate_pct", rate_pct.into());
        }
        Command::LoseMessages { on } => {
            out.word("do", "lose-messages");
            out.boolean("on", on);
        }
    }
    out.close();
}

fn write_node_command(out: &mut Out, command: NodeCommand) {
    out.open();
    match command {
        NodeCommand::Crash => out.word("do", "crash"),
        NodeCommand::Restart => out.word("do", "restart"),
        NodeCommand::ClockJump { jump_ms } => {
            out.word("do", "clock-jump");
            out.signed("jump_ms", jump_ms);
        }
        NodeCommand::Slow { extra_ms } => {
            out.word("do", "slow");
            out.number("extra_ms", extra_ms);
        }
        NodeCommand::Failover => out.word("do", "failover"),
    }
    out.close();
}

#[cfg(test)]
mod tests {
    use super::Out;

    /// The history's sentences are free text: quotes, backslashes, control
    /// characters and any Unicode must come out as serde_json wrote them.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut every_control: String = (0u8..0x20).map(char::from).collect();
        every_control.push_str("\u{7f} \"quoted\" back\\slash / é ✓ 🔒 \u{2028}");
        for text in [
            "",
            "plain",
            "A's \"shared-counter\"",
            every_control.as_str(),
        ] {
            let mut out = Out::default();
            out.string(text);
            assert_eq!(out.text, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }
}
