#include "broker/group/offset_metadata_manager.h"

#include "broker/group/streams/offset_rules.h"

#include <cassert>

#include "broker/group/consumer/consumer_group_manager.h"
#include "broker/group/consumer/offset_rules.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

int16_t code(error_code e) { return static_cast<int16_t>(e); }

msg::offset_commit_response commit_response(const msg::offset_commit_request& request, error_code e) {
  msg::offset_commit_response r;
  for (const auto& t : request.topics) {
    msg::offset_commit_response::offset_commit_response_topic rt;
    rt.name = t.name;
    rt.topic_id = t.topic_id;
    for (const auto& p : t.partitions) {
      msg::offset_commit_response::offset_commit_response_partition rp;
      rp.partition_index = p.partition_index;
      rp.error_code = code(e);
      rt.partitions.push_back(rp);
    }
    r.topics.push_back(std::move(rt));
  }
  return r;
}

// Kafka's ClassicGroup.validateOffsetCommit, shared by OffsetCommit and
// TxnOffsetCommit: a member and generation, when given, must be the
// group's current ones; without them only an empty group takes a plain
// commit; a plain commit waits out CompletingRebalance.
error_code validate_commit(const classic_group& g, const std::string& member_id,
                           const std::optional<std::string>& instance_id, int32_t generation, bool transactional) {
  if (g.in(group_state::dead)) return error_code::coordinator_not_available;
  if (generation < 0 && g.in(group_state::empty)) return error_code::none;
  if (generation >= 0 || !member_id.empty() || instance_id) {
    if (auto e = g.members().validate(member_id, instance_id); e != error_code::none) return e;
    if (generation != g.generation()) return error_code::illegal_generation;
  } else if (!transactional && !g.in(group_state::empty)) {
    return error_code::unknown_member_id;
  }
  if (!transactional && g.in(group_state::completing_rebalance)) return error_code::rebalance_in_progress;
  return error_code::none;
}

// The offset records of a commit's partitions (OffsetCommit or
// TxnOffsetCommit topics); a partition whose metadata is too long gets
// OFFSET_METADATA_TOO_LARGE in `response` (shaped like the request) and
// no record.
template <typename Topics, typename Response>
std::vector<coordinator_record> offset_records(const std::string& group_id, const Topics& topics, Response& response,
                                               int32_t max_metadata_bytes, int64_t now_ms,
                                               std::optional<int64_t> expire_ms) {
  std::vector<coordinator_record> records;
  for (size_t ti = 0; ti < topics.size(); ++ti) {
    const auto& t = topics[ti];
    for (size_t pi = 0; pi < t.partitions.size(); ++pi) {
      const auto& p = t.partitions[pi];
      if (p.committed_metadata && p.committed_metadata->size() > static_cast<size_t>(max_metadata_bytes)) {
        response.topics[ti].partitions[pi].error_code = code(error_code::offset_metadata_too_large);
        continue;
      }
      committed_offset value;
      value.offset = p.committed_offset;
      value.leader_epoch = p.committed_leader_epoch;
      value.metadata = p.committed_metadata.value_or("");
      value.commit_timestamp_ms = now_ms;
      value.expire_timestamp_ms = expire_ms;
      if constexpr (requires { t.topic_id; }) value.topic_id = t.topic_id;
      records.push_back(offset_commit_record(group_id, t.name, p.partition_index, value));
    }
  }
  return records;
}

}  // namespace

offset_metadata_manager::offset_metadata_manager(shard_context& context, group_metadata_manager& groups,
                                                 consumer_groups& consumers, streams_groups& streams,
                                                 offset_store& committed, pending_txn_offsets& pending)
    : ctx_(context), groups_(groups), consumers_(consumers), streams_(streams), committed_(committed), pending_(pending) {}

template <typename Topics>
std::optional<error_code> offset_metadata_manager::member_commit_error(const std::string& group_id,
                                                                       const std::string& member_id,
                                                                       const std::optional<std::string>& instance_id,
                                                                       int32_t epoch, bool transactional,
                                                                       int16_t version, const Topics& topics) const {
  consumer::commit_check check;
  if (const auto* cg = consumers_.find(group_id)) {
    check = consumer::check_offset_commit(*cg, member_id, instance_id, epoch, transactional, version);
  } else if (const auto* sg = streams_.find(group_id)) {
    check = streams::check_offset_commit(*sg, member_id, instance_id, epoch, transactional, version);
  } else {
    return std::nullopt;
  }
  if (check.refusal) return check.refusal->code;
  if (!check.per_partition) return error_code::none;
  // One partition the member may not commit refuses the whole request, as
  // Kafka's validator throws.
  for (const auto& t : topics) {
    protocol::uuid id;
    if constexpr (requires { t.topic_id; }) id = t.topic_id;
    if (id.is_zero()) id = consumers_.topics().topic_id(t.name).value_or(protocol::uuid{});
    for (const auto& p : t.partitions)
      if (auto refused = check.per_partition(id, t.name, p.partition_index)) return refused->code;
  }
  return error_code::none;
}

