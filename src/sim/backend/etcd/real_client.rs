//! What etcd's Go client sends (`clientv3`, `concurrency.Mutex`), and its
//! code as the Code view lists it: the worker's text, none of it in the
//! page's first load.

use super::{Etcd, EtcdMsg};
use crate::sim::backend::real_client::{secs_up, Listing, RealClient};
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;
use std::collections::BTreeMap;

/// `concurrency.NewMutex(session, "/lock/shared-counter")` adds the "/"
/// (mutex.go `NewMutex`); `tryAcquire` puts `pfx + "%x" of the lease`.
const ETCD_PREFIX: &str = "/lock/shared-counter/";
/// The prefix's range end (`clientv3.GetPrefixRangeEnd`: the last byte
/// plus one, "/" + 1 = "0"), as `WithPrefix()` sends it.
const ETCD_PREFIX_END: &str = "/lock/shared-counter0";

/// The names etcd handed out: each client's lease; each key's lease by
/// create_revision.
#[derive(Debug, Default)]
pub(crate) struct Names {
    leases: [Option<u64>; ClientId::COUNT],
    revisions: BTreeMap<u32, u64>,
}

impl RealClient for Etcd {
    type Names = Names;

    fn message_text(
        _config: &Config,
        names: &mut Names,
        c: Option<ClientId>,
        m: &EtcdMsg,
        _asked: Option<&EtcdMsg>,
    ) -> String {
        let lease_of = |c: Option<ClientId>, names: &Names| {
            c.and_then(|c| names.leases[c.index()]).unwrap_or_default()
        };
        match *m {
            // session.go `NewSession`: `client.Grant(ctx, int64(ops.ttl))`,
            // ops.leaseID 0: the server picks the ID.
            EtcdMsg::LeaseGrant { ttl_ms } => format!(
                "Lease.LeaseGrant(LeaseGrantRequest{{TTL: {}, ID: 0}})\n(concurrency.NewSession(client, concurrency.WithTTL({})))",
                secs_up(ttl_ms),
                secs_up(ttl_ms)
            ),
            EtcdMsg::LeaseGrantReply { lease, ttl_ms } => {
                if let Some(c) = c {
                    names.leases[c.index()] = Some(lease);
                }
                format!("LeaseGrantResponse{{ID: 0x{lease:x}, TTL: {}}}", secs_up(ttl_ms))
            }
            // mutex.go `tryAcquire`, then the TxnRequest it becomes
            // (op.go: `WithFirstCreate()` = WithPrefix, WithSort(
            // SortByCreateRevision, SortAscend), WithLimit(1)).
            EtcdMsg::LockTxn { lease } => {
                let key = format!("{ETCD_PREFIX}{lease:x}");
                let owner = format!(
                    "RangeRequest{{Key: \"{ETCD_PREFIX}\", RangeEnd: \"{ETCD_PREFIX_END}\", Limit: 1, SortOrder: ASCEND, SortTarget: CREATE}}"
                );
                format!(
                    "KV.Txn(\n  If(Compare(CreateRevision(\"{key}\"), \"=\", 0)),\n  Then(OpPut(\"{key}\", \"\", WithLease(0x{lease:x})),\n       OpGet(\"{ETCD_PREFIX}\", WithFirstCreate()...)),\n  Else(OpGet(\"{key}\"),\n       OpGet(\"{ETCD_PREFIX}\", WithFirstCreate()...)))\n(Mutex.Lock's tryAcquire)\non the wire: TxnRequest{{\n  Compare: [{{Result: EQUAL, Target: CREATE, Key: \"{key}\", CreateRevision: 0}}],\n  Success: [RequestPut{{Key: \"{key}\", Value: \"\", Lease: 0x{lease:x}}}, {owner}],\n  Failure: [RangeRequest{{Key: \"{key}\"}}, {owner}]}}"
                )
            }
            EtcdMsg::LockTxnReply {
                create_rev: Some(rev),
                predecessor,
                revision,
            } => {
                let lease = lease_of(c, names);
                names.revisions.insert(rev, lease);
                let owner = match predecessor {
                    None => format!("owner: {ETCD_PREFIX}{lease:x} (mine: the lock is held)"),
                    Some(p) => format!("an older key waits ahead (create_revision {p}): watch its delete"),
                };
                format!(
                    "TxnResponse{{Header.Revision: {revision}, Succeeded: true}}\nmy key {ETCD_PREFIX}{lease:x}: create_revision {rev}\n{owner}"
                )
            }
            EtcdMsg::LockTxnReply {
                create_rev: None, ..
            } => "rpc error: code = NotFound desc = etcdserver: requested lease not found".into(),
            EtcdMsg::KeepAlive { lease } => format!(
                "Lease.LeaseKeepAlive stream: LeaseKeepAliveRequest{{ID: 0x{lease:x}}}"
            ),
            EtcdMsg::KeepAliveReply {
                lease,
                ttl_ms: Some(ttl),
            } => format!(
                "LeaseKeepAliveResponse{{ID: 0x{lease:x}, TTL: {}}}",
                secs_up(u64::from(ttl))
            ),
            EtcdMsg::KeepAliveReply { lease, ttl_ms: None } => format!(
                "LeaseKeepAliveResponse{{ID: 0x{lease:x}, TTL: 0}}: the lease is gone (the session's Done() channel closes)"
            ),
            // mutex.go `Unlock`: `client.Delete(ctx, m.myKey)`.
            EtcdMsg::Delete { create_rev } => {
                let lease = names.revisions.get(&create_rev).copied().unwrap_or_else(|| lease_of(c, names));
                format!("KV.DeleteRange(DeleteRangeRequest{{Key: \"{ETCD_PREFIX}{lease:x}\"}})\n(Mutex.Unlock)")
            }
            // key.go `waitDelete`: `client.Watch(key, WithRev(rev))` until a
            // DELETE event.
            EtcdMsg::WatchDeleted { create_rev } => {
                let lease = names.revisions.get(&create_rev).copied().unwrap_or_default();
                format!(
                    "WatchResponse{{Events: [DELETE \"{ETCD_PREFIX}{lease:x}\" (create_revision {create_rev})]}}"
                )
            }
            // key.go `waitDeletes`: `Get(pfx, WithLastCreate()...,
            // WithMaxCreateRev(myRev-1))`; once none is left, mutex.go
            // `Lock` reads its own key (`client.Get(ctx, m.myKey)`). The
            // model asks both in one request.
            EtcdMsg::Get { create_rev } => {
                let mine = names.revisions.get(&create_rev).copied().unwrap_or_else(|| lease_of(c, names));
                format!(
                    "KV.Range(\"{ETCD_PREFIX}\", WithLastCreate()..., WithMaxCreateRev({max}))\n(waitDeletes: the newest key older than mine)\non the wire: RangeRequest{{Key: \"{ETCD_PREFIX}\", RangeEnd: \"{ETCD_PREFIX_END}\", Limit: 1, SortOrder: DESCEND, SortTarget: CREATE, MaxCreateRevision: {max}}}\nthen KV.Range(\"{ETCD_PREFIX}{mine:x}\") (Lock: is my own key still there?)\n(two requests in the client; the model sends them as one)",
                    max = create_rev.saturating_sub(1)
                )
            }
            EtcdMsg::GetReply {
                exists: false, ..
            } => "RangeResponse{Kvs: []}: my own key is gone (its lease expired): Lock returns ErrSessionExpired".into(),
            EtcdMsg::GetReply {
                predecessor: Some(p),
                ..
            } => {
                let lease = names.revisions.get(&p).copied().unwrap_or_default();
                format!(
                    "RangeResponse{{Kvs: [{ETCD_PREFIX}{lease:x} create_revision {p}]}}: watch it for its DELETE\n(WatchCreateRequest{{Key: \"{ETCD_PREFIX}{lease:x}\", StartRevision: <this header's revision>}})"
                )
            }
            EtcdMsg::GetReply {
                predecessor: None, ..
            } => "RangeResponse{Kvs: []}: no older key: the lock is mine".into(),
        }
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        (fence == Some(FenceRule::LockHeld)).then_some(HELD)
    }
}

