#include "controller/cluster_control.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <set>

#include "controller/broker_epoch_check.h"
#include "controller/feature_control.h"
#include "controller/metadata/delta.h"

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

// A registration's log dirs: at least one, none reserved or repeated, none
// another broker holds.
bool valid_log_dirs(const metadata_image& image, node_id id, const std::vector<protocol::uuid>& dirs) {
  if (dirs.empty()) return false;
  std::set<protocol::uuid> seen;
  for (const auto& dir : dirs) {
    if (reserved_directory(dir) || !seen.insert(dir).second) return false;
    for (const auto& [other_id, other] : image.brokers) {
      if (other_id != id && std::count(other.log_dirs.begin(), other.log_dirs.end(), dir)) return false;
    }
  }
  return true;
}

msg::broker_registration_change_record registration_change(node_id broker, broker_epoch epoch) {
  msg::broker_registration_change_record change;
  change.broker_id = broker.value;
  change.broker_epoch = epoch.value;
  return change;
}

}  // namespace

error_code cluster_control::registration_error(const metadata_image& image,
                                               const msg::broker_registration_request& request, int64_t now_ms) const {
  if (!options_.cluster_id.empty() && request.cluster_id != options_.cluster_id) {
    return error_code::inconsistent_cluster_id;
  }
  const node_id id(request.broker_id);
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
    bool valid = s != sessions_.end() && s->second.heard && now_ms < session_expiry_ms(s->second);
    if (valid) return error_code::duplicate_broker_registration;
  }
  if (request.is_migrating_zk_broker) return error_code::broker_id_not_registered;
  if (image.version().directory_assignment_supported() && !valid_log_dirs(image, id, request.log_dirs)) {
    return error_code::invalid_registration;
  }
  return feature_control::registration_error(image, request.features);
}

controller_result<msg::broker_registration_response> cluster_control::register_broker(
    const metadata_image& image, const msg::broker_registration_request& request, int64_t new_broker_epoch,
    int64_t now_ms) {
  using result = msg::broker_registration_response;
  if (error_code e = registration_error(image, request, now_ms); e != error_code::none) return failed<result>(e);
  const node_id id(request.broker_id);
  const broker_registration* existing = image.broker(id);
  controller_result<result> out;
  msg::register_broker_record record;
  record.broker_id = id.value;
  record.is_migrating_zk_broker = false;
  record.incarnation_id = request.incarnation_id;
  record.rack = request.rack;
  for (const auto& l : request.listeners) record.end_points.push_back({l.name, l.host, l.port, l.security_protocol, {}});
  for (const auto& f : request.features) {
    record.features.push_back({f.name, f.min_supported_version, f.max_supported_version, {}});
  }
  if (image.version().directory_assignment_supported()) record.log_dirs = request.log_dirs;
  bool new_incarnation = !existing || existing->incarnation_id != request.incarnation_id;
  if (new_incarnation) {
    // The previous incarnation is gone: out of every ISR, and (when it did
    // not shut down cleanly, with ELR) out of every ELR too.
    bool clean = existing && broker_epoch(request.previous_broker_epoch) == existing->epoch;
    if (feature_control::elr_enabled(image) && !clean) {
      replication_.remove_unclean_shutdown(image, id, out.records);
    } else {
      replication_.remove_from_isrs(image, id, out.records);
    }
    record.broker_epoch = new_broker_epoch;
    record.fenced = true;
    sessions_.erase(id);
  } else {
    record.broker_epoch = existing->epoch.value;
    record.fenced = existing->fenced;
    record.in_controlled_shutdown = existing->in_controlled_shutdown;
  }
  out.records.push_back(record);
  heartbeat_session& session = sessions_[id];
  session.last_contact_ms = now_ms;
  session.heard = true;
  session.registration_offset = new_broker_epoch + static_cast<int64_t>(out.records.size()) - 1;
  out.response.broker_epoch = record.broker_epoch;
  return out;
}

