#pragma once
// Cluster control: who is in the cluster — the image's brokers and
// controllers, written by RegisterBrokerRecord, BrokerRegistrationChangeRecord,
// UnregisterBrokerRecord and RegisterControllerRecord — with Kafka 4.3's
// ClusterControlManager and BrokerHeartbeatManager rules: registration
// (incarnations, log dirs, supported features), heartbeats and the broker
// states they move through (fenced, unfenced, controlled shutdown, shut
// down), session expiry, and unregistration. The partition changes a
// broker's new state calls for come from replication control.
//
// Soft state, not in the log, as in Kafka: each broker's heartbeat session
// (last contact, reported metadata offset, controlled-shutdown progress).
// It changes as requests arrive, not on replay: a session is this
// controller's view of the broker, and a new active controller starts them
// afresh (forget_sessions).
//
// Owner: the controller strand, through quorum_controller. Pure: the clock
// is the now_ms every call carries.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/controller_result.h"
#include "controller/metadata/image.h"
#include "controller/replication_control.h"
#include "protocol/messages/broker_heartbeat.h"
#include "protocol/messages/broker_registration.h"
#include "protocol/messages/controller_registration.h"
#include "protocol/messages/unregister_broker.h"

namespace hw::controller {

struct cluster_control_options {
  std::string cluster_id;  // empty: any cluster id is accepted
  int64_t broker_session_timeout_ms = 9000;
};

class cluster_control {
 public:
  cluster_control(cluster_control_options options, const replication_control& replication)
      : options_(std::move(options)), replication_(replication) {}

  // new_broker_epoch: the offset the first generated record will get (the
  // log end, Kafka's next write offset); a new incarnation takes it as its
  // epoch. Records removing the old incarnation from ISRs come first, the
  // RegisterBrokerRecord last.
  controller_result<msg::broker_registration_response> register_broker(
      const metadata_image& image, const msg::broker_registration_request& request, int64_t new_broker_epoch,
      int64_t now_ms);
  // next_offset: the offset the first generated record will get (the log
  // end), so a controlled shutdown knows when the others have seen it.
  controller_result<msg::broker_heartbeat_response> broker_heartbeat(const metadata_image& image,
                                                                     const msg::broker_heartbeat_request& request,
                                                                     int64_t next_offset, int64_t now_ms);
  // Removes a broker (kafka-cluster.sh unregister): out of every ISR and
  // ELR, then its registration.
  controller_result<msg::unregister_broker_response> unregister_broker(const metadata_image& image,
                                                                       const msg::unregister_broker_request& request);
  // A controller announcing its listeners and features (DescribeCluster
  // answers with them): a RegisterControllerRecord.
  static controller_result<msg::controller_registration_response> register_controller(
      const metadata_image& image, const msg::controller_registration_request& request);

  // Fences every unfenced broker whose session expired (no heartbeat for
  // more than broker.session.timeout.ms) and moves its leaderships away. A
  // broker unfenced before this controller took over gets a fresh session
  // at the first call.
  std::vector<metadata_record> fence_expired(const metadata_image& image, int64_t now_ms);
  // When the first session of an unfenced broker runs out if no heartbeat
  // comes; nullopt: none to watch.
  std::optional<int64_t> next_session_expiry_ms(const metadata_image& image) const;
  // Leadership lost: sessions restart at the next contact.
  void forget_sessions() { sessions_.clear(); }

 private:
  struct heartbeat_session {
    int64_t last_contact_ms = 0;
    // False for the session granted when this controller took over: no
    // registration or heartbeat of the incarnation has reached it yet.
    bool heard = false;
    int64_t metadata_offset = -1;
    int64_t controlled_shutdown_offset = -1;
    // Where its latest RegisterBrokerRecord went (a re-registration of the
    // same incarnation keeps the epoch but lands later): it is caught up
    // once its metadata reaches it.
    int64_t registration_offset = -1;
  };
  enum class broker_state { fenced, unfenced, controlled_shutdown, shutdown_now };

  // Why a BrokerRegistration is refused (none when it is accepted).
  error_code registration_error(const metadata_image& image, const msg::broker_registration_request& request,
                                int64_t now_ms) const;
  // Where a heartbeat moves its broker (Kafka's calculateNextBrokerState).
  broker_state next_state(const metadata_image& image, const broker_registration& broker, broker_state current,
                          const msg::broker_heartbeat_request& request, bool caught_up, heartbeat_session& session,
                          int64_t next_offset) const;
  void fence_records(const metadata_image& image, node_id broker, std::vector<metadata_record>& out) const;
  void unfence_records(const metadata_image& image, node_id broker, broker_epoch epoch,
                       std::vector<metadata_record>& out) const;
  void controlled_shutdown_records(const metadata_image& image, node_id broker, broker_epoch epoch,
                                   std::vector<metadata_record>& out) const;
  // A heartbeat reporting log dirs offline: the replicas in them leave their
  // ISRs and the registration keeps the dirs still online (JBOD).
  void offline_dir_records(const metadata_image& image, node_id broker, const std::vector<protocol::uuid>& offline,
                           std::vector<metadata_record>& out) const;
  int64_t lowest_active_offset(const metadata_image& image) const;
  // The first moment the session counts as expired: fence_expired fences then.
  int64_t session_expiry_ms(const heartbeat_session& s) const {
    return s.last_contact_ms + options_.broker_session_timeout_ms + 1;
  }

  cluster_control_options options_;
  const replication_control& replication_;
  std::map<node_id, heartbeat_session> sessions_;
};

}  // namespace hw::controller
