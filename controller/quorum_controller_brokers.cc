// Broker lifecycle: registration, heartbeats (fencing, unfencing,
// controlled shutdown) and producer-id blocks.

#include <algorithm>
#include <cassert>
#include <limits>
#include <set>

#include "controller/metadata/delta.h"
#include "controller/quorum_controller.h"

namespace hw::controller {

namespace {

// Kafka's DirectoryId.reserved: the first 100 ids (UNASSIGNED, LOST,
// MIGRATING, ...) have all-zero high bits.
bool reserved_directory(const protocol::uuid& id) {
  for (size_t i = 0; i < 15; ++i) {
    if (id.bytes[i] != 0) return false;
  }
  return id.bytes[15] < 100;
}

template <typename R>
controller_result<R> failed(error_code code) {
  controller_result<R> out;
  out.response.error_code = static_cast<int16_t>(code);
  return out;
}

}  // namespace

error_code quorum_controller::registration_error(const msg::broker_registration_request& request,
                                                 int64_t now_ms) const {
  const metadata_image& image = *image_;
  if (!options_.cluster_id.empty() && request.cluster_id != options_.cluster_id) {
    return error_code::inconsistent_cluster_id;
  }
  int32_t id = request.broker_id;
  const broker_registration* existing = image.broker(id);
  // Another incarnation holding a live session keeps the id. Live means
  // heard from by this controller within the session timeout: the session
  // an unfenced broker is granted when a controller takes over keeps it
  // from being fenced, but does not keep out a new incarnation. So a node
  // restarted after a crash re-registers at once when its controller
  // restarted with it (one combined node), rather than after
  // broker.session.timeout.ms as in Kafka; a broker killed under a
  // controller that stays up still waits for its session to expire.
  if (existing && existing->incarnation_id != request.incarnation_id && !existing->fenced) {
    auto s = sessions_.find(id);
    bool valid = s != sessions_.end() && s->second.heard &&
                 now_ms < session_expiry_ms(s->second);
    if (valid) return error_code::duplicate_broker_registration;
  }
  if (request.is_migrating_zk_broker) return error_code::broker_id_not_registered;
  if (image.version().directory_assignment_supported()) {
    if (request.log_dirs.empty()) return error_code::invalid_registration;
    std::set<protocol::uuid> seen;
    for (const auto& dir : request.log_dirs) {
      if (reserved_directory(dir) || !seen.insert(dir).second) return error_code::invalid_registration;
      for (const auto& [other_id, other] : image.brokers) {
        if (other_id != id && std::count(other.log_dirs.begin(), other.log_dirs.end(), dir)) {
          return error_code::invalid_registration;
        }
      }
    }
  }
  // Every finalized feature must be in the broker's supported range (a
  // feature it does not list counts as supporting only version 0).
  bool lists_metadata_version = false;
  for (const auto& f : request.features) {
    lists_metadata_version |= f.name == metadata_version::feature_name;
    int16_t finalized = image.feature_level(f.name).value_or(0);
    if (finalized < f.min_supported_version || finalized > f.max_supported_version) {
      return error_code::unsupported_version;
    }
  }
  if (!lists_metadata_version) return error_code::invalid_registration;
  for (const auto& [name, level] : image.features) {
    bool listed = std::any_of(request.features.begin(), request.features.end(),
                              [&](const auto& f) { return f.name == name; });
    if (!listed && level != 0) return error_code::unsupported_version;
  }
  return error_code::none;
}

controller_result<msg::broker_registration_response> quorum_controller::register_broker(
    const msg::broker_registration_request& request, int16_t version, int64_t new_broker_epoch, int64_t now_ms) {
  flush();
  (void)version;
  using result = msg::broker_registration_response;
  if (error_code e = registration_error(request, now_ms); e != error_code::none) return failed<result>(e);
  const metadata_image& image = *image_;
  int32_t id = request.broker_id;
  const broker_registration* existing = image.broker(id);
  metadata_version mv = image.version();
  controller_result<result> out;
  msg::register_broker_record record;
  record.broker_id = id;
  record.is_migrating_zk_broker = false;
  record.incarnation_id = request.incarnation_id;
  record.rack = request.rack;
  for (const auto& l : request.listeners) record.end_points.push_back({l.name, l.host, l.port, l.security_protocol, {}});
  for (const auto& f : request.features) {
    record.features.push_back({f.name, f.min_supported_version, f.max_supported_version, {}});
  }
  if (mv.directory_assignment_supported()) record.log_dirs = request.log_dirs;
  bool new_incarnation = !existing || existing->incarnation_id != request.incarnation_id;
  if (new_incarnation) {
    // The previous incarnation is gone: out of every ISR, and (when it did
    // not shut down cleanly, with ELR) out of every ELR too.
    bool clean = existing && request.previous_broker_epoch == existing->epoch;
    if (elr_enabled(image) && !clean) {
      leader_and_isr_updates(image, no_leader, no_leader, id,
                             [&](const partition_registration& p) {
                               return p.in_isr(id) || std::count(p.elr.begin(), p.elr.end(), id);
                             },
                             out.records);
    } else {
      leader_and_isr_updates(image, id, no_leader, no_leader,
                             [&](const partition_registration& p) { return p.in_isr(id); }, out.records);
    }
    record.broker_epoch = new_broker_epoch;
    record.fenced = true;
    sessions_.erase(id);
  } else {
    record.broker_epoch = existing->epoch;
    record.fenced = existing->fenced;
    record.in_controlled_shutdown = existing->in_controlled_shutdown;
  }
  out.records.push_back(record);
  sessions_[id].last_contact_ms = now_ms;
  sessions_[id].heard = true;
  sessions_[id].registration_offset = new_broker_epoch + static_cast<int64_t>(out.records.size()) - 1;
  out.response.broker_epoch = record.broker_epoch;
  return out;
}

controller_result<msg::broker_heartbeat_response> quorum_controller::broker_heartbeat(
    const msg::broker_heartbeat_request& request, int16_t version, int64_t next_offset, int64_t now_ms) {
  flush();
  (void)version;
  using result = msg::broker_heartbeat_response;
  api_error epoch = check_broker_epoch(request.broker_id, request.broker_epoch);
  if (!epoch.ok()) return failed<result>(epoch.code);
  const metadata_image& image = *image_;
  int32_t id = request.broker_id;
  const broker_registration& b = *image.broker(id);
  heartbeat_session& session = sessions_[id];
  session.last_contact_ms = now_ms;
  session.heard = true;

  enum class state { fenced, unfenced, controlled_shutdown, shutdown_now };
  // A broker that started a controlled shutdown stays in it (fenced or not:
  // its session may have expired meanwhile) until a new incarnation
  // registers; it is never unfenced again.
  state current = b.in_controlled_shutdown ? state::controlled_shutdown : b.fenced ? state::fenced : state::unfenced;
  // Caught up once it has its latest RegisterBrokerRecord (by default the
  // one that set its epoch).
  bool caught_up = request.current_metadata_offset >= std::max(b.epoch, session.registration_offset);
  state next = current;
  switch (current) {
    case state::fenced:
      if (request.want_shut_down) {
        next = state::shutdown_now;
      } else if (!request.want_fence && caught_up) {
        next = state::unfenced;
      }
      break;
    case state::unfenced:
      if (request.want_fence) {
        next = request.want_shut_down ? state::shutdown_now : state::fenced;
      } else if (request.want_shut_down) {
        next = has_leaderships(image, id) ? state::controlled_shutdown : state::shutdown_now;
      }
      break;
    case state::controlled_shutdown:
      // Free to go once it leads nothing and every active broker has seen
      // the records that moved its leaderships.
      if (session.controlled_shutdown_offset < 0) session.controlled_shutdown_offset = next_offset - 1;
      if (!has_leaderships(image, id) && session.controlled_shutdown_offset <= lowest_active_offset(image)) {
        next = state::shutdown_now;
      }
      break;
    case state::shutdown_now:
      break;
  }

  controller_result<result> out;
  if (next != current) {
    switch (next) {
      case state::fenced:
      case state::shutdown_now:
        fence_records(image, id, out.records);
        break;
      case state::unfenced:
        unfence_records(image, id, b.epoch, out.records);
        break;
      case state::controlled_shutdown:
        controlled_shutdown_records(image, id, b.epoch, out.records);
        session.controlled_shutdown_offset = next_offset + static_cast<int64_t>(out.records.size()) - 1;
        break;
    }
  }
  if (!request.offline_log_dirs.empty() && image.version().directory_assignment_supported()) {
    offline_dir_records(id, request.offline_log_dirs, out.records);
  }
  session.metadata_offset = request.current_metadata_offset;
  out.response.is_caught_up = caught_up;
  out.response.is_fenced = next == state::fenced || next == state::shutdown_now;
  out.response.should_shut_down = next == state::shutdown_now;
  return out;
}

void quorum_controller::offline_dir_records(int32_t broker, const std::vector<protocol::uuid>& offline,
                                            std::vector<metadata_record>& out) const {
  // Seen against the image with this heartbeat's own records applied, so a
  // partition changed by both gets consistent records.
  std::string error;
  auto image = replay_all(image_, out, image_->provenance.offset, image_->provenance.epoch, &error);
  assert(image);
  const broker_registration* b = image->broker(broker);
  std::vector<protocol::uuid> newly_offline, still_online;
  for (const auto& dir : b->log_dirs) {
    (std::count(offline.begin(), offline.end(), dir) ? newly_offline : still_online).push_back(dir);
  }
  if (newly_offline.empty()) return;
  // Replicas in a lost directory leave their ISRs, as a fenced broker's do.
  leader_and_isr_updates(*image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) {
                           for (size_t i = 0; i < p.replicas.size() && i < p.directories.size(); ++i) {
                             if (p.replicas[i] == broker &&
                                 std::count(newly_offline.begin(), newly_offline.end(), p.directories[i])) {
                               return true;
                             }
                           }
                           return false;
                         },
                         out);
  msg::broker_registration_change_record change;
  change.broker_id = broker;
  change.broker_epoch = b->epoch;
  change.log_dirs = std::move(still_online);
  out.push_back(change);
}