cluster_control::broker_state cluster_control::next_state(const metadata_image& image, const broker_registration& b,
                                                          broker_state current,
                                                          const msg::broker_heartbeat_request& request, bool caught_up,
                                                          heartbeat_session& session, int64_t next_offset) const {
  switch (current) {
    case broker_state::fenced:
      if (request.want_shut_down) return broker_state::shutdown_now;
      if (!request.want_fence && caught_up) return broker_state::unfenced;
      return current;
    case broker_state::unfenced:
      if (request.want_fence) return request.want_shut_down ? broker_state::shutdown_now : broker_state::fenced;
      if (request.want_shut_down) {
        return replication_control::leads_any(image, b.id) ? broker_state::controlled_shutdown
                                                           : broker_state::shutdown_now;
      }
      return current;
    case broker_state::controlled_shutdown:
      // Free to go once it leads nothing and every active broker has seen
      // the records that moved its leaderships.
      if (session.controlled_shutdown_offset < 0) session.controlled_shutdown_offset = next_offset - 1;
      if (!replication_control::leads_any(image, b.id) &&
          session.controlled_shutdown_offset <= lowest_active_offset(image)) {
        return broker_state::shutdown_now;
      }
      return current;
    case broker_state::shutdown_now:
      return current;
  }
  return current;
}

controller_result<msg::broker_heartbeat_response> cluster_control::broker_heartbeat(
    const metadata_image& image, const msg::broker_heartbeat_request& request, int64_t next_offset, int64_t now_ms) {
  using result = msg::broker_heartbeat_response;
  const node_id id(request.broker_id);
  api_error epoch = check_broker_epoch(image, id, broker_epoch(request.broker_epoch));
  if (!epoch.ok()) return failed<result>(epoch.code);
  const broker_registration& b = *image.broker(id);
  heartbeat_session& session = sessions_[id];
  session.last_contact_ms = now_ms;
  session.heard = true;

  // A broker that started a controlled shutdown stays in it (fenced or not:
  // its session may have expired meanwhile) until a new incarnation
  // registers; it is never unfenced again.
  const broker_state current = b.in_controlled_shutdown ? broker_state::controlled_shutdown
                               : b.fenced               ? broker_state::fenced
                                                        : broker_state::unfenced;
  // Caught up once it has its latest RegisterBrokerRecord (by default the
  // one that set its epoch).
  const bool caught_up = request.current_metadata_offset >= std::max(b.epoch.value, session.registration_offset);
  const broker_state next = next_state(image, b, current, request, caught_up, session, next_offset);
  controller_result<result> out;
  if (next != current) {
    switch (next) {
      case broker_state::fenced:
      case broker_state::shutdown_now:
        fence_records(image, id, out.records);
        break;
      case broker_state::unfenced:
        unfence_records(image, id, b.epoch, out.records);
        break;
      case broker_state::controlled_shutdown:
        controlled_shutdown_records(image, id, b.epoch, out.records);
        session.controlled_shutdown_offset = next_offset + static_cast<int64_t>(out.records.size()) - 1;
        break;
    }
  }
  if (!request.offline_log_dirs.empty() && image.version().directory_assignment_supported()) {
    offline_dir_records(image, id, request.offline_log_dirs, out.records);
  }
  session.metadata_offset = request.current_metadata_offset;
  out.response.is_caught_up = caught_up;
  out.response.is_fenced = next == broker_state::fenced || next == broker_state::shutdown_now;
  out.response.should_shut_down = next == broker_state::shutdown_now;
  return out;
}

void cluster_control::offline_dir_records(const metadata_image& image, node_id broker,
                                          const std::vector<protocol::uuid>& offline,
                                          std::vector<metadata_record>& out) const {
  // Seen against the image with this heartbeat's own records applied, so a
  // partition changed by both gets consistent records.
  std::string error;
  auto after = replay_all(std::make_shared<const metadata_image>(image), out, image.provenance.offset,
                          image.provenance.epoch, &error);
  assert(after);
  const broker_registration* b = after->broker(broker);
  std::vector<protocol::uuid> newly_offline, still_online;
  for (const auto& dir : b->log_dirs) {
    (std::count(offline.begin(), offline.end(), dir) ? newly_offline : still_online).push_back(dir);
  }
  if (newly_offline.empty()) return;
  replication_.remove_offline_dirs(*after, broker, newly_offline, out);
  msg::broker_registration_change_record change = registration_change(broker, b->epoch);
  change.log_dirs = std::move(still_online);
  out.push_back(change);
}

