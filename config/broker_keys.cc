// The table of broker keys Highwater knows. Names, types, defaults and rules
// follow Kafka 4.x; the summaries are ours. Where a default differs from
// Kafka's on purpose, the summary says so (Highwater runs as a single-node
// broker+controller with no arguments).

#include <algorithm>
#include <thread>

#include "config/config_key.h"

namespace hw::config {
namespace {

using T = value_type;

std::string cores() {
  unsigned n = std::thread::hardware_concurrency();
  return std::to_string(n == 0 ? 1 : n);
}

const std::vector<std::string_view> kSecurityProtocols = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};

const std::vector<config_key>& table() {
  static const std::vector<config_key> keys = {
      // --- identity and roles ---------------------------------------------------
      {"node.id", T::int32, "1", rule::none(),
       "Id of this node in the cluster, shared by its broker and controller roles (Highwater defaults to 1; Kafka requires it)."},
      {"broker.id", T::int32, "-1", rule::none(),
       "Older name of node.id; if only one of the two is set it is used for both, and they must agree if both are."},
      {"process.roles", T::list, "broker,controller", rule::list_one_of({"broker", "controller"}),
       "Which roles this process plays: broker, controller or both (Highwater defaults to both)."},
      {"broker.rack", T::string, std::nullopt, rule::none(), "Rack or zone of this broker, used for rack-aware replica placement."},

      // --- listeners ------------------------------------------------------------
      {"listeners", T::string, "PLAINTEXT://localhost:9092", rule::none(),
       "Comma-separated NAME://host:port endpoints to accept connections on; empty host binds every interface, port 0 picks a free port (Kafka's default is PLAINTEXT://:9092)."},
      {"advertised.listeners", T::string, std::nullopt, rule::none(),
       "Endpoints clients are told to use, when they differ from listeners."},
      {"listener.security.protocol.map", T::string,
       "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL", rule::none(),
       "Maps each listener name to the security protocol it speaks, as NAME:PROTOCOL pairs."},
      {"controller.listener.names", T::string, std::nullopt, rule::none(),
       "Comma-separated names of the listeners the controller role uses."},
      {"inter.broker.listener.name", T::string, std::nullopt, rule::none(),
       "Listener brokers use to talk to each other; defaults to the one named after security.inter.broker.protocol."},
      {"security.inter.broker.protocol", T::string, "PLAINTEXT", rule::one_of(kSecurityProtocols),
       "Security protocol between brokers when inter.broker.listener.name is not set."},
      {"early.start.listeners", T::string, std::nullopt, rule::none(),
       "Listeners that may start accepting before the broker has finished starting up."},

      // --- KRaft quorum ---------------------------------------------------------
      {"controller.quorum.voters", T::list, "", rule::none(),
       "Static controller quorum as id@host:port entries."},
      {"controller.quorum.bootstrap.servers", T::list, "", rule::none(),
       "host:port addresses used to discover the controller quorum when it is dynamic."},
      {"controller.quorum.election.timeout.ms", T::int32, "1000", rule::none(),
       "How long a voter waits without hearing from a leader before starting an election."},
      {"controller.quorum.fetch.timeout.ms", T::int32, "2000", rule::none(),
       "How long a follower waits for a successful fetch from the leader before suspecting it."},
      {"controller.quorum.election.backoff.max.ms", T::int32, "1000", rule::none(),
       "Upper bound of the randomized delay before a new election after a failed one."},
      {"controller.quorum.append.linger.ms", T::int32, "25", rule::none(),
       "How long the quorum leader gathers records before writing them as one batch."},
      {"controller.quorum.request.timeout.ms", T::int32, "2000", rule::none(),
       "Time limit for a request between quorum members."},
      {"controller.quorum.retry.backoff.ms", T::int32, "20", rule::none(),
       "Pause before retrying a failed quorum request."},
      {"broker.heartbeat.interval.ms", T::int32, "2000", rule::none(),
       "How often a broker sends a heartbeat to the controller."},
      {"broker.session.timeout.ms", T::int32, "9000", rule::none(),
       "How long the controller waits without a heartbeat before fencing a broker."},
      {"initial.broker.registration.timeout.ms", T::int32, "60000", rule::none(),
       "How long a starting broker keeps trying to register before giving up."},
      {"metadata.log.dir", T::string, std::nullopt, rule::none(),
       "Directory of the cluster metadata log; defaults to the first log directory."},
      {"metadata.log.segment.bytes", T::int32, "1073741824", rule::at_least(12),
       "Largest size of one metadata log segment."},
      {"metadata.log.segment.ms", T::int64, "604800000", rule::none(),
       "Longest time before a new metadata log segment is rolled."},
      {"metadata.max.retention.bytes", T::int64, "104857600", rule::none(),
       "Metadata log size above which old snapshots and segments may be deleted."},
      {"metadata.max.retention.ms", T::int64, "604800000", rule::none(),
       "Age beyond which old metadata snapshots and segments may be deleted."},
      {"metadata.log.max.record.bytes.between.snapshots", T::int64, "20971520", rule::at_least(1),
       "How much new metadata accumulates before a snapshot is taken."},
      {"metadata.log.max.snapshot.interval.ms", T::int64, "3600000", rule::at_least(0),
       "Longest time between metadata snapshots when there are new records (0 disables the time trigger)."},
      {"metadata.max.idle.interval.ms", T::int32, "500", rule::at_least(0),
       "How often the active controller writes a no-op record so followers see progress (0 disables)."},
      {"eligible.leader.replicas.enable", T::boolean, "false", rule::none(),
       "Whether the controller maintains eligible leader replicas (KIP-966)."},

      // --- network --------------------------------------------------------------
      {"num.network.threads", T::int32, "3", rule::at_least(1),
       "Kafka's count of socket threads; accepted for compatibility, Highwater's I/O threads do this work."},
      {"num.io.threads", T::int32, std::nullopt, rule::at_least(1),
       "Threads that run the broker's event loop (default: the number of cores).", cores},
      {"background.threads", T::int32, "10", rule::at_least(1), "Threads for background housekeeping tasks."},
      {"socket.request.max.bytes", T::int32, "104857600", rule::at_least(1),
       "Largest request frame accepted; a bigger size prefix closes the connection before anything is allocated."},
      {"socket.send.buffer.bytes", T::int32, "102400", rule::none(),
       "SO_SNDBUF of accepted sockets; -1 keeps the operating system's default."},
      {"socket.receive.buffer.bytes", T::int32, "102400", rule::none(),
       "SO_RCVBUF of accepted sockets; -1 keeps the operating system's default."},
      {"socket.listen.backlog.size", T::int32, "50", rule::at_least(1),
       "Length of the queue of connections waiting to be accepted."},
      {"connections.max.idle.ms", T::int64, "600000", rule::none(),
       "A connection with no traffic for this long is closed."},
      {"queued.max.requests", T::int32, "500", rule::at_least(1),
       "Broker-wide bound on requests read but not yet answered."},
      {"queued.max.request.bytes", T::int64, "-1", rule::none(),
       "Broker-wide bound on bytes of requests read but not yet answered (-1: no bound)."},
      {"max.connections", T::int32, "2147483647", rule::at_least(0),
       "Most connections the broker accepts at once."},
      {"max.connections.per.ip", T::int32, "2147483647", rule::at_least(0),
       "Most connections accepted from one IP address."},
      {"max.connections.per.ip.overrides", T::string, "", rule::none(),
       "Per-host exceptions to max.connections.per.ip, as host:count pairs."},
      {"max.connection.creation.rate", T::int32, "2147483647", rule::at_least(0),
       "Most new connections accepted per second on a listener."},
      {"connection.failed.authentication.delay.ms", T::int32, "100", rule::at_least(0),
       "Delay before closing a connection whose authentication failed."},
      {"request.timeout.ms", T::int32, "30000", rule::none(),
       "How long the broker's own outgoing requests wait for an answer."},
      {"highwater.connection.max.inflight.requests", T::int32, "64", rule::between(1, 100000),
       "Highwater only: requests one connection may have read but not yet answered; reading pauses at this bound."},

      // --- messages and topics --------------------------------------------------
      {"message.max.bytes", T::int32, "1048588", rule::at_least(0),
       "Largest record batch the broker accepts (after compression)."},
      {"auto.create.topics.enable", T::boolean, "true", rule::none(),
       "Whether metadata requests for an unknown topic create it."},
      {"num.partitions", T::int32, "1", rule::at_least(1), "Partition count of automatically created topics."},
      {"default.replication.factor", T::int32, "1", rule::none(),
       "Replica count of automatically created topics."},
      {"min.insync.replicas", T::int32, "1", rule::at_least(1),
       "Fewest in-sync replicas an acks=all write needs."},
      {"unclean.leader.election.enable", T::boolean, "false", rule::none(),
       "Whether a replica outside the ISR and ELR may become leader as a last resort, at the risk of losing data."},
      {"delete.topic.enable", T::boolean, "true", rule::none(), "Whether topics may be deleted."},
      {"compression.type", T::string, "producer",
       rule::one_of({"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"}),
       "Compression of stored batches; producer keeps whatever the producer used."},
      {"compression.gzip.level", T::int32, "-1", rule::none(),
       "gzip level for batches the broker compresses: 1 to 9, or -1 for the codec's default."},
      {"compression.lz4.level", T::int32, "9", rule::between(1, 17), "lz4 level for batches the broker compresses."},
      {"compression.zstd.level", T::int32, "3", rule::between(-131072, 22),
       "zstd level for batches the broker compresses."},
      {"auto.leader.rebalance.enable", T::boolean, "true", rule::none(),
       "Whether leadership is moved back to preferred replicas periodically."},
      {"leader.imbalance.check.interval.seconds", T::int64, "300", rule::at_least(1),
       "How often leadership balance is checked."},
      {"leader.imbalance.per.broker.percentage", T::int32, "10", rule::none(),
       "Share of misplaced leaders on a broker that triggers a rebalance."},
      {"create.topic.policy.class.name", T::class_name, std::nullopt, rule::none(),
       "Plug-in that vets topic creation (not supported by Highwater; accepted and ignored)."},
      {"alter.config.policy.class.name", T::class_name, std::nullopt, rule::none(),
       "Plug-in that vets configuration changes (not supported by Highwater; accepted and ignored)."},
      {"authorizer.class.name", T::string, "", rule::none(),
       "Authorizer plug-in; empty means every request is allowed."},

      // --- log storage ----------------------------------------------------------
      {"log.dirs", T::list, std::nullopt, rule::none(),
       "Directories holding partition data; when unset, log.dir is used."},
      {"log.dir", T::list, "./data", rule::none(),
       "Data directory used when log.dirs is unset (Highwater defaults to ./data; Kafka to /tmp/kafka-logs)."},
      {"log.segment.bytes", T::int32, "1073741824", rule::at_least(1048576),
       "Size at which the active segment of a partition is rolled."},
      {"log.roll.ms", T::int64, std::nullopt, rule::none(),
       "Age at which the active segment is rolled; overrides log.roll.hours."},
      {"log.roll.hours", T::int32, "168", rule::at_least(1), "Age in hours at which the active segment is rolled."},
      {"log.roll.jitter.ms", T::int64, std::nullopt, rule::none(),
       "Random reduction of the roll age so segments do not all roll together; overrides log.roll.jitter.hours."},
      {"log.roll.jitter.hours", T::int32, "0", rule::at_least(0), "Roll jitter in hours."},
      {"log.retention.ms", T::int64, std::nullopt, rule::none(),
       "How long data is kept; overrides log.retention.minutes and log.retention.hours; -1 keeps it forever."},
      {"log.retention.minutes", T::int32, std::nullopt, rule::none(),
       "Retention in minutes; overrides log.retention.hours."},
      {"log.retention.hours", T::int32, "168", rule::none(), "Retention in hours (the default is one week)."},
      {"log.retention.bytes", T::int64, "-1", rule::none(),
       "Size per partition above which old segments are deleted; -1 means no size limit."},
      {"log.retention.check.interval.ms", T::int64, "300000", rule::at_least(1),
       "How often segments are checked against the retention limits."},
      {"log.cleanup.policy", T::list, "delete", rule::list_one_of({"compact", "delete"}),
       "What happens to old segments: delete them, compact them by key, or both."},
      {"log.cleaner.enable", T::boolean, "true", rule::none(), "Whether the compaction thread runs."},
      {"log.cleaner.threads", T::int32, "1", rule::at_least(0), "Threads doing log compaction."},
      {"log.cleaner.delete.retention.ms", T::int64, "86400000", rule::at_least(0),
       "How long delete tombstones stay in a compacted log after the cleaner has reached them."},
      {"log.cleaner.min.compaction.lag.ms", T::int64, "0", rule::at_least(0),
       "Youngest a record may be and still be compacted."},
      {"log.cleaner.max.compaction.lag.ms", T::int64, "9223372036854775807", rule::at_least(1),
       "Oldest an uncompacted record may become before its log is compacted regardless of the dirty ratio."},
      {"log.cleaner.min.cleanable.ratio", T::float64, "0.5", rule::between_double(0, 1),
       "Share of a log that must be uncompacted before the cleaner takes it on."},
      {"log.cleaner.backoff.ms", T::int64, "15000", rule::at_least(0),
       "How long the cleaner sleeps when no log needs cleaning."},
      {"log.cleaner.dedupe.buffer.size", T::int64, "134217728", rule::none(),
       "Memory for the cleaner's key map, across all cleaner threads."},
      {"log.cleaner.io.buffer.load.factor", T::float64, "0.9", rule::none(),
       "How full the cleaner's key map may get."},
      {"log.cleaner.io.buffer.size", T::int32, "524288", rule::at_least(0),
       "Memory for the cleaner's read and write buffers, across all cleaner threads."},
      {"log.local.retention.ms", T::int64, "-2", rule::at_least(-2),
       "Tiered storage: how long segments stay on local disk (-2: as retention.ms). Not used by Highwater."},
      {"log.local.retention.bytes", T::int64, "-2", rule::at_least(-2),
       "Tiered storage: local bytes kept per partition (-2: as retention.bytes). Not used by Highwater."},
      {"log.index.size.max.bytes", T::int32, "10485760", rule::at_least(4), "Largest size of an offset or time index file."},
      {"log.index.interval.bytes", T::int32, "4096", rule::at_least(0),
       "Bytes of log between two entries of the offset index."},
      {"log.flush.interval.messages", T::int64, "9223372036854775807", rule::at_least(1),
       "Records appended to a partition before it is forced to disk."},
      {"log.flush.interval.ms", T::int64, std::nullopt, rule::none(),
       "Longest time appended data stays unflushed; defaults to log.flush.scheduler.interval.ms."},
      {"log.flush.scheduler.interval.ms", T::int64, "9223372036854775807", rule::none(),
       "How often partitions are checked for a time-based flush."},
      {"log.flush.offset.checkpoint.interval.ms", T::int32, "60000", rule::at_least(0),
       "How often the recovery point checkpoint is written."},
      {"log.flush.start.offset.checkpoint.interval.ms", T::int32, "60000", rule::at_least(0),
       "How often the log start offset checkpoint is written."},
      {"log.segment.delete.delay.ms", T::int64, "60000", rule::at_least(0),
       "How long a segment marked for deletion stays on disk before removal."},
      {"log.preallocate", T::boolean, "false", rule::none(), "Whether new segment files are preallocated."},
      {"log.message.timestamp.type", T::string, "CreateTime", rule::one_of({"CreateTime", "LogAppendTime"}),
       "Whether stored timestamps are the producer's or the broker's append time."},
      {"log.message.timestamp.before.max.ms", T::int64, "9223372036854775807", rule::at_least(0),
       "How far in the past a record's timestamp may be."},
      {"log.message.timestamp.after.max.ms", T::int64, "3600000", rule::at_least(0),
       "How far in the future a record's timestamp may be."},
      {"num.recovery.threads.per.data.dir", T::int32, "2", rule::at_least(1),
       "Threads per data directory that recover logs at startup and flush them at shutdown."},
      {"log.dir.failure.timeout.ms", T::int64, "30000", rule::at_least(1),
       "How long a broker keeps running after a log directory fails before shutting down."},

      // --- replication ----------------------------------------------------------
      {"replica.lag.time.max.ms", T::int64, "30000", rule::none(),
       "A follower that has not caught up with the leader for this long leaves the ISR."},
      {"replica.fetch.max.bytes", T::int32, "1048576", rule::at_least(0),
       "Bytes per partition a follower asks for in one fetch."},
      {"replica.fetch.response.max.bytes", T::int32, "10485760", rule::at_least(0),
       "Bytes a follower asks for in one whole fetch response."},
      {"replica.fetch.wait.max.ms", T::int32, "500", rule::none(),
       "How long a follower's fetch may wait on the leader for new data."},
      {"replica.fetch.min.bytes", T::int32, "1", rule::none(),
       "Bytes a follower's fetch waits for before the leader answers."},
      {"replica.fetch.backoff.ms", T::int32, "1000", rule::at_least(0), "Pause after a failed follower fetch."},
      {"replica.socket.timeout.ms", T::int32, "30000", rule::none(), "Socket timeout of follower fetches."},
      {"replica.socket.receive.buffer.bytes", T::int32, "65536", rule::none(), "SO_RCVBUF of follower fetch sockets."},
      {"replica.high.watermark.checkpoint.interval.ms", T::int64, "5000", rule::none(),
       "How often high watermarks are saved to disk."},
      {"num.replica.fetchers", T::int32, "1", rule::none(), "Fetcher threads per source broker."},
      {"fetch.max.bytes", T::int32, "57671680", rule::at_least(1024), "Largest fetch response the broker builds."},
      {"fetch.purgatory.purge.interval.requests", T::int32, "1000", rule::none(),
       "Completed entries tolerated in the fetch waiting list before it is purged."},
      {"producer.purgatory.purge.interval.requests", T::int32, "1000", rule::none(),
       "Completed entries tolerated in the produce waiting list before it is purged."},
      {"max.incremental.fetch.session.cache.slots", T::int32, "1000", rule::at_least(0),
       "Most incremental fetch sessions (KIP-227) the broker keeps."},

      // --- group coordinator ----------------------------------------------------
      {"group.initial.rebalance.delay.ms", T::int32, "3000", rule::none(),
       "How long the first rebalance of a new classic group waits for more members to join."},
      {"group.min.session.timeout.ms", T::int32, "6000", rule::none(), "Shortest session timeout a classic group member may ask for."},
      {"group.max.session.timeout.ms", T::int32, "1800000", rule::none(), "Longest session timeout a classic group member may ask for."},
      {"group.max.size", T::int32, "2147483647", rule::at_least(1), "Most members one classic group may have."},
      {"group.coordinator.rebalance.protocols", T::list, "classic,consumer",
       rule::list_one_of({"classic", "consumer", "share", "streams"}), "Group protocols the coordinator offers."},
      {"group.consumer.session.timeout.ms", T::int32, "45000", rule::at_least(1),
       "Session timeout of members of consumer-protocol groups (KIP-848)."},
      {"group.consumer.heartbeat.interval.ms", T::int32, "5000", rule::at_least(1),
       "Heartbeat interval of members of consumer-protocol groups (KIP-848)."},
      {"offsets.topic.num.partitions", T::int32, "50", rule::at_least(1),
       "Partitions of __consumer_offsets; fixed once the topic exists."},
      {"offsets.topic.replication.factor", T::int16, "3", rule::at_least(1),
       "Replication factor of __consumer_offsets."},
      {"offsets.topic.segment.bytes", T::int32, "104857600", rule::at_least(1), "Segment size of __consumer_offsets."},
      {"offsets.retention.minutes", T::int32, "10080", rule::at_least(1),
       "How long committed offsets of an empty group are kept."},
      {"offsets.retention.check.interval.ms", T::int64, "600000", rule::at_least(1),
       "How often expired offsets are looked for."},
      {"offsets.commit.timeout.ms", T::int32, "5000", rule::at_least(1),
       "How long an offset commit waits for its write to be replicated."},
      {"offsets.load.buffer.size", T::int32, "5242880", rule::at_least(1),
       "Read size used when loading group state from __consumer_offsets."},

      // --- transactions and producer state --------------------------------------
      {"transaction.state.log.num.partitions", T::int32, "50", rule::at_least(1),
       "Partitions of __transaction_state; fixed once the topic exists."},
      {"transaction.state.log.replication.factor", T::int16, "3", rule::at_least(1),
       "Replication factor of __transaction_state."},
      {"transaction.state.log.min.isr", T::int32, "2", rule::at_least(1), "min.insync.replicas of __transaction_state."},
      {"transaction.state.log.segment.bytes", T::int32, "104857600", rule::at_least(1),
       "Segment size of __transaction_state."},
      {"transaction.max.timeout.ms", T::int32, "900000", rule::at_least(1),
       "Longest transaction timeout a producer may ask for."},
      {"transactional.id.expiration.ms", T::int32, "604800000", rule::at_least(1),
       "How long an idle transactional id is remembered."},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms", T::int32, "10000", rule::at_least(1),
       "How often timed-out transactions are looked for and aborted."},
      {"producer.id.expiration.ms", T::int32, "86400000", rule::at_least(1),
       "How long the state of an idle producer id is kept on a partition."},
      {"producer.id.expiration.check.interval.ms", T::int32, "600000", rule::at_least(1),
       "How often idle producer ids are looked for and expired."},

      // --- shutdown -------------------------------------------------------------
      {"controlled.shutdown.enable", T::boolean, "true", rule::none(),
       "Whether a stopping broker first hands its leaderships to other replicas."},

      // --- security (parsed so files written for Kafka load; not yet served) ----
      {"sasl.enabled.mechanisms", T::list, "GSSAPI", rule::none(), "SASL mechanisms offered to clients."},
      {"sasl.mechanism.inter.broker.protocol", T::string, "GSSAPI", rule::none(), "SASL mechanism between brokers."},
      {"sasl.mechanism.controller.protocol", T::string, "GSSAPI", rule::none(), "SASL mechanism towards controllers."},
      {"ssl.keystore.location", T::string, std::nullopt, rule::none(), "Path of the TLS key store."},
      {"ssl.keystore.password", T::password, std::nullopt, rule::none(), "Password of the TLS key store."},
      {"ssl.key.password", T::password, std::nullopt, rule::none(), "Password of the private key in the key store."},
      {"ssl.truststore.location", T::string, std::nullopt, rule::none(), "Path of the TLS trust store."},
      {"ssl.truststore.password", T::password, std::nullopt, rule::none(), "Password of the TLS trust store."},
      {"ssl.client.auth", T::string, "none", rule::one_of({"required", "requested", "none"}),
       "Whether TLS clients must, may or need not present a certificate."},
      {"principal.builder.class", T::class_name,
       "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder", rule::none(),
       "Plug-in that names the principal of a connection (only the default is supported)."},
      {"super.users", T::string, std::nullopt, rule::none(), "Principals allowed everything, separated by semicolons."},
  };
  return keys;
}

}  // namespace

std::string_view type_name(value_type t) {
  switch (t) {
    case value_type::int16: return "SHORT";
    case value_type::int32: return "INT";
    case value_type::int64: return "LONG";
    case value_type::float64: return "DOUBLE";
    case value_type::boolean: return "BOOLEAN";
    case value_type::string: return "STRING";
    case value_type::list: return "LIST";
    case value_type::password: return "PASSWORD";
    case value_type::class_name: return "CLASS";
  }
  return "UNKNOWN";
}

std::span<const config_key> broker_config_keys() { return table(); }

const config_key* find_broker_key(std::string_view name) {
  const auto& keys = table();
  auto it = std::find_if(keys.begin(), keys.end(), [&](const config_key& k) { return k.name == name; });
  return it == keys.end() ? nullptr : &*it;
}

}  // namespace hw::config