void offset_metadata_manager::clear() {
  committed_.clear();
  pending_.clear();
  next_retention_check_ms_.reset();
}

// --- load ------------------------------------------------------------------------

void offset_metadata_manager::replay(const offset_record& record, int64_t producer_id) {
  if (!record.value) {
    committed_.erase(record.group, record.topic, record.partition);
    pending_.erase(record.group, record.topic, record.partition);
    return;
  }
  // An offset of an unknown group makes it exist (a simple consumer's).
  if (!consumers_.find(record.group) && !streams_.find(record.group)) groups_.get_or_create(record.group, 0);
  if (producer_id >= 0) {
    pending_.put(producer_id, {record.group, record.topic, record.partition, *record.value});
    return;
  }
  committed_.put(record.group, record.topic, record.partition, *record.value);
  pending_.supersede(record.group, record.topic, record.partition);
}

void offset_metadata_manager::on_txn_marker(int64_t producer_id, bool commit) {
  auto entries = pending_.close(producer_id);
  if (!commit) return;
  for (auto& e : entries) committed_.put(e.group, e.topic, e.partition, std::move(e.value));
}

void offset_metadata_manager::start_retention(int64_t now_ms) {
  next_retention_check_ms_ = now_ms + ctx_.config().offsets_retention_check_interval_ms;
}

void offset_metadata_manager::tick(int64_t now_ms) {
  if (!next_retention_check_ms_ || *next_retention_check_ms_ > now_ms) return;
  expire_offsets(now_ms);
  start_retention(now_ms);
}

void offset_metadata_manager::apply_records(const std::vector<coordinator_record>& records) {
  for (const auto& rec : records) {
    std::optional<byte_view> value;
    if (rec.value) value = byte_view(*rec.value);
    auto decoded = decode_record(rec.key, value);
    assert(decoded.has_value());
    if (auto* o = std::get_if<offset_record>(&*decoded)) {
      if (o->value) {
        committed_.put(o->group, o->topic, o->partition, *o->value);
        pending_.supersede(o->group, o->topic, o->partition);
      } else {
        committed_.erase(o->group, o->topic, o->partition);
        pending_.erase(o->group, o->topic, o->partition);
      }
    } else if (auto* c = std::get_if<consumer::consumer_group_record>(&*decoded)) {
      consumers_.apply(*c);
    } else if (auto* sr = std::get_if<streams::streams_group_record>(&*decoded)) {
      (void)streams_.replay(*sr);
    } else if (auto* gr = std::get_if<group_record>(&*decoded); gr && !gr->value) {
      // Only an empty group goes: one that came back to life while the
      // tombstone was being written keeps its members (its next record wins).
      classic_group* g = groups_.group(gr->group);
      if (g && g->in(group_state::empty) && g->members().pending_members().empty()) groups_.erase(gr->group);
    }
  }
}

// --- OffsetCommit ------------------------------------------------------------------

