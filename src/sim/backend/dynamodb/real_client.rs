//! What AmazonDynamoDBLockClient sends, and its code as the Code view
//! lists it: the worker's text, none of it in the page's first load.

use super::{DynamoDb, DynamoMsg, ItemSeen, REAL_LEASE_MS};
use crate::sim::backend::real_client::{secs_text, Listing, RealClient};
use crate::sim::net::ResourceMsg;
use crate::sim::resource::FenceRule;
use crate::sim::scenario::Config;
use crate::sim::types::ClientId;

const DYNAMO_TABLE: &str = "lockTable";
/// AmazonDynamoDBLockClient.java's expression strings, as the client
/// formats them without a sort key: ACQUIRE_LOCK_THAT_DOESNT_EXIST_PK_CONDITION,
const DYNAMO_NEW_LOCK: &str = "attribute_not_exists(#pk)";
/// PK_EXISTS_AND_RVN_IS_THE_SAME_CONDITION (taking over an expired lock),
const DYNAMO_SAME_RVN: &str = "attribute_exists(#pk) AND #rvn = :rvn";
/// PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION (heartbeat, release),
const DYNAMO_OWNER_AND_RVN: &str = "attribute_exists(#pk) AND #rvn = :rvn AND #on = :on";
/// and UPDATE_LEASE_DURATION_AND_RVN (heartbeat).
const DYNAMO_HEARTBEAT_UPDATE: &str = "SET #ld = :ld, #rvn = :newRvn";
const DYNAMO_KEY: &str = "shared-counter";

/// AmazonDynamoDBLockClient.java, with the default partition key name
/// "key" (AmazonDynamoDBLockClientOptions DEFAULT_PARTITION_KEY_NAME),
/// no sort key and no data. The page's TTL stands for the client's
/// 20 s lease, so `leaseDuration` carries the real "20000".
impl RealClient for DynamoDb {
    type Names = ();