void cluster_control::fence_records(const metadata_image& image, node_id broker,
                                    std::vector<metadata_record>& out) const {
  const broker_registration* b = image.broker(broker);
  assert(b);
  replication_.remove_from_isrs(image, broker, out);
  msg::broker_registration_change_record change = registration_change(broker, b->epoch);
  change.fenced = 1;
  out.push_back(change);
}

void cluster_control::unfence_records(const metadata_image& image, node_id broker, broker_epoch epoch,
                                      std::vector<metadata_record>& out) const {
  msg::broker_registration_change_record change = registration_change(broker, epoch);
  change.fenced = -1;
  out.push_back(change);
  replication_.elect_after_unfence(image, broker, out);
}

void cluster_control::controlled_shutdown_records(const metadata_image& image, node_id broker, broker_epoch epoch,
                                                  std::vector<metadata_record>& out) const {
  const broker_registration* b = image.broker(broker);
  if (b && !b->in_controlled_shutdown) {
    msg::broker_registration_change_record change = registration_change(broker, epoch);
    change.in_controlled_shutdown = 1;
    out.push_back(change);
  }
  replication_.remove_from_isrs(image, broker, out);
}

int64_t cluster_control::lowest_active_offset(const metadata_image& image) const {
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (const auto& [id, s] : sessions_) {
    if (image.active_broker(id)) lowest = std::min(lowest, s.metadata_offset);
  }
  return lowest;
}

std::vector<metadata_record> cluster_control::fence_expired(const metadata_image& image, int64_t now_ms) {
  std::vector<metadata_record> out;
  std::shared_ptr<const metadata_image> scratch;
  for (const auto& [id, b] : image.brokers) {
    if (b.fenced) continue;
    auto [session, fresh] = sessions_.try_emplace(id);
    if (fresh) session->second.last_contact_ms = now_ms;
    if (now_ms < session_expiry_ms(session->second)) continue;
    // Each fencing is generated against the image the ones before it left.
    if (!scratch) scratch = std::make_shared<const metadata_image>(image);
    std::vector<metadata_record> fenced;
    fence_records(*scratch, id, fenced);
    std::string error;
    auto next = replay_all(scratch, fenced, scratch->provenance.offset, scratch->provenance.epoch, &error);
    assert(next);  // our own records always fit the image they came from
    scratch = std::move(next);
    out.insert(out.end(), fenced.begin(), fenced.end());
  }
  return out;
}

std::optional<int64_t> cluster_control::next_session_expiry_ms(const metadata_image& image) const {
  std::optional<int64_t> first;
  for (const auto& [id, b] : image.brokers) {
    if (b.fenced) continue;
    auto session = sessions_.find(id);
    if (session == sessions_.end()) continue;
    const int64_t expiry = session_expiry_ms(session->second);
    if (!first || expiry < *first) first = expiry;
  }
  return first;
}

controller_result<msg::controller_registration_response> cluster_control::register_controller(
    const metadata_image& image, const msg::controller_registration_request& request) {
  controller_result<msg::controller_registration_response> out;
  if (!image.version().controller_registration_supported()) {
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

controller_result<msg::unregister_broker_response> cluster_control::unregister_broker(
    const metadata_image& image, const msg::unregister_broker_request& request) {
  controller_result<msg::unregister_broker_response> out;
  const node_id id(request.broker_id);
  const broker_registration* b = image.broker(id);
  if (!b) {
    out.response.error_code = static_cast<int16_t>(error_code::broker_id_not_registered);
    out.response.error_message = "Broker ID " + std::to_string(id.value) + " is not currently registered";
    return out;
  }
  replication_.remove_from_isrs_and_elrs(image, id, out.records);
  msg::unregister_broker_record record;
  record.broker_id = id.value;
  record.broker_epoch = b->epoch.value;
  out.records.push_back(record);
  out.response.error_message = std::nullopt;
  sessions_.erase(id);
  return out;
}

}  // namespace hw::controller
