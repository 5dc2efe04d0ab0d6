#pragma once
// metadata_image: the cluster's metadata as of one offset of the metadata
// log — topics with their partition registrations, brokers and controllers,
// configs, client quotas, features, the producer-id block, SCRAM credentials,
// ACLs — built only
// by replaying
// records (metadata_delta). Immutable once published and shared as
// std::shared_ptr<const metadata_image>, so readers on any thread keep the
// image they hold while the next is built. Topics are shared between
// consecutive images: the next image copies the map of pointers and only
// the topics a batch touched.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controller/metadata/acls.h"
#include "controller/metadata/metadata_version.h"
#include "controller/metadata/quotas.h"
#include "protocol/sasl/scram.h"
#include "protocol/wire/uuid.h"
#include "storage/types.h"

namespace hw::controller {

using storage::broker_epoch;
using storage::leader_epoch;
using storage::node_id;
using storage::partition_epoch;

// Kafka's sentinels: no leader (in a registration and a change record), and
// a change record that leaves the leader as it is.
inline constexpr node_id no_leader{-1};
inline constexpr int32_t no_leader_change = -2;

// A topic's id: a uuid kept apart from the image's other uuids (log
// directories, incarnations), so that one cannot be passed for the other.
// Records and requests carry the bare uuid; `value` is it.
struct topic_id {
  protocol::uuid value;

  topic_id() = default;
  explicit topic_id(const protocol::uuid& id) : value(id) {}
  bool is_zero() const { return value.is_zero(); }
  auto operator<=>(const topic_id&) const = default;
  bool operator==(const topic_id&) const = default;
};

// LeaderRecoveryState: RECOVERED 0, RECOVERING 1 (after an unclean election).
enum class leader_recovery_state : int8_t { recovered = 0, recovering = 1 };

struct partition_registration {
  std::vector<node_id> replicas;
  std::vector<node_id> isr;
  std::vector<node_id> elr;             // eligible leader replicas (KIP-966)
  std::vector<node_id> last_known_elr;  // ELR members last seen before the ELR emptied
  std::vector<node_id> removing;        // reassignment: replicas on their way out
  std::vector<node_id> adding;          // reassignment: replicas on their way in
  node_id leader = no_leader;
  int8_t leader_recovery_state = 0;
  storage::leader_epoch leader_epoch{0};
  storage::partition_epoch partition_epoch{0};
  std::vector<protocol::uuid> directories;  // per replica, same order

  bool has_leader() const { return leader != no_leader; }
  bool in_isr(node_id broker) const;
  bool is_replica(node_id broker) const;
  bool operator==(const partition_registration&) const = default;
};

struct topic_image {
  std::string name;
  controller::topic_id id;
  std::map<int32_t, partition_registration> partitions;
};

struct broker_endpoint {
  std::string name;  // listener name
  std::string host;
  uint16_t port = 0;
  int16_t security_protocol = 0;  // Kafka's SecurityProtocol id (PLAINTEXT 0)
  bool operator==(const broker_endpoint&) const = default;
};

struct supported_feature {
  int16_t min_version = 0;
  int16_t max_version = 0;
  bool operator==(const supported_feature&) const = default;
};

struct broker_registration {
  node_id id{-1};
  broker_epoch epoch{-1};  // the offset of its RegisterBrokerRecord
  protocol::uuid incarnation_id;
  std::vector<broker_endpoint> endpoints;
  std::optional<std::string> rack;
  bool fenced = true;
  bool in_controlled_shutdown = false;
  std::map<std::string, supported_feature> features;
  std::vector<protocol::uuid> log_dirs;
  std::vector<protocol::uuid> cordoned_log_dirs;