    fn message_text(
        config: &Config,
        _names: &mut (),
        c: Option<ClientId>,
        m: &DynamoMsg,
        _asked: Option<&DynamoMsg>,
    ) -> String {
        let me = c.map(dynamo_owner).unwrap_or_default();
        let lease = REAL_LEASE_MS;
        let key = format!("Key: {{\"key\": {{S: \"{DYNAMO_KEY}\"}}}}");
        match *m {
            // `readFromDynamoDB`: GetItem with consistentRead(true).
            DynamoMsg::GetItem { .. } => {
                format!("GetItem{{TableName: \"{DYNAMO_TABLE}\", {key}, ConsistentRead: true}}")
            }
            DynamoMsg::Item { item: None, .. } => "GetItemResponse{} (no Item: nobody holds the lock)".into(),
            DynamoMsg::Item {
                item: Some(ItemSeen { owner, rvn, .. }),
                ..
            } => format!(
                "GetItemResponse{{Item: {{key: {{S: \"{DYNAMO_KEY}\"}}, ownerName: {{S: \"{}\"}}, leaseDuration: {{S: \"{lease}\"}}, recordVersionNumber: {{S: \"{}\"}}}}}}",
                dynamo_owner(owner),
                rvn_uuid(rvn.get())
            ),
            // `acquireLock` builds the item (key, ownerName, leaseDuration,
            // recordVersionNumber); `upsertAndMonitorNewLock` puts it with
            // ACQUIRE_LOCK_THAT_DOESNT_EXIST_PK_CONDITION,
            // `upsertAndMonitorExpiredLock` with
            // PK_EXISTS_AND_RVN_IS_THE_SAME_CONDITION.
            DynamoMsg::PutItem { rvn, expected, .. } => {
                let (condition, names, values) = match expected {
                    None => (DYNAMO_NEW_LOCK, "", String::new()),
                    Some(old) => (
                        DYNAMO_SAME_RVN,
                        ", \"#rvn\": \"recordVersionNumber\"",
                        format!(",\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}}}", rvn_uuid(old.get())),
                    ),
                };
                format!(
                    "PutItem{{TableName: \"{DYNAMO_TABLE}\",\n  Item: {{key: {{S: \"{DYNAMO_KEY}\"}}, ownerName: {{S: \"{me}\"}}, leaseDuration: {{S: \"{lease}\"}}, recordVersionNumber: {{S: \"{}\"}}}},\n  ConditionExpression: \"{condition}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\"{names}}}{values}}}\n(the page's TTL of {} stands for the client's leaseDuration, 20 s)",
                    rvn_uuid(rvn),
                    secs_text(config.ttl_ms)
                )
            }
            DynamoMsg::PutReply { ok: true, .. } | DynamoMsg::HeartbeatReply { ok: true, .. } => {
                "200 OK {}".into()
            }
            DynamoMsg::PutReply { ok: false, .. } | DynamoMsg::HeartbeatReply { ok: false, .. } => {
                "400 ConditionalCheckFailedException: The conditional request failed".into()
            }
            // `sendHeartbeat`: UPDATE_LEASE_DURATION_AND_RVN on
            // PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION.
            DynamoMsg::Heartbeat { rvn, new_rvn, .. } => format!(
                "UpdateItem{{TableName: \"{DYNAMO_TABLE}\", {key},\n  UpdateExpression: \"{DYNAMO_HEARTBEAT_UPDATE}\",\n  ConditionExpression: \"{DYNAMO_OWNER_AND_RVN}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\", \"#ld\": \"leaseDuration\", \"#rvn\": \"recordVersionNumber\", \"#on\": \"ownerName\"}},\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}, \":on\": {{S: \"{me}\"}}, \":newRvn\": {{S: \"{}\"}}, \":ld\": {{S: \"{lease}\"}}}}}}\n(sendHeartbeat)",
                rvn_uuid(rvn),
                rvn_uuid(new_rvn)
            ),
            // `releaseLock` with deleteLock (the default): DeleteItem on
            // PK_EXISTS_AND_OWNER_NAME_SAME_AND_RVN_SAME_CONDITION.
            DynamoMsg::DeleteItem { rvn } => format!(
                "DeleteItem{{TableName: \"{DYNAMO_TABLE}\", {key},\n  ConditionExpression: \"{DYNAMO_OWNER_AND_RVN}\",\n  ExpressionAttributeNames: {{\"#pk\": \"key\", \"#on\": \"ownerName\", \"#rvn\": \"recordVersionNumber\"}},\n  ExpressionAttributeValues: {{\":rvn\": {{S: \"{}\"}}, \":on\": {{S: \"{me}\"}}}}}}\n(releaseLock, deleteLock = true)",
                rvn_uuid(rvn)
            ),
        }
    }

    /// With fencing on, the write is a transaction that checks the lock
    /// item's owner.
    fn resource_text(config: &Config, c: Option<ClientId>, m: &ResourceMsg) -> Option<String> {
        let me = c.map(|c| c.to_string()).unwrap_or_default();
        match *m {
            ResourceMsg::Write { value, .. } if config.fencing.is_on() => Some(format!(
                "TransactWriteItems[\n  ConditionCheck{{TableName: \"{DYNAMO_TABLE}\", Key: {{\"key\": {{S: \"{DYNAMO_KEY}\"}}}}, ConditionExpression: \"#on = :on\", :on = \"{me}\"}},\n  Update{{TableName: \"counter\", UpdateExpression: \"SET #v = :v\", :v = {value}}}]"
            )),
            ResourceMsg::WriteReply { accepted: false, .. } if config.fencing.is_on() => {
                Some("400 TransactionCanceledException: [ConditionalCheckFailed, None]".into())
            }
            _ => None,
        }
    }

    fn client_code(_kazoo: bool) -> Listing {
        CLIENT
    }

    fn resource_code(fence: Option<FenceRule>) -> Option<Listing> {
        (fence == Some(FenceRule::LockOwner)).then_some(LOCK_OWNER)
    }
}

/// The lock client's RVN, `UUID.randomUUID().toString()`; its first group
/// is the one the page shows (`rvn_text`).
fn rvn_uuid(rvn: u64) -> String {
    let mix = rvn.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        rvn >> 16,
        rvn & 0xffff,
        (mix >> 52) & 0xfff,
        (mix >> 40) & 0xfff,
        mix & 0xffff_ffff_ffff
    )
}