void offset_metadata_manager::commit_offsets(request_token token, int16_t version,
                                             const msg::offset_commit_request& request, int64_t now_ms) {
  if (!ctx_.active()) return ctx_.reply(token, commit_response(request, ctx_.unavailable_error()));
  const std::string& group_id = request.group_id;
  const int32_t generation = request.generation_id_or_member_epoch;
  bool created = false;
  if (auto e = member_commit_error(group_id, request.member_id, request.group_instance_id, generation,
                                   /*transactional=*/false, version, request.topics)) {
    if (*e != error_code::none) return ctx_.reply(token, commit_response(request, *e));
  } else {
    classic_group* g = groups_.group(group_id);
    if (!g) {
      if (generation >= 0) {
        auto e = version >= 9 ? error_code::group_id_not_found : error_code::illegal_generation;
        return ctx_.reply(token, commit_response(request, e));
      }
      // A simple consumer (no generation) commits to a group that exists from now on.
      g = &groups_.get_or_create(group_id, now_ms);
      created = true;
    }
    const error_code validation =
        validate_commit(*g, request.member_id, request.group_instance_id, generation, /*transactional=*/false);
    if (validation != error_code::none) return ctx_.reply(token, commit_response(request, validation));
    if (g->in(group_state::stable) || g->in(group_state::preparing_rebalance)) {
      group_member* m = g->members().find(request.member_id);
      if (m) reschedule_heartbeat(*m, now_ms, m->session_timeout_ms);
    }
  }
  std::optional<int64_t> expire_ms;
  if (version <= 4 && request.retention_time_ms != -1) expire_ms = now_ms + request.retention_time_ms;
  auto response = commit_response(request, error_code::none);
  std::vector<coordinator_record> records =
      offset_records(group_id, request.topics, response, ctx_.config().offset_metadata_max_bytes, now_ms, expire_ms);
  if (records.empty()) return ctx_.reply(token, std::move(response));
  auto written = records;
  ctx_.append(std::move(records), [this, token, request, created, written = std::move(written),
                              response = std::move(response)](error_code e, int64_t) mutable {
    if (e == error_code::none) {
      apply_records(written);
      return ctx_.reply(token, std::move(response));
    }
    classic_group* cg = groups_.group(request.group_id);
    if (created && cg && cg->in(group_state::empty) && !committed_.group_offsets(request.group_id)) {
      groups_.erase(request.group_id);
    }
    ctx_.reply(token, commit_response(request, append_error_to_response_error(e)));
  });
}

// --- TxnOffsetCommit ---------------------------------------------------------------

namespace {

msg::txn_offset_commit_response txn_commit_response(const msg::txn_offset_commit_request& request, error_code e) {
  msg::txn_offset_commit_response r;
  for (const auto& t : request.topics) {
    msg::txn_offset_commit_response::txn_offset_commit_response_topic rt;
    rt.name = t.name;
    for (const auto& p : t.partitions) rt.partitions.push_back({p.partition_index, code(e), {}});
    r.topics.push_back(std::move(rt));
  }
  return r;
}

}  // namespace

void offset_metadata_manager::commit_txn_offsets(request_token token,
                                                 const msg::txn_offset_commit_request& request, int64_t now_ms,
                                                 std::optional<uint64_t> verification) {
  if (!ctx_.active()) return ctx_.reply(token, txn_commit_response(request, ctx_.unavailable_error()));
  const std::string& group_id = request.group_id;
  const int32_t generation = request.generation_id;
  bool created = false;
  // The member epoch stands where a classic group's generation does.
  if (auto e = member_commit_error(group_id, request.member_id, request.group_instance_id, generation,
                                   /*transactional=*/true, 0, request.topics)) {
    if (*e != error_code::none) return ctx_.reply(token, txn_commit_response(request, *e));
  } else {
    classic_group* g = groups_.group(group_id);
    if (!g) {
      // A producer outside group management (generation -1) commits for a
      // group that exists from now on; a generation names a group that
      // should have been here.
      if (generation >= 0) return ctx_.reply(token, txn_commit_response(request, error_code::illegal_generation));
      g = &groups_.get_or_create(group_id, now_ms);
      created = true;
    }
    // KIP-447: a member and generation, when given, must be the group's
    // current ones, so a producer fenced out by a rebalance cannot commit.
    const error_code validation =
        validate_commit(*g, request.member_id, request.group_instance_id, generation, /*transactional=*/true);
    if (validation != error_code::none) return ctx_.reply(token, txn_commit_response(request, validation));
  }

  auto response = txn_commit_response(request, error_code::none);
  std::vector<coordinator_record> records =
      offset_records(group_id, request.topics, response, ctx_.config().offset_metadata_max_bytes, now_ms, std::nullopt);
  if (records.empty()) return ctx_.reply(token, std::move(response));
  auto written = records;
  const int64_t producer_id = request.producer_id;
  auto done = [this, token, request, created, producer_id, written = std::move(written),
               response = std::move(response)](error_code e, int64_t) mutable {
    if (e == error_code::none) {
      // Durable, but pending until the producer's marker reaches this
      // partition.
      for (const auto& rec : written) {
        auto decoded = decode_record(rec.key, rec.value ? std::optional<byte_view>(*rec.value) : std::nullopt);
        auto* o = decoded ? std::get_if<offset_record>(&*decoded) : nullptr;
        if (o && o->value) pending_.put(producer_id, {o->group, o->topic, o->partition, *o->value});
      }
      return ctx_.reply(token, std::move(response));
    }
    classic_group* cg = groups_.group(request.group_id);
    if (created && cg && cg->in(group_state::empty) && !committed_.group_offsets(request.group_id) &&
        !pending_.group_has_open(request.group_id)) {
      groups_.erase(request.group_id);
    }
    ctx_.reply(token, txn_commit_response(request, append_error_to_response_error(e)));
  };
  ctx_.append(std::move(records), std::move(done), request.producer_id, request.producer_epoch, verification);
}

