#include "controller/quorum_controller.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <limits>

#include "controller/metadata/delta.h"

namespace hw::controller {

namespace {

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

msg::feature_level_record feature(std::string name, int16_t level) {
  msg::feature_level_record r;
  r.name = std::move(name);
  r.feature_level = level;
  return r;
}

}  // namespace

std::vector<metadata_record> bootstrap_records(metadata_version mv, int32_t min_insync_replicas) {
  std::vector<metadata_record> out;
  bool transaction = mv.level >= 13;  // metadata transactions since 3.6-IV1
  if (transaction) {
    msg::begin_transaction_record begin;
    begin.name = "Bootstrap records";
    out.push_back(begin);
  }
  out.push_back(feature(std::string(metadata_version::feature_name), mv.level));
  // The other features Kafka 4.3.1's storage tool finalizes by default at
  // 4.3-IV0, except share.version and streams.version: Highwater has no
  // share or streams groups, so its brokers do not support them (and would
  // be refused registration). Older metadata versions start with
  // metadata.version alone.
  if (mv >= latest_production_metadata_version) {
    out.push_back(feature("eligible.leader.replicas.version", 1));
    out.push_back(feature("group.version", 1));
    out.push_back(feature("transaction.version", 2));
    // With ELR on, the cluster-wide min ISR is fixed in the log.
    msg::config_record min_isr;
    min_isr.resource_type = static_cast<int8_t>(config_resource_type::broker);
    min_isr.resource_name = "";
    min_isr.name = "min.insync.replicas";
    min_isr.value = std::to_string(min_insync_replicas);
    out.push_back(min_isr);
  }
  if (transaction) out.push_back(msg::end_transaction_record{});
  return out;
}

quorum_controller::quorum_controller(quorum_controller_options options,
                                     std::shared_ptr<const metadata_image> committed)
    : options_(std::move(options)),
      image_(committed ? std::move(committed) : std::make_shared<const metadata_image>()),
      random_(options_.random_seed) {}

void quorum_controller::flush() const {
  if (!pending_) return;
  image_ = pending_->apply(image_->provenance.offset, image_->provenance.epoch);
  pending_.reset();
}

std::optional<std::string> quorum_controller::replay(const metadata_record& record) {
  // Records replayed one by one gather in one delta, published when the
  // image is next needed: replaying a long log costs one image copy, not
  // one per record.
  if (!pending_) pending_ = std::make_unique<metadata_delta>(image_);
  return pending_->replay(record);
}

std::optional<std::string> quorum_controller::replay(const std::vector<metadata_record>& records) {
  flush();
  return replay(records, image_->provenance.offset, image_->provenance.epoch);
}

std::optional<std::string> quorum_controller::replay(const std::vector<metadata_record>& records,
                                                     storage::offset last_offset, int32_t epoch) {
  if (!pending_) pending_ = std::make_unique<metadata_delta>(image_);
  for (const auto& r : records) {
    if (auto refused = pending_->replay(r)) {
      flush();
      return refused;
    }
  }
  image_ = pending_->apply(last_offset, epoch);
  pending_.reset();
  return std::nullopt;
}

void quorum_controller::revert_to(std::shared_ptr<const metadata_image> committed) {
  assert(committed);
  pending_.reset();
  image_ = std::move(committed);
  sessions_.clear();
}

bool quorum_controller::is_active(const metadata_image& image, int32_t broker) const {
  const broker_registration* b = image.broker(broker);
  return b && !b->fenced && !b->in_controlled_shutdown;
}

bool quorum_controller::has_leaderships(const metadata_image& image, int32_t broker) const {
  for (const auto& [_, topic] : image.topics_by_id) {
    for (const auto& [__, p] : topic->partitions) {
      if (p.leader == broker) return true;
    }
  }
  return false;
}

int32_t quorum_controller::effective_min_isr(const metadata_image& image, const topic_image& topic) const {
  int64_t min_isr = options_.min_insync_replicas;
  auto from = [&](config_resource_type type, const std::string& name) {
    if (auto v = image.config(type, name, "min.insync.replicas")) {
      if (auto n = parse_int(*v)) {
        min_isr = *n;
        return true;
      }
    }
    return false;
  };
  if (!from(config_resource_type::topic, topic.name)) {
    if (!from(config_resource_type::broker, std::to_string(options_.node_id))) {
      from(config_resource_type::broker, "");
    }
  }
  int64_t replication_factor =
      topic.partitions.empty() ? min_isr : static_cast<int64_t>(topic.partitions.begin()->second.replicas.size());
  return static_cast<int32_t>(std::min(min_isr, replication_factor));
}

bool quorum_controller::unclean_election_enabled(const metadata_image& image, std::string_view topic) const {
  for (const config_resource& r :
       {config_resource{config_resource_type::topic, std::string(topic)},
        config_resource{config_resource_type::broker, std::to_string(options_.node_id)},
        config_resource{config_resource_type::broker, ""}}) {
    if (auto v = image.config(r.type, r.name, "unclean.leader.election.enable")) return *v == "true";
  }
  return options_.unclean_leader_election_enable;
}

bool elr_enabled(const metadata_image& image) {
  return image.version().elr_supported() && image.feature_level("eligible.leader.replicas.version").value_or(0) >= 1;
}

void quorum_controller::leader_and_isr_updates(const metadata_image& image, int32_t broker_to_remove,
                                               int32_t broker_to_add, int32_t unclean_shutdown,
                                               const std::function<bool(const partition_registration&)>& pick,
                                               std::vector<metadata_record>& out) const {
  auto acceptable = [&](int32_t r) {
    if (r < 0 || r == broker_to_remove || r == unclean_shutdown) return false;
    return r == broker_to_add || is_active(image, r);
  };
  for (const auto& [id, topic] : image.topics_by_id) {
    for (const auto& [partition, p] : topic->partitions) {
      if (!pick(p)) continue;
      partition_change_options o = change_options(image, *topic);
      o.acceptable_leader = acceptable;
      partition_change_builder builder(p, id, partition, o);
      if (unclean_election_enabled(image, topic->name)) builder.set_election(election_type::unclean);
      if (unclean_shutdown >= 0) builder.set_unclean_shutdown_replicas({unclean_shutdown});
      std::vector<int32_t> isr;
      for (int32_t r : p.isr) {
        if (r != broker_to_remove && r != unclean_shutdown) isr.push_back(r);
      }
      builder.set_target_isr(std::move(isr));
      if (auto record = builder.build()) out.push_back(*record);
    }
  }
}

void quorum_controller::fence_records(const metadata_image& image, int32_t broker,
                                      std::vector<metadata_record>& out) const {
  const broker_registration* b = image.broker(broker);
  assert(b);
  leader_and_isr_updates(image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) { return p.in_isr(broker); }, out);
  msg::broker_registration_change_record change;
  change.broker_id = broker;
  change.broker_epoch = b->epoch;
  change.fenced = 1;
  out.push_back(change);
}