/// A DynamoDB client's `ownerName` as the lock client makes it when the
/// application names none: its host's name followed straight by a random
/// UUID (AmazonDynamoDBLockClientOptions.java
/// `generateOwnerNameFromLocalhost`: `getLocalHost().getHostName() +
/// UUID.randomUUID()`). Client A's host is "client-a"; its UUID is fixed
/// by its letter so that every run shows the same name.
fn dynamo_owner(c: ClientId) -> String {
    let id = c.index() as u64 + 1;
    let mix = id.wrapping_mul(0xd6e8_feb8_6659_fd93) | 1;
    format!(
        "client-{}{:08x}-{:04x}-4{:03x}-b{:03x}-{:012x}",
        c.letter().to_ascii_lowercase(),
        mix >> 32,
        (mix >> 16) & 0xffff,
        mix & 0xfff,
        (mix >> 20) & 0xfff,
        mix.rotate_left(23) & 0xffff_ffff_ffff
    )
}

const DYNAMO_DIR: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/";
const DYNAMO_CLIENT: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AmazonDynamoDBLockClient.java";
const DYNAMO_OPTIONS: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AmazonDynamoDBLockClientOptions.java";
const DYNAMO_ACQUIRE: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/AcquireLockOptions.java";
const DYNAMO_ITEM: &str = "https://github.com/awslabs/amazon-dynamodb-lock-client/blob/master/src/main/java/com/amazonaws/services/dynamodbv2/LockItem.java";
const BOTO3: &str = "https://boto3.amazonaws.com/v1/documentation/api/latest/reference/services/dynamodb/client/transact_write_items.html";

const CLIENT: Listing = Listing {
    client: "AmazonDynamoDBLockClient",
    lang: "java",
    text: "\
|AmazonDynamoDBLockClient locks = new @AmazonDynamoDBLockClient@(
|    @AmazonDynamoDBLockClientOptions@.@builder@(dynamo, \"locks\")
|        .@withTimeUnit@(TimeUnit.MILLISECONDS).@withLeaseDuration@({ttl_ms}L)
renew|        .@withHeartbeatPeriod@(heartbeat).build());  // a thread: a new RVN each beat
|
idle|void job(long value) throws InterruptedException {
acquire|  LockItem lock = locks.@acquireLock@(@AcquireLockOptions@.@builder@(\"widget-42\").build());
|  // acquireLock waits a whole lease of one unchanged RVN before taking over.
check|  if (!lock.@isExpired@()) {  // the check: by this process's own clock
write|    resource.write(value, lock.@getOwnerName@());  // see the resource's check
|  }
release|  locks.@releaseLock@(lock);  // DeleteItem, if the RVN is still mine
|}",
    api: &[
        ("AmazonDynamoDBLockClient", DYNAMO_CLIENT),
        ("AmazonDynamoDBLockClientOptions", DYNAMO_OPTIONS),
        ("builder", DYNAMO_DIR),
        ("withTimeUnit", DYNAMO_OPTIONS),
        ("withLeaseDuration", DYNAMO_OPTIONS),
        ("withHeartbeatPeriod", DYNAMO_OPTIONS),
        ("acquireLock", DYNAMO_CLIENT),
        ("AcquireLockOptions", DYNAMO_ACQUIRE),
        ("isExpired", DYNAMO_ITEM),
        ("getOwnerName", DYNAMO_ITEM),
        ("releaseLock", DYNAMO_CLIENT),
    ],
};

/// The resource's check: a transaction that writes only while the lock
/// item names the writer.
const LOCK_OWNER: Listing = Listing {
    client: "the resource: a transaction on the lock item (boto3)",
    lang: "python",
    text: "\
|dynamo.@transact_write_items@(TransactItems=[
|    {\"ConditionCheck\": {\"TableName\": \"locks\", \"Key\": LOCK_KEY,
|        \"ConditionExpression\": \"ownerName = :me\", \"ExpressionAttributeValues\": ME}},
|    {\"Update\": COUNTER_UPDATE},  # applied only with the check: both or neither
|])",
    api: &[("transact_write_items", BOTO3)],
};