// --- OffsetFetch -------------------------------------------------------------------

void offset_metadata_manager::fetch_offsets(request_token token,
                                            const msg::offset_fetch_request::offset_fetch_request_group& request,
                                            bool require_stable) {
  auto answer = [this, token, request, require_stable]() {
    offset_fetch_group_response r;
    r.group_id = request.group_id;
    if (!ctx_.active()) {
      r.error_code = code(ctx_.unavailable_error());
      return ctx_.reply(token, std::move(r));
    }
    const classic_group* g = groups_.find_group(request.group_id);
    const offset_store::topics* stored =
        g && !g->in(group_state::dead) ? committed_.group_offsets(request.group_id) : nullptr;
    std::optional<consumer::offset_refusal> refused;
    const auto* cg = consumers_.find(request.group_id);
    const auto* sg = streams_.find(request.group_id);
    if (cg) refused = consumer::check_offset_fetch(*cg, request.member_id, request.member_epoch);
    if (sg) refused = streams::check_offset_fetch(*sg, request.member_id, request.member_epoch);
    if (refused) {
      r.error_code = code(refused->code);
      return ctx_.reply(token, std::move(r));
    }
    if (cg || sg) stored = committed_.group_offsets(request.group_id);
    using topic_out = msg::offset_fetch_response::offset_fetch_response_topics;
    using partition_out = msg::offset_fetch_response::offset_fetch_response_partitions;
    auto partition = [&](const std::string& topic, int32_t index, const committed_offset* o) {
      partition_out p;
      p.partition_index = index;
      // An offset an open transaction may still change.
      if (require_stable && pending_.pending(request.group_id, topic, index)) {
        p.error_code = code(error_code::unstable_offset_commit);
        o = nullptr;
      }
      p.committed_offset = o ? o->offset : -1;
      p.committed_leader_epoch = o ? o->leader_epoch : -1;
      p.metadata = o ? o->metadata : "";
      return p;
    };
    if (!request.topics) {
      if (stored) {
        for (const auto& [topic, parts] : *stored) {
          topic_out t;
          t.name = topic;
          for (const auto& [index, o] : parts) {
            t.topic_id = o.topic_id;
            t.partitions.push_back(partition(topic, index, &o));
          }
          r.topics.push_back(std::move(t));
        }
      }
      return ctx_.reply(token, std::move(r));
    }
    for (const auto& rt : *request.topics) {
      topic_out t;
      t.name = rt.name;
      t.topic_id = rt.topic_id;
      for (int32_t index : rt.partition_indexes) {
        const committed_offset* o = stored ? committed_.get(request.group_id, rt.name, index) : nullptr;
        // An offset stored for another incarnation of the topic (deleted and
        // recreated under the same name) does not count.
        if (o && !o->topic_id.is_zero() && !rt.topic_id.is_zero() && o->topic_id != rt.topic_id) o = nullptr;
        t.partitions.push_back(partition(rt.name, index, o));
      }
      r.topics.push_back(std::move(t));
    }
    ctx_.reply(token, std::move(r));
  };
  // require_stable: answer once every write issued so far is durable, so
  // no offset still being written is missed.
  if (require_stable) return ctx_.after_appends(std::move(answer));
  answer();
}

// --- DeleteGroups ------------------------------------------------------------------

std::vector<coordinator_record> offset_metadata_manager::offset_tombstones_of(const std::string& group_id) const {
  std::vector<coordinator_record> records;
  if (const auto* stored = committed_.group_offsets(group_id)) {
    for (const auto& [topic, parts] : *stored) {
      for (const auto& [index, _] : parts) records.push_back(offset_tombstone_record(group_id, topic, index));
    }
  }
  for (const auto& [topic, index] : pending_.partitions_of(group_id)) {
    if (!committed_.get(group_id, topic, index)) records.push_back(offset_tombstone_record(group_id, topic, index));
  }
  return records;
}

