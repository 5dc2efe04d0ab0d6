#pragma once
// Broker-wide state that handlers consult. Built by main before the
// listeners start and outliving every connection. The pointers are null in
// unit tests of the front door that need none of them.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/features.h"
#include "broker/handler_registry.h"

namespace hw::config {
struct broker_config;
}

namespace hw::broker {

namespace fetch {
class shared_fetch_sessions;
}
class streams_topic_creator;
namespace group {
class group_coordinator;
}
namespace txn {
class txn_coordinator;
class txn_verifier;
}
class metadata_publisher;
class replica_manager;
class replication_quota;
class controller_service;
class raft_driver;
class stall_guard;
class producer_id_manager;
class alter_partition_manager;
class log_dir_mover;
class scram_credential_store;
class authorizer_store;
class delegation_token_store;
namespace metrics {
class broker_metrics;
}
namespace quota {
class client_quotas;
}

struct broker_services {
  const handler_registry* handlers = nullptr;
  finalized_features finalized;

  const config::broker_config* config = nullptr;
  int32_t node_id = -1;
  std::string cluster_id;
  // The broker's published metadata image and the partitions it hosts.
  metadata_publisher* metadata = nullptr;
  replica_manager* replicas = nullptr;
  // replica.selector.class is Kafka's RackAwareReplicaSelector (KIP-392).
  bool rack_aware_replica_selector = false;
  // The leader side's replication throttle (null: none).
  replication_quota* leader_quota = nullptr;
  fetch::shared_fetch_sessions* fetch_sessions = nullptr;
  // The classic group coordinator's shards on this broker.
  group::group_coordinator* groups = nullptr;
  // The internal topics streams groups need, created in the background
  // (null: none are created).
  streams_topic_creator* streams_topics = nullptr;
  // The transaction coordinator's shards on this broker.
  txn::txn_coordinator* txns = nullptr;
  // Asks transaction coordinators before a producer's first transactional
  // write to a partition (null: transaction.partition.verification.enable
  // is off).
  txn::txn_verifier* txn_verifier = nullptr;
  // This process's controller (process.roles containing controller); it
  // may be a standby.
  controller_service* controller = nullptr;
  // The metadata quorum's driver: a voter or an observer.
  raft_driver* raft = nullptr;
  // After a stall, whether this broker's leaderships are in doubt (null: never).
  stall_guard* stalls = nullptr;
  // The SCRAM credentials of the published image, for the SASL servers
  // (the metadata publisher keeps it current; any strand may read it).
  const scram_credential_store* scram_credentials = nullptr;
  // The ACL authorizer, kept current by the metadata publisher (null: no
  // authorizer configured, every request allowed; see
  // security/authorization.h).
  const authorizer_store* authorizer = nullptr;
  // The delegation tokens this broker serves (DescribeDelegationToken, SCRAM
  // token logins), kept current by the metadata publisher.
  const delegation_token_store* delegation_tokens = nullptr;
  // Client quotas, kept current by the metadata publisher (null in tests
  // that need none; broker/quota/README.md).
  quota::client_quotas* quotas = nullptr;
  // Producer ids for idempotent producers (InitProducerId).
  producer_id_manager* producer_ids = nullptr;
  // Partition leaders' ISR changes to the active controller.
  alter_partition_manager* isr_changes = nullptr;
  // Moves replicas between this broker's log dirs (AlterReplicaLogDirs).
  log_dir_mover* log_mover = nullptr;
  // Request and replication metrics (null in tests that need none).
  ::hw::broker::metrics::broker_metrics* metrics = nullptr;
  std::function<int64_t()> now_ms;

  // What controller listeners (controller.listener.names) serve instead of
  // `handlers`.
  const handler_registry* controller_handlers = nullptr;
  std::vector<std::string> controller_listener_names;
  bool is_controller_listener(std::string_view listener) const {
    for (const auto& n : controller_listener_names)
      if (n == listener) return true;
    return false;
  }
  const handler_registry& handlers_for(std::string_view listener) const {
    for (const auto& n : controller_listener_names)
      if (n == listener && controller_handlers) return *controller_handlers;
    return *handlers;
  }
};

}  // namespace hw::broker
