#include "broker/replica/replica_manager.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "broker/for_each_concurrently.h"
#include "broker/run_on.h"

namespace hw::broker {

replica_manager::replica_manager(asio::any_io_executor executor, storage::log_manager& logs, int32_t self)
    : executor_(executor), logs_(logs), self_(node_id(self)) {}

std::shared_ptr<partition> replica_manager::get(const storage::topic_partition& tp) const {
  std::lock_guard lock(mutex_);
  auto it = partitions_.find(tp);
  return it == partitions_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<partition>> replica_manager::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<partition>> out;
  out.reserve(partitions_.size());
  for (auto& [tp, p] : partitions_) out.push_back(p);
  return out;
}

asio::awaitable<void> replica_manager::retry_follows(std::shared_ptr<const controller::metadata_image> image) {
  if (!fetchers_ || !image) co_return;
  auto pending = std::move(unfollowed_);
  unfollowed_.clear();
  for (auto& [tp, who] : pending) {
    auto p = get(tp);
    if (!p || p->removed() || p->is_leader() || p->leader_epoch() != who.second.value) continue;
    if (!co_await fetchers_->follow(p, who.first, who.second, *image)) unfollowed_.emplace(tp, who);
  }
}

asio::awaitable<std::error_code> replica_manager::apply(std::vector<partition_update> updates, int64_t now_ms,
                                                        std::shared_ptr<const controller::metadata_image> image) {
  // Partitions change role side by side (each on its own strand, a new
  // leader's epoch checkpoint written and synced on the role pool while
  // others go on), as a failover moves many leaderships at once. Deleted topics go first: a
  // topic deleted and created again under its name in one batch is one
  // directory name, removed before it is made anew.
  std::vector<partition_update*> removed_topics, others;
  for (auto& u : updates) (u.role ? others : removed_topics).push_back(&u);
  std::error_code first_error;
  std::vector<created_log> created;
  for (auto* group : {&removed_topics, &others}) {
    co_await for_each_concurrently(*group, k_parallel_role_changes, [&](partition_update* u) -> asio::awaitable<void> {
      const std::error_code ec = co_await apply_one(*u, now_ms, image, created);
      if (ec && !first_error) first_error = ec;
    });
  }
  // New logs' directories and partition.metadata are made durable in the
  // background, as Kafka does, and by their first append at the latest;
  // after the batch's role changes rather than among them, so that a topic
  // of many partitions does not wait for their syncs to be led and followed.
  for (auto& [tp, log] : created) {
    asio::post(role_pool_, [this, tp = tp, log = std::move(log)] {
      if (auto ec = log->make_durable()) {
        spdlog::error("Cannot write partition.metadata of {}: {}", storage::partition_dir_name(tp), ec.message());
        logs_.note_error(tp, ec);
      }
    });
  }
  co_return first_error;
}

asio::awaitable<std::error_code> replica_manager::apply_one(
    partition_update& u, int64_t now_ms, const std::shared_ptr<const controller::metadata_image>& image,
    std::vector<created_log>& created) {
  const bool hosted = u.role && u.role->is_replica(self_);
  if (!hosted) co_return co_await remove_partition(u.tp);
  std::error_code error;
  std::shared_ptr<partition> p = co_await hosted_partition(u, now_ms, created, &error);
  if (!p) co_return error;
  // Kafka's maybeUpdateTopicAssignment: the controller learns where the
  // log is (placed here among several dirs, or moved between them).
  if (auto actual = logs_.directory_of(u.tp); actual && u.directory && *actual != *u.directory && directory_listener_)
    directory_listener_(u.topic_id, u.tp.partition, *actual);
  const bool was_leader = p->is_leader();
  const int32_t previous_epoch = p->leader_epoch();
  const int32_t previous_leader = p->leader();
  const bool leads = u.role->leader == self_;
  // A new leader stops fetching first, so no fetched batch lands after
  // its own writes begin.
  if (leads && fetchers_) {
    unfollowed_.erase(u.tp);
    co_await fetchers_->unfollow(u.tp);
  }
  p->status().set_limits(u.limits);
  if (auto ec = co_await take_role(p, u, now_ms)) {
    spdlog::error("Cannot apply the new role of {}: {}", storage::partition_dir_name(u.tp), ec.message());
    logs_.note_error(u.tp, ec);
    if (!error) error = ec;
  } else if (leads && !was_leader) {
    spdlog::info("{} starts at leader epoch {} from offset {} with partition epoch {}, high watermark {}",
                 storage::partition_dir_name(u.tp), u.role->leader_epoch.value, p->log_end_offset().value,
                 u.role->partition_epoch.value, p->high_watermark().value);
  }
  if (!leads && fetchers_ && image) {
    const bool moved = previous_epoch != u.role->leader_epoch.value || previous_leader != u.role->leader.value ||
                       was_leader;
    // Inline rather than a coroutine of its own: GCC 12 resumed such a
    // nested coroutine with a corrupt frame (SIGILL in its resume switch).
    if (u.role->leader == no_node) {
      unfollowed_.erase(u.tp);
      co_await fetchers_->unfollow(u.tp);
    } else if (moved || unfollowed_.count(u.tp) || !fetchers_->follows(u.tp)) {
      unfollowed_.erase(u.tp);
      if (!co_await fetchers_->follow(p, u.role->leader, u.role->leader_epoch, *image))
        unfollowed_.emplace(u.tp, std::make_pair(u.role->leader, u.role->leader_epoch));
    }
  }
  if (listener_) listener_(u.tp, p->is_leader(), p->leader_epoch());
  co_return error;
}

asio::awaitable<std::error_code> replica_manager::remove_partition(const storage::topic_partition& tp) {
  std::error_code error;
  std::shared_ptr<partition> gone;
  {
    std::lock_guard lock(mutex_);
    auto it = partitions_.find(tp);
    if (it != partitions_.end()) {
      gone = it->second;
      partitions_.erase(it);
    }
  }
  if (gone && listener_) listener_(tp, false, -1);
  unfollowed_.erase(tp);
  if (fetchers_) co_await fetchers_->unfollow(tp);
  if (gone || logs_.find(tp)) {
    // Wait for the partition's strand to finish what it is doing, and
    // turn away what comes later (requests that found it before it was
    // dropped from the map, fetches waiting on it), before its log goes.
    if (gone) co_await run_on(gone->strand(), [&] { gone->mark_removed(); });
    if (removal_hook_) co_await removal_hook_(tp, true);
    auto err = logs_.remove(tp);
    if (removal_hook_) co_await removal_hook_(tp, false);
    if (err) {
      spdlog::error("Cannot delete the log of {}: {}", storage::partition_dir_name(tp), err.message);
      error = err.code;
    } else {
      spdlog::info("Deleted log for partition {}", storage::partition_dir_name(tp));
    }
  }
  co_return error;
}

asio::awaitable<std::shared_ptr<partition>> replica_manager::hosted_partition(const partition_update& u,
                                                                              int64_t now_ms,
                                                                              std::vector<created_log>& created,
                                                                              std::error_code* error) {
  if (std::shared_ptr<partition> p = get(u.tp)) co_return p;
  std::shared_ptr<storage::partition_log> log = logs_.find(u.tp);
  if (!log) {
    // Its files are written and synced on the role pool, several
    // partitions at once (a new topic of many partitions).
    if (auto err = co_await run_on(role_pool_.get_executor(),
                                   [&] { return logs_.create(u.tp, u.topic_id, now_ms, &log, u.directory.value_or(protocol::uuid{})); })) {
      spdlog::error("Cannot create the log of {}: {}", storage::partition_dir_name(u.tp), err.message);
      *error = err.code;
      co_return nullptr;
    }
    spdlog::info("Created log for partition {} in {}", storage::partition_dir_name(u.tp),
                 log->dir().parent_path().string());
    created.emplace_back(u.tp, log);
  }
  if (!log->topic_id()) log->adopt_topic_id(u.topic_id);
  auto p = std::make_shared<partition>(executor_, u.tp, u.topic_id, std::move(log), self_, brokers_);
  std::lock_guard lock(mutex_);
  partitions_[u.tp] = p;
  co_return p;
}

asio::awaitable<std::error_code> replica_manager::take_role(const std::shared_ptr<partition>& p,
                                                            const partition_update& u, int64_t now_ms) {
  const bool leads = u.role->leader == self_;
  // A new leader's epoch checkpoint (two syncs) is written on the role
  // pool rather than on an I/O thread, many at once when a failover moves
  // many leaderships; become_leader then finds it written.
  std::optional<storage::leader_epoch_cache::prepared_write> prepared;
  bool written = false;
  if (leads) {
    prepared = co_await run_on(p->strand(), [&]() -> std::optional<storage::leader_epoch_cache::prepared_write> {
      if (p->removed()) return std::nullopt;
      return p->log().prepare_become_leader(u.role->leader_epoch);
    });
    if (prepared)
      written = !co_await run_on(role_pool_.get_executor(),
                                 [&] { return storage::leader_epoch_cache::write_prepared(*prepared); });
  }
  co_return co_await run_on(p->strand(), [&] {
    if (written) p->log().note_leader_epoch_written(*prepared);
    p->log().mutable_log().set_config(u.log_config);
    return leads ? p->become_leader(*u.role, u.leader, storage::broker_epoch(broker_epoch()), now_ms)
                 : p->become_follower(*u.role);
  });
}

}  // namespace hw::broker