void offset_metadata_manager::delete_groups(request_token token, const std::vector<std::string>& group_ids) {
  delete_groups_results results;
  auto result = [](const std::string& id, error_code e) {
    msg::delete_groups_response::deletable_group_result r;
    r.group_id = id;
    r.error_code = code(e);
    return r;
  };
  if (!ctx_.active()) {
    for (const auto& id : group_ids) results.push_back(result(id, ctx_.unavailable_error()));
    return ctx_.reply(token, std::move(results));
  }
  std::vector<coordinator_record> records;
  for (const auto& id : group_ids) {
    const classic_group* g = groups_.find_group(id);
    const auto* cg = consumers_.find(id);
    if (cg && !cg->members().empty()) {
      results.push_back(result(id, error_code::non_empty_group));
      continue;
    }
    if (cg) {
      for (const auto& rec : offset_tombstones_of(id)) records.push_back(rec);
      for (const auto& rec : consumer::deletion_records(*cg)) records.push_back(consumer::encode_record(rec));
      results.push_back(result(id, error_code::none));
      continue;
    }
    if (const auto* sg = streams_.find(id)) {
      // Kafka deletes a streams group only when it is Empty.
      if (sg->state() != streams::streams_group_state::empty) {
        results.push_back(result(id, error_code::non_empty_group));
        continue;
      }
      for (const auto& rec : offset_tombstones_of(id)) records.push_back(rec);
      for (const auto& rec : streams::deletion_records(*sg)) records.push_back(streams::encode_record(rec));
      results.push_back(result(id, error_code::none));
      continue;
    }
    if (!g || g->in(group_state::dead)) {
      results.push_back(result(id, error_code::group_id_not_found));
      continue;
    }
    if (!g->in(group_state::empty)) {
      results.push_back(result(id, error_code::non_empty_group));
      continue;
    }
    for (const auto& rec : offset_tombstones_of(id)) records.push_back(rec);
    records.push_back(group_tombstone_record(id));
    results.push_back(result(id, error_code::none));
  }
  if (records.empty()) return ctx_.reply(token, std::move(results));
  auto written = records;
  ctx_.append(std::move(records), [this, token, results = std::move(results), written = std::move(written)](
                                 error_code e, int64_t) mutable {
    if (e == error_code::none) {
      apply_records(written);
    } else {
      for (auto& r : results) r.error_code = code(append_error_to_response_error(e));
    }
    ctx_.reply(token, std::move(results));
  });
}

// --- OffsetDelete ------------------------------------------------------------------

void offset_metadata_manager::delete_offsets(request_token token, const msg::offset_delete_request& request) {
  msg::offset_delete_response response;
  auto fail = [&](error_code e) {
    response.error_code = code(e);
    ctx_.reply(token, std::move(response));
  };
  if (!ctx_.active()) return fail(ctx_.unavailable_error());
  if (request.group_id.empty()) return fail(error_code::invalid_group_id);
  const classic_group* g = groups_.find_group(request.group_id);
  const auto* cg = consumers_.find(request.group_id);
  const auto* sg = streams_.find(request.group_id);
  if (!cg && !sg && (!g || g->in(group_state::dead))) return fail(error_code::group_id_not_found);
  if (!cg && !sg && !g->in(group_state::empty) && !g->uses_consumer_protocol()) return fail(error_code::non_empty_group);
  std::vector<coordinator_record> records;
  for (const auto& t : request.topics) {
    msg::offset_delete_response::offset_delete_response_topic rt;
    rt.name = t.name;
    const bool subscribed = cg   ? consumer::subscribes_to(*cg, t.name)
                            : sg ? streams::subscribes_to(*sg, t.name)
                                 : g->is_subscribed_to(t.name);
    for (const auto& p : t.partitions) {
      msg::offset_delete_response::offset_delete_response_partition rp;
      rp.partition_index = p.partition_index;
      if (subscribed) {
        rp.error_code = code(error_code::group_subscribed_to_topic);
      } else if (committed_.get(request.group_id, t.name, p.partition_index) ||
                 pending_.pending(request.group_id, t.name, p.partition_index)) {
        records.push_back(offset_tombstone_record(request.group_id, t.name, p.partition_index));
      }
      rt.partitions.push_back(rp);
    }
    response.topics.push_back(std::move(rt));
  }
  if (records.empty()) return ctx_.reply(token, std::move(response));
  auto written = records;
  ctx_.append(std::move(records), [this, token, response = std::move(response), written = std::move(written)](
                                 error_code e, int64_t) mutable {
    if (e != error_code::none) {
      msg::offset_delete_response failed;
      failed.error_code = code(append_error_to_response_error(e));
      return ctx_.reply(token, std::move(failed));
    }
    apply_records(written);
    ctx_.reply(token, std::move(response));
  });
}

