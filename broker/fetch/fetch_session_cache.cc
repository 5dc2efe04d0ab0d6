#include "broker/fetch/fetch_session_cache.h"

#include <cassert>
#include <limits>

namespace hw::broker::fetch {
namespace {

using protocol::error_code;

constexpr int16_t first_topic_id_version = 13;

fetch_context session_error(error_code e) {
  fetch_context ctx;
  ctx.what = fetch_context::kind::session_error;
  ctx.error = e;
  return ctx;
}

// A partition named twice counts once, with the last parameters, at its
// first place (Kafka collects them in a linked hash map).
std::vector<partition_request> unique(const std::vector<partition_request>& in) {
  std::vector<partition_request> out;
  std::map<partition_identity, size_t> at;
  for (const partition_request& p : in) {
    auto [it, added] = at.emplace(partition_identity::of(p.key), out.size());
    if (added) out.push_back(p);
    else out[it->second] = p;
  }
  return out;
}

fetch_context sessionless(const fetch_request_view& r) {
  fetch_context ctx;
  ctx.what = fetch_context::kind::sessionless;
  ctx.partitions = unique(r.partitions);
  return ctx;
}

fetch_response_plan everything(std::span<const partition_result> results, int32_t session_id) {
  fetch_response_plan plan;
  plan.session_id = session_id;
  plan.include.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) plan.include.push_back(i);
  return plan;
}

}  // namespace

fetch_session_cache::fetch_session_cache(options opts, std::function<uint32_t()> random)
    : opts_(opts), random_(std::move(random)) {
  assert(opts_.max_sessions >= 0 && random_);
}

std::shared_ptr<const fetch_session> fetch_session_cache::find(int32_t session_id) const {
  auto it = sessions_.find(session_id);
  return it == sessions_.end() ? nullptr : it->second;
}

fetch_context fetch_session_cache::new_context(const fetch_request_view& r, const topic_name_lookup& topic_name_of,
                                               int64_t now_ms) {
  bool uses_ids = r.version >= first_topic_id_version;
  bool full = r.session_epoch == initial_epoch || r.session_epoch == final_epoch;
  if (full) {
    // A full request closes the session it names, if any.
    if (r.session_id != invalid_session_id) remove(r.session_id);
    if (r.session_epoch == final_epoch) return sessionless(r);
    fetch_context ctx;
    ctx.what = fetch_context::kind::full;
    ctx.partitions = unique(r.partitions);
    ctx.uses_topic_ids = uses_ids;
    ctx.from_follower = r.from_follower;
    return ctx;
  }
  auto it = sessions_.find(r.session_id);
  if (it == sessions_.end()) return session_error(error_code::fetch_session_id_not_found);
  std::shared_ptr<fetch_session> s = it->second;
  if (s->epoch() != r.session_epoch) return session_error(error_code::invalid_fetch_session_epoch);
  if (s->uses_topic_ids() != uses_ids) return session_error(error_code::fetch_session_topic_id_error);
  s->update(r.partitions, r.forgotten);
  if (s->empty()) {
    // Nothing left to fetch: the session ends and this request is answered
    // as a sessionless one.
    remove(s->id());
    return sessionless(r);
  }
  touch(*s, now_ms);
  s->epoch_ = next_epoch(s->epoch_);
  fetch_context ctx;
  ctx.what = fetch_context::kind::incremental;
  ctx.uses_topic_ids = uses_ids;
  ctx.from_follower = r.from_follower;
  ctx.partitions = s->requests(topic_name_of);
  ctx.expected_epoch = s->epoch();
  ctx.session = std::move(s);
  return ctx;
}