controller_result<msg::controller_registration_response> quorum_controller::register_controller(
    const msg::controller_registration_request& request) {
  flush();
  controller_result<msg::controller_registration_response> out;
  if (!image_->version().controller_registration_supported()) {
    out.response.error_code = static_cast<int16_t>(error_code::unsupported_version);
    out.response.error_message = "The current MetadataVersion is too old to support controller registrations.";
    return out;
  }
  msg::register_controller_record record;
  record.controller_id = request.controller_id;
  record.incarnation_id = request.incarnation_id;
  record.zk_migration_ready = false;
  for (const auto& l : request.listeners) record.end_points.push_back({l.name, l.host, l.port, l.security_protocol, {}});
  for (const auto& f : request.features) {
    record.features.push_back({f.name, f.min_supported_version, f.max_supported_version, {}});
  }
  out.records.push_back(record);
  out.response.error_message = std::nullopt;
  return out;
}

controller_result<msg::unregister_broker_response> quorum_controller::unregister_broker(
    const msg::unregister_broker_request& request) {
  flush();
  controller_result<msg::unregister_broker_response> out;
  int32_t id = request.broker_id;
  const broker_registration* b = image_->broker(id);
  if (!b) {
    out.response.error_code = static_cast<int16_t>(error_code::broker_id_not_registered);
    out.response.error_message = "Broker ID " + std::to_string(id) + " is not currently registered";
    return out;
  }
  // The partitions it is in the ISR of, then (disjoint) those it is an
  // ELR member of, as Kafka's two passes.
  leader_and_isr_updates(*image_, id, no_leader, no_leader,
                         [&](const partition_registration& p) { return p.in_isr(id); }, out.records);
  leader_and_isr_updates(*image_, id, no_leader, no_leader,
                         [&](const partition_registration& p) {
                           return std::count(p.elr.begin(), p.elr.end(), id) > 0;
                         },
                         out.records);
  msg::unregister_broker_record record;
  record.broker_id = id;
  record.broker_epoch = b->epoch;
  out.records.push_back(record);
  out.response.error_message = std::nullopt;
  sessions_.erase(id);
  return out;
}

controller_result<msg::allocate_producer_ids_response> quorum_controller::allocate_producer_ids(
    const msg::allocate_producer_ids_request& request) {
  flush();
  using result = msg::allocate_producer_ids_response;
  api_error epoch = check_broker_epoch(request.broker_id, request.broker_epoch);
  if (!epoch.ok()) return failed<result>(epoch.code);
  constexpr int32_t block_size = 1000;  // Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE
  int64_t start = image_->next_producer_id;
  if (start > std::numeric_limits<int64_t>::max() - block_size) {
    return failed<result>(error_code::unknown_server_error);
  }
  controller_result<result> out;
  msg::producer_ids_record record;
  record.broker_id = request.broker_id;
  record.broker_epoch = request.broker_epoch;
  record.next_producer_id = start + block_size;
  out.records.push_back(record);
  out.response.producer_id_start = start;
  out.response.producer_id_len = block_size;
  return out;
}

}  // namespace hw::controller