// --- retention ---------------------------------------------------------------------

bool offset_metadata_manager::expire_group_offsets(const std::string& group_id,
                                                   const std::function<bool(const std::string&)>& subscribed,
                                                   const std::function<int64_t(const committed_offset&)>& age_from,
                                                   int64_t now_ms, std::vector<coordinator_record>& records) const {
  const offset_store::topics* stored = committed_.group_offsets(group_id);
  if (!stored) return true;
  bool all_expired = true;
  for (const auto& [topic, parts] : *stored) {
    if (subscribed(topic)) {
      all_expired = false;
      continue;
    }
    for (const auto& [index, o] : parts) {
      const bool expired = o.expire_timestamp_ms ? now_ms >= *o.expire_timestamp_ms
                                                 : now_ms - age_from(o) >= ctx_.config().offsets_retention_ms;
      if (expired && !pending_.pending(group_id, topic, index)) {
        records.push_back(offset_tombstone_record(group_id, topic, index));
      } else {
        all_expired = false;
      }
    }
  }
  return all_expired;
}

void offset_metadata_manager::expire_offsets(int64_t now_ms) {
  std::vector<coordinator_record> records;
  for (const auto& [id, g] : groups_.groups()) {
    const offset_store::topics* stored = committed_.group_offsets(id);
    bool all_expired = true;
    if (stored) {
      // Which timestamp an offset's age counts from, as Kafka decides it:
      // an empty group's offsets age from when it became empty; a stable
      // consumer group's unsubscribed topics and a simple group's offsets
      // from their commit; anything else keeps its offsets.
      enum class base { none, state_change, commit } from = base::none;
      if (!g.protocol_type()) {
        from = base::commit;
      } else if (g.in(group_state::empty)) {
        from = base::state_change;
      } else if (g.uses_consumer_protocol() && g.in(group_state::stable) && g.subscribed_topics()) {
        from = base::commit;
      }
      if (from == base::none) continue;
      all_expired = expire_group_offsets(
          id, [&g](const std::string& topic) { return g.is_subscribed_to(topic); },
          [&](const committed_offset& o) {
            return from == base::state_change ? g.state_timestamp_ms().value_or(o.commit_timestamp_ms)
                                              : o.commit_timestamp_ms;
          },
          now_ms, records);
    }
    if (all_expired && !pending_.group_has_open(id) && g.in(group_state::empty)) {
      records.push_back(group_tombstone_record(id));
    }
  }
  // A consumer group's offsets of topics nobody in it subscribes to age
  // from their commit; an empty group whose offsets are all gone goes too.
  for (const auto& [id, cg] : consumers_.groups()) {
    const auto subscribed = cg.subscribed_topics();  // derived from the members: once per group
    const bool all_expired = expire_group_offsets(
        id, [&subscribed](const std::string& topic) { return subscribed.count(topic) > 0; },
        [](const committed_offset& o) { return o.commit_timestamp_ms; }, now_ms, records);
    if (all_expired && !pending_.group_has_open(id) && cg.members().empty()) {
      for (const auto& rec : consumer::deletion_records(cg)) records.push_back(consumer::encode_record(rec));
    }
  }
  // A streams group's the same, subscribed to its topology's sources while it has members.
  for (const auto& [id, sg] : streams_.groups()) {
    const bool all_expired = expire_group_offsets(
        id, [&sg](const std::string& topic) { return streams::subscribes_to(sg, topic); },
        [](const committed_offset& o) { return o.commit_timestamp_ms; }, now_ms, records);
    if (all_expired && !pending_.group_has_open(id) && sg.state() == streams::streams_group_state::empty) {
      for (const auto& rec : streams::deletion_records(sg)) records.push_back(streams::encode_record(rec));
    }
  }
  if (records.empty()) return;
  auto written = records;
  ctx_.append(std::move(records), [this, written = std::move(written)](error_code e, int64_t) {
    if (e == error_code::none) apply_records(written);
  });
}

}  // namespace hw::broker::group
