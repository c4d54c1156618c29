//! What each message is as the real client sends it: the request or reply
//! the real client library sends for it (redis-py, node-redlock, etcd's Go
//! `clientv3`, Curator or kazoo, the Chubby paper's calls, Go `consul/api`,
//! `AmazonDynamoDBLockClient`, psycopg), with the run's own key, value,
//! lease, session and TTL filled in, and the client's code as the Code view
//! lists it. Each text was checked against the client's source; the
//! comment beside it names the file and function. Where the page scales a
//! system's time (Consul's 15 s session TTL and DynamoDB's 20 s lease are
//! the page's TTL), the text shows the real client's default and says what
//! the page's TTL stands for.
//!
//! Each system writes its own, beside its model: its folder's
//! `real_client.rs` implements `RealClient`. This file holds what they
//! share: the book that carries a run's names from message to message, the
//! resource's text, and the dispatch, built from `lock_systems!`'s one
//! list. Only the worker calls any of it (the page asks it for a message's
//! text and for the Code view on first use), so none of these templates is
//! in the page's first load. Every match is exhaustive: a new message kind
//! does not compile until it says what its real client sends.
//!
//! Where the real protocol is binary (ZooKeeper's jute, etcd's gRPC,
//! PostgreSQL's frontend/backend messages), the text is the client's call
//! and the server's answer as the library's own docs write them.

use super::{Backend, LockSystem, Msg};
use crate::sim::net::{Body, Endpoint, ResourceMsg};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;
use std::collections::BTreeMap;
use std::fmt;

/// What a lock system's real client sends and runs.
pub(crate) trait RealClient: LockSystem {
    /// What the book keeps of a run between this system's messages: the
    /// names its service handed out (etcd's leases, ZooKeeper's znodes), so
    /// a later message can use them.
    type Names: Default + fmt::Debug;
    /// Message `m` to or from client `c` as the real client sends or hears
    /// it; `asked` is the last request the receiving end sent the sending
    /// one, which a reply answers.
    fn message_text(
        config: &Config,
        names: &mut Self::Names,
        c: Option<ClientId>,
        m: &Self::Msg,
        asked: Option<&Self::Msg>,
    ) -> String;
    /// A write to the resource or its answer, where the resource is a row
    /// or an item of this system's own server; `None`: the page's counter
    /// service.
    fn resource_text(_config: &Config, _c: Option<ClientId>, _m: &ResourceMsg) -> Option<String> {
        None
    }
    /// The client's code for the Code view; `kazoo`: the page's ZooKeeper
    /// client is the native one (only ZooKeeper offers two).
    fn client_code(kazoo: bool) -> Listing;
    /// The resource's check for `fence` (`None`: fencing off) as this
    /// system's clients write it; `None`: the page's own resource.
    fn resource_code(_fence: Option<FenceRule>) -> Option<Listing> {
        None
    }
}

/// One Code view listing, and the real API names it uses with their
/// sources (`work::code` says how it is written and drawn).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listing {
    /// The client library and language, as the heading says.
    pub client: &'static str,
    pub lang: &'static str,
    pub text: &'static str,
    pub api: &'static [(&'static str, &'static str)],
}

macro_rules! real_clients {
    ($($variant:ident($slug:literal) => $module:ident::$system:ident($msg:ident, $detail:ident)),* $(,)?) => {
        /// Each system's names, as its `RealClient::Names` keeps them.
        #[derive(Debug, Default)]
        struct Names {
            $($module: <super::$module::$system as RealClient>::Names,)*
        }

        impl RealClientBook {
            fn lock(&mut self, c: Option<ClientId>, m: &Msg, asked: Option<Msg>) -> String {
                match m {
                    $(Msg::$variant(m) => {
                        let asked = match asked {
                            Some(Msg::$variant(a)) => Some(a),
                            _ => None,
                        };
                        let names = &mut self.names.$module;
                        <super::$module::$system as RealClient>::message_text(&self.config, names, c, m, asked.as_ref())
                    })*
                }
            }
        }

        impl Backend {
            fn resource_text(self, config: &Config, c: Option<ClientId>, m: &ResourceMsg) -> Option<String> {
                match self { $(Backend::$variant => <super::$module::$system as RealClient>::resource_text(config, c, m),)* }
            }

            /// The client's code for the Code view.
            pub(crate) fn client_code(self, kazoo: bool) -> Listing {
                match self { $(Backend::$variant => <super::$module::$system as RealClient>::client_code(kazoo),)* }
            }

            /// The resource's check for `fence` where this system's clients
            /// write their own.
            pub(crate) fn resource_code(self, fence: Option<FenceRule>) -> Option<Listing> {
                match self { $(Backend::$variant => <super::$module::$system as RealClient>::resource_code(fence),)* }
            }
        }
    };
}

super::with_lock_systems!(real_clients);

/// A run's messages turned into the real clients' text, in sending order: it
/// remembers what each pair of ends last asked (a reply's text names its
/// request) and the names the service handed out (leases, znodes), so a
/// later message can use them.
#[derive(Debug)]
pub struct RealClientBook {
    config: Config,
    /// The last request from one end to the other.
    asked: BTreeMap<(Endpoint, Endpoint), Msg>,
    names: Names,
}

impl RealClientBook {
    pub fn new(config: &Config) -> RealClientBook {
        RealClientBook {
            config: config.clone(),
            asked: BTreeMap::new(),
            names: Names::default(),
        }
    }

    /// The message's text, as its real client sends or hears it; call it
    /// for every message in sending order.
    pub fn text(&mut self, from: Endpoint, to: Endpoint, body: &Body) -> String {
        let client = from.client().or(to.client());
        match body {
            Body::Resource(m) => self.resource(client, m),
            Body::Lock(m) => {
                let asked = self.asked.get(&(to, from)).copied();
                let text = self.lock(client, m, asked);
                if from.client().is_some() {
                    self.asked.insert((from, to), *m);
                }
                text
            }
        }
    }

    /// The resource is the page's own counter service, which takes the
    /// token with each write (the fencing of Kleppmann's article), unless
    /// it is the system's own (a row or an item of the same server).
    fn resource(&self, c: Option<ClientId>, m: &ResourceMsg) -> String {
        let backend = self.config.backend;
        if let Some(text) = backend.resource_text(&self.config, c, m) {
            return text;
        }
        let fencing = self.config.fencing.is_on();
        match *m {
            ResourceMsg::Write { token, value, .. } => match token.filter(|_| fencing) {
                Some(t) => format!(
                    "write(counter = {value}, fencing_token = {t}) (what it read, plus one)"
                ),
                None => format!(
                    "write(counter = {value}) (what it read, plus one; no token: the resource cannot tell a stale holder)"
                ),
            },
            ResourceMsg::WriteReply {
                accepted: true,
                version,
            } => format!("ok, counter = {version}"),
            ResourceMsg::WriteReply {
                accepted: false, ..
            } => "rejected: the token is older than one the resource has seen".into(),
            ResourceMsg::Announce { token } => {
                format!(
                    "announce(fencing_token = {token}) (the new holder's token, before any write)"
                )
            }
        }
    }
}

/// A page duration in seconds, as the notes say it ("5 s", "2.5 s").
pub(super) fn secs_text(ms: u64) -> String {
    match ms % 1_000 {
        0 => format!("{} s", ms / 1_000),
        r => format!(
            "{}.{} s",
            ms / 1_000,
            format!("{r:03}").trim_end_matches('0')
        ),
    }
}

/// Whole seconds, rounded up, as TTLs in seconds are given.
pub(super) fn secs_up(ms: u64) -> u64 {
    ms.div_ceil(1_000)
}