  const broker_endpoint* endpoint(std::string_view listener) const;
  bool operator==(const broker_registration&) const = default;
};

struct controller_registration {
  node_id id{-1};
  protocol::uuid incarnation_id;
  std::vector<broker_endpoint> endpoints;
  std::map<std::string, supported_feature> features;
  bool operator==(const controller_registration&) const = default;
};

// Kafka's ConfigResource.Type ids as ConfigRecord carries them.
enum class config_resource_type : int8_t {
  unknown = 0,
  topic = 2,
  broker = 4,  // name "" is the cluster-wide default
  broker_logger = 8,
  client_metrics = 16,
  group = 32,
};

struct config_resource {
  config_resource_type type = config_resource_type::unknown;
  std::string name;
  auto operator<=>(const config_resource&) const = default;
};

// Where an image stands in the metadata log: the offset of the last record
// replayed into it and the quorum epoch of its batch (-1, -1 for the empty
// image).
struct image_provenance {
  storage::offset offset{-1};
  leader_epoch epoch{-1};
  bool operator==(const image_provenance&) const = default;
};

// A delegation token (KIP-48) as DelegationTokenRecord holds it: the
// principals as "Type:name" text. Never its HMAC: that is derived from the
// token id with delegation.token.secret.key wherever it is needed.
struct delegation_token {
  std::string token_id;
  std::string owner;
  std::string requester;
  std::vector<std::string> renewers;
  int64_t issue_ms = 0;
  int64_t max_ms = 0;     // it cannot be renewed past this
  int64_t expiry_ms = 0;  // it must be renewed before this
  bool operator==(const delegation_token&) const = default;
};

struct metadata_image {
  std::map<topic_id, std::shared_ptr<const topic_image>> topics_by_id;
  std::map<std::string, topic_id, std::less<>> topics_by_name;
  std::map<node_id, broker_registration> brokers;
  std::map<node_id, controller_registration> controllers;
  std::map<config_resource, std::map<std::string, std::string>> configs;
  std::map<std::string, int16_t, std::less<>> features;  // metadata.version included
  // Client quotas by entity (ClientQuotaRecord): only entities with values.
  client_quota_table client_quotas;
  int64_t next_producer_id = 0;  // the first id of the next block to hand out
  // SCRAM credentials (KIP-554) by mechanism, then user: salt, stored and
  // server key and iterations, as UserScramCredentialRecord holds them.
  protocol::scram_credential_table scram;
  // ACLs by the id of their AccessControlEntryRecord.
  std::map<protocol::uuid, acl_entry> acls;
  // Delegation tokens by token id.
  std::map<std::string, delegation_token, std::less<>> delegation_tokens;
  image_provenance provenance;

  const topic_image* topic(std::string_view name) const;
  const topic_image* topic(const topic_id& id) const;
  const partition_registration* partition(const topic_id& topic, int32_t partition) const;
  const partition_registration* partition(std::string_view topic, int32_t partition) const;

  const broker_registration* broker(node_id id) const;
  // Registered, unfenced and not shutting down: may lead, join ISRs and
  // take new replicas' leadership.
  bool active_broker(node_id id) const;
  // The log dir a new replica on broker goes to (Kafka's defaultDir): its
  // only log dir; UNASSIGNED with several (the broker picks) or when it is
  // not registered; MIGRATING when it registered none.
  protocol::uuid default_log_dir(node_id broker) const;
  // Unfenced brokers, by id.
  std::vector<node_id> alive_brokers() const;
  // (broker id, endpoint) of every broker with that listener, fenced or not.
  std::vector<std::pair<node_id, broker_endpoint>> endpoints(std::string_view listener) const;

  std::optional<int16_t> feature_level(std::string_view name) const;
  // metadata.version; the minimum when the log has not set it.
  metadata_version version() const;

  const std::map<std::string, std::string>* config(const config_resource& resource) const;
  std::optional<std::string> config(config_resource_type type, std::string_view name,
                                    std::string_view key) const;

  const protocol::scram_credential* scram_credential(protocol::scram_mechanism mechanism,
                                                    std::string_view user) const;

  bool empty() const;
};

}  // namespace hw::controller