void quorum_controller::unfence_records(const metadata_image& image, int32_t broker, int64_t epoch,
                                        std::vector<metadata_record>& out) const {
  msg::broker_registration_change_record change;
  change.broker_id = broker;
  change.broker_epoch = epoch;
  change.fenced = -1;
  out.push_back(change);
  leader_and_isr_updates(image, no_leader, broker, no_leader,
                         [](const partition_registration& p) { return !p.has_leader(); }, out);
}

void quorum_controller::controlled_shutdown_records(const metadata_image& image, int32_t broker, int64_t epoch,
                                                    std::vector<metadata_record>& out) const {
  const broker_registration* b = image.broker(broker);
  if (b && !b->in_controlled_shutdown) {
    msg::broker_registration_change_record change;
    change.broker_id = broker;
    change.broker_epoch = epoch;
    change.in_controlled_shutdown = 1;
    out.push_back(change);
  }
  leader_and_isr_updates(image, broker, no_leader, no_leader,
                         [&](const partition_registration& p) { return p.in_isr(broker); }, out);
}

api_error quorum_controller::check_broker_epoch(int32_t broker, int64_t epoch) const {
  const broker_registration* b = image_->broker(broker);
  if (!b) return {error_code::stale_broker_epoch, "No broker registration found for broker id " + std::to_string(broker)};
  if (b->epoch != epoch) {
    return {error_code::stale_broker_epoch,
            "Expected broker epoch " + std::to_string(b->epoch) + ", but got broker epoch " + std::to_string(epoch)};
  }
  return {};
}

int64_t quorum_controller::lowest_active_offset(const metadata_image& image) const {
  int64_t lowest = std::numeric_limits<int64_t>::max();
  for (const auto& [id, s] : sessions_) {
    if (is_active(image, id)) lowest = std::min(lowest, s.metadata_offset);
  }
  return lowest;
}

std::vector<metadata_record> quorum_controller::tick(int64_t now_ms) {
  flush();
  std::vector<metadata_record> out;
  std::shared_ptr<const metadata_image> scratch = image_;
  for (const auto& [id, b] : image_->brokers) {
    if (b.fenced) continue;
    // A broker unfenced before this controller took over gets a fresh
    // session from the first tick, as Kafka's activation does.
    auto [session, fresh] = sessions_.try_emplace(id);
    if (fresh) session->second.last_contact_ms = now_ms;
    if (now_ms < session_expiry_ms(session->second)) continue;
    std::vector<metadata_record> fenced;
    fence_records(*scratch, id, fenced);
    std::string error;
    auto next = replay_all(scratch, fenced, scratch->provenance.offset, scratch->provenance.epoch, &error);
    assert(next);  // our own records always fit the image they came from
    scratch = std::move(next);
    out.insert(out.end(), fenced.begin(), fenced.end());
  }
  if (!out.empty()) return out;  // elections next tick, over the fenced image
  // The periodic elections, each on its own interval from this
  // controller's first tick, as Kafka's deferred controller events.
  if (next_unclean_election_ms_ < 0) next_unclean_election_ms_ = now_ms + options_.unclean_election_interval_ms;
  if (next_balance_ms_ < 0) next_balance_ms_ = now_ms + options_.leader_imbalance_check_interval_ms;
  if (now_ms >= next_unclean_election_ms_) {
    next_unclean_election_ms_ = now_ms + options_.unclean_election_interval_ms;
    out = elect_unclean_leaders();
    if (!out.empty()) return out;
  }
  if (options_.auto_leader_rebalance_enable && now_ms >= next_balance_ms_) {
    next_balance_ms_ = now_ms + options_.leader_imbalance_check_interval_ms;
    out = balance_leaders();
  }
  return out;
}

std::optional<int64_t> quorum_controller::next_session_expiry_ms() const {
  std::optional<int64_t> first;
  for (const auto& [id, b] : image_->brokers) {
    if (b.fenced) continue;
    auto session = sessions_.find(id);
    if (session == sessions_.end()) continue;
    const int64_t expiry = session_expiry_ms(session->second);
    if (!first || expiry < *first) first = expiry;
  }
  return first;
}

}  // namespace hw::controller