fetch_response_plan fetch_session_cache::update_and_generate_response(const fetch_context& ctx,
                                                                      std::span<const partition_result> results,
                                                                      int64_t now_ms) {
  switch (ctx.what) {
    case fetch_context::kind::session_error: {
      fetch_response_plan plan;
      plan.error = ctx.error;
      return plan;
    }
    case fetch_context::kind::sessionless:
      return everything(results, invalid_session_id);
    case fetch_context::kind::full: {
      // The session remembers each answered partition with the request that
      // asked for it.
      std::map<partition_identity, const partition_request*> asked;
      for (const partition_request& p : ctx.partitions) asked.emplace(partition_identity::of(p.key), &p);
      int32_t id = maybe_create(now_ms, ctx.from_follower, results.size(), ctx.uses_topic_ids, [&](fetch_session& s) {
        for (const partition_result& res : results) {
          auto it = asked.find(partition_identity::of(res.key));
          assert(it != asked.end() && "full fetch response has a partition the request did not name");
          s.add(*it->second, res);
        }
      });
      return everything(results, id);
    }
    case fetch_context::kind::incremental: {
      fetch_session& s = *ctx.session;
      fetch_response_plan plan;
      plan.session_id = s.id();
      // Another request of the same session came in between (a duplicate).
      if (s.epoch() != ctx.expected_epoch) {
        plan.error = error_code::invalid_fetch_session_epoch;
        return plan;
      }
      for (size_t i = 0; i < results.size(); ++i)
        if (s.must_respond(results[i])) plan.include.push_back(i);
      return plan;
    }
  }
  return {};
}

fetch_response_plan fetch_session_cache::throttled_response(const fetch_context& ctx) const {
  fetch_response_plan plan;
  if (ctx.what == fetch_context::kind::incremental) {
    plan.session_id = ctx.session->id();
    if (ctx.session->epoch() != ctx.expected_epoch) plan.error = error_code::invalid_fetch_session_epoch;
  } else if (ctx.what == fetch_context::kind::session_error) {
    plan.error = ctx.error;
  }
  return plan;
}

int32_t fetch_session_cache::maybe_create(int64_t now_ms, bool privileged, size_t size, bool uses_topic_ids,
                                          const std::function<void(fetch_session&)>& fill) {
  bool room = sessions_.size() < static_cast<size_t>(opts_.max_sessions) ||
              try_evict(privileged, evictable_key{privileged, size, 0}, now_ms);
  if (!room) return invalid_session_id;
  auto s = std::make_shared<fetch_session>(new_session_id(), privileged, uses_topic_ids, now_ms,
                                           next_epoch(initial_epoch));
  fill(*s);
  int32_t id = s->id();
  sessions_.emplace(id, s);
  touch(*s, now_ms);
  return id;
}

bool fetch_session_cache::try_evict(bool privileged, const evictable_key& key, int64_t now_ms) {
  if (last_used_.empty()) return false;
  auto [oldest_ms, oldest_id] = *last_used_.begin();
  if (now_ms - oldest_ms > opts_.eviction_ms) {
    remove(oldest_id);  // stale: unused for longer than the eviction time
    return true;
  }
  const auto& candidates = privileged ? evictable_by_privileged_ : evictable_by_all_;
  if (candidates.empty() || key < *candidates.begin()) return false;
  remove(std::get<2>(*candidates.begin()));
  return true;
}

void fetch_session_cache::remove(int32_t session_id) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  fetch_session& s = *it->second;
  last_used_.erase({s.last_used_ms(), s.id()});
  evictable_key key{s.privileged(), s.cached_size_, s.id()};
  evictable_by_all_.erase(key);
  evictable_by_privileged_.erase(key);
  total_partitions_ -= s.cached_size_;
  sessions_.erase(it);
}

void fetch_session_cache::touch(fetch_session& s, int64_t now_ms) {
  last_used_.erase({s.last_used_ms(), s.id()});
  s.last_used_ms_ = now_ms;
  last_used_.emplace(now_ms, s.id());

  evictable_key old_key{s.privileged(), s.cached_size_, s.id()};
  evictable_by_all_.erase(old_key);
  evictable_by_privileged_.erase(old_key);
  total_partitions_ -= s.cached_size_;
  s.cached_size_ = s.size();
  total_partitions_ += s.cached_size_;
  // A young follower session is protected from everyone, a young consumer
  // session only from other consumers.
  evictable_key key{s.privileged(), s.cached_size_, s.id()};
  bool old_enough = now_ms - s.creation_ms() > opts_.eviction_ms;
  if (!s.privileged() || old_enough) evictable_by_privileged_.insert(key);
  if (old_enough) evictable_by_all_.insert(key);
}

int32_t fetch_session_cache::new_session_id() {
  constexpr uint32_t range = std::numeric_limits<int32_t>::max() - 1;  // ids 1 .. INT32_MAX-1, as Kafka
  for (;;) {
    auto id = static_cast<int32_t>(1 + random_() % range);
    if (!sessions_.count(id)) return id;
  }
}

}  // namespace hw::broker::fetch