const ETCD_SESSION: &str =
    "https://github.com/etcd-io/etcd/blob/main/client/v3/concurrency/session.go";
const ETCD_MUTEX: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/concurrency/mutex.go";
const ETCD_LEASE: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/lease.go";
const ETCD_TXN: &str = "https://github.com/etcd-io/etcd/blob/main/client/v3/txn.go";

const CLIENT: Listing = Listing {
    client: "etcd clientv3/concurrency",
    lang: "go",
    text: "\
|s, _ := concurrency.@NewSession@(cli, concurrency.@WithTTL@({ttl_s}))  // LeaseGrant
renew|// NewSession's goroutine: cli.@KeepAlive@(lease): one keepalive at once, then every TTL / 3.
|// Done() closes when no reply came by the deadline: 5 s before the first, then the TTL.
|m := concurrency.@NewMutex@(s, \"/lock/widget-42\")
|
idle|func job(ctx context.Context, value int64) error {
acquire|	if err := m.@Lock@(ctx); err != nil {  // Txn: put if absent, wait on the key before
|		return err
|	}
|	fence := m.@Header@().Revision  // the revision of the grant: it only grows
check|	select { case <-s.@Done@(): return errLost; default: }  // the check: lease alive
write|	resource.Write(value, fence)  // a pause here can outlive the lease
release|	return m.@Unlock@(ctx)  // Delete(my key)
|}
|// The model's token is the key's CreateRevision, ordered as the header's revision.",
    api: &[
        ("NewSession", ETCD_SESSION),
        ("WithTTL", ETCD_SESSION),
        ("KeepAlive", ETCD_LEASE),
        ("NewMutex", ETCD_MUTEX),
        ("Lock", ETCD_MUTEX),
        ("Header", ETCD_MUTEX),
        ("Done", ETCD_SESSION),
        ("Unlock", ETCD_MUTEX),
    ],
};

/// The resource's check in the same transaction: the counter lives in
/// etcd too, and one Txn checks the lock and writes.
const HELD: Listing = Listing {
    client: "the resource: a Txn on the lock key (Go, clientv3)",
    lang: "go",
    text: "\
|// The counter lives in etcd too: the check and the write are one Txn.
|resp, err := cli.@Txn@(ctx).
|\tIf(m.@IsOwner@()). // CreateRevision(myKey) == myRev: gone once A's lease expired
|\tThen(clientv3.OpPut(\"counter\", next)).
|\tCommit()
|if err == nil && !resp.Succeeded {
|\treturn errRejected // the lock no longer holds this grant
|}",
    api: &[("Txn", ETCD_TXN), ("IsOwner", ETCD_MUTEX)],
};
