// JoinGroup, SyncGroup, Heartbeat and LeaveGroup of the classic protocol,
// after Kafka 4.3's GroupMetadataManager (classicGroup* methods).
#include <cassert>
#include <cstdio>
#include <utility>

#include "broker/group/group_metadata_manager.h"

namespace hw::broker::group {

namespace msg = protocol::msg;
using protocol::error_code;

namespace {

int16_t code(error_code e) { return static_cast<int16_t>(e); }

msg::join_group_response join_error(int16_t version, std::string member_id, error_code e) {
  msg::join_group_response r;
  r.member_id = std::move(member_id);
  r.error_code = code(e);
  // No protocol chosen: null from v7 (nullable there), as Kafka answers.
  if (version >= 7) r.protocol_name.reset();
  else r.protocol_name = "";
  return r;
}

std::vector<member_protocol> protocols_of(const msg::join_group_request& request) {
  std::vector<member_protocol> out;
  out.reserve(request.protocols.size());
  for (const auto& p : request.protocols) out.push_back({p.name, p.metadata});
  return out;
}

// Kafka's form: client.id (or group.instance.id) + "-" + a random UUID in
// its 8-4-4-4-12 hex text.
std::string new_member_id(const group_metadata_manager::random_source& random, std::string_view client_id,
                          const std::optional<std::string>& instance_id) {
  uint64_t hi = random();
  uint64_t lo = random();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;                         // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // IETF variant
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  std::string prefix = instance_id ? *instance_id : std::string(client_id);
  return prefix + "-" + text;
}

// JoinGroup v0 has no rebalance timeout; Kafka uses the session timeout.
int32_t rebalance_timeout_of(int16_t version, const msg::join_group_request& request) {
  return version == 0 ? request.session_timeout_ms : request.rebalance_timeout_ms;
}

}  // namespace

void group_metadata_manager::join_group(request_token token, int16_t version, const client_info& client,
                             const msg::join_group_request& request, int64_t now_ms) {
  if (!ctx_.active()) return ctx_.reply(token, join_error(version, request.member_id, ctx_.unavailable_error()));
  if (request.group_id.empty()) {
    return ctx_.reply(token, join_error(version, request.member_id, error_code::invalid_group_id));
  }
  if (request.session_timeout_ms < ctx_.config().min_session_timeout_ms ||
      request.session_timeout_ms > ctx_.config().max_session_timeout_ms) {
    return ctx_.reply(token, join_error(version, request.member_id, error_code::invalid_session_timeout));
  }
  bool unknown_member = request.member_id.empty();
  bool new_group = group(request.group_id) == nullptr;
  if (new_group && !unknown_member) {
    return ctx_.reply(token, join_error(version, request.member_id, error_code::unknown_member_id));
  }
  classic_group& g = get_or_create(request.group_id, now_ms);
  append_token appends_before = ctx_.appends_issued();
  if (!accept_joining_member(g, request.member_id)) {
    g.remove(request.member_id);
    ctx_.reply(token, join_error(version, "", error_code::group_max_size_reached));
  } else if (unknown_member) {
    join_new_member(g, token, version, client, request, now_ms);
  } else {
    join_existing_member(g, token, version, client, request, now_ms);
  }
  if (new_group && ctx_.appends_issued() == appends_before) write_new_group(g);
}

void group_metadata_manager::write_new_group(const classic_group& g) {
  // The group exists from now on; Kafka makes that durable with an empty
  // group record and forgets the group if the write fails. (Kafka reverts
  // everything after the failed write; we forget the group only while
  // nobody is in it, so no parked request is lost.)
  msg::group_metadata_value empty;
  empty.protocol_type = "";
  empty.generation = 0;
  empty.protocol.reset();
  empty.leader.reset();
  empty.current_state_timestamp = g.state_timestamp_ms().value_or(-1);
  std::string group_id = g.group_id();
  ctx_.append({group_metadata_record(group_id, empty)}, [this, group_id](error_code e, int64_t) {
    if (e == error_code::none) return;
    classic_group* created = group(group_id);
    if (created && created->members().empty() && created->generation() == 0 && !committed_.group_offsets(group_id)) {
      groups_.erase(group_id);
    }
  });
}

bool group_metadata_manager::accept_joining_member(classic_group& g, std::string_view member_id) const {
  switch (g.state()) {
    case group_state::empty:
    case group_state::dead:
      return true;
    case group_state::preparing_rebalance: {
      // Counting parked joins rather than members lets a group shrink back
      // under a lowered limit: the last to rejoin are turned away.
      const group_member* m = std::as_const(g).members().find(member_id);
      return (m && m->awaiting_join) || g.members().awaiting_join_count() < ctx_.config().max_size;
    }
    case group_state::completing_rebalance:
    case group_state::stable:
      return g.members().contains(member_id) || static_cast<int64_t>(g.members().size()) < ctx_.config().max_size;
  }
  return false;
}

void group_metadata_manager::join_new_member(classic_group& g, request_token token, int16_t version,
                                  const client_info& client, const msg::join_group_request& request,
                                  int64_t now_ms) {
  if (g.in(group_state::dead)) {
    return ctx_.reply(token, join_error(version, "", error_code::coordinator_not_available));
  }
  auto protocols = protocols_of(request);
  if (!g.supports_protocols(request.protocol_type, protocols)) {
    return ctx_.reply(token, join_error(version, "", error_code::inconsistent_group_protocol));
  }
  std::string member_id = new_member_id(random_, client.client_id, request.group_instance_id);
  if (request.group_instance_id) {
    if (auto existing = g.members().static_member_id(*request.group_instance_id)) {
      return update_static_member(g, *existing, std::move(member_id), token, version, request, now_ms);
    }
    return add_member_and_rebalance(g, std::move(member_id), token, version, client, request, now_ms);
  }
  if (version >= 4) {
    // The client must come back with this id; until it does it is pending,
    // and it expires after one session timeout.
    g.members().add_pending(member_id, now_ms + request.session_timeout_ms);
    return ctx_.reply(token, join_error(version, member_id, error_code::member_id_required));
  }
  add_member_and_rebalance(g, std::move(member_id), token, version, client, request, now_ms);
}

void group_metadata_manager::join_existing_member(classic_group& g, request_token token, int16_t version,
                                       const client_info& client, const msg::join_group_request& request,
                                       int64_t now_ms) {
  const std::string& member_id = request.member_id;
  if (g.in(group_state::dead)) {
    return ctx_.reply(token, join_error(version, member_id, error_code::coordinator_not_available));
  }
  auto protocols = protocols_of(request);
  if (!g.supports_protocols(request.protocol_type, protocols)) {
    return ctx_.reply(token, join_error(version, member_id, error_code::inconsistent_group_protocol));
  }
  if (g.members().is_pending(member_id)) {
    // A pending member is never static (static members skip MEMBER_ID_REQUIRED);
    // Kafka treats the opposite as a broken client invariant.
    return add_member_and_rebalance(g, member_id, token, version, client, request, now_ms);
  }
  if (auto e = g.members().validate(member_id, request.group_instance_id); e != error_code::none) {
    auto r = join_error(version, member_id, e);
    r.protocol_type.reset();
    if (version >= 7) r.protocol_name.reset();
    return ctx_.reply(token, std::move(r));
  }
  group_member& m = *g.members().find(member_id);
  switch (g.state()) {
    case group_state::preparing_rebalance:
      return update_member_and_rebalance(g, m, token, version, request, now_ms);
    case group_state::completing_rebalance:
      if (m.matches(protocols)) {
        // The member lost our answer: give it the current generation again.
        auto r = join_response(g, member_id, g.is_leader(member_id));
        if (version < 7 && !r.protocol_name) r.protocol_name = "";
        return ctx_.reply(token, std::move(r));
      }
      return update_member_and_rebalance(g, m, token, version, request, now_ms);
    case group_state::stable:
      // A rejoining leader asks for a rebalance (e.g. topic metadata changed).
      if (g.is_leader(member_id) || !m.matches(protocols)) {
        return update_member_and_rebalance(g, m, token, version, request, now_ms);
      } else {
        auto r = join_response(g, member_id, false);
        if (version < 7 && !r.protocol_name) r.protocol_name = "";
        return ctx_.reply(token, std::move(r));
      }
    default:
      return ctx_.reply(token, join_error(version, member_id, error_code::unknown_member_id));
  }
}

void group_metadata_manager::add_member_and_rebalance(classic_group& g, std::string member_id, request_token token,
                                           int16_t version, const client_info& client,
                                           const msg::join_group_request& request, int64_t now_ms) {
  group_member m;
  m.member_id = member_id;
  m.group_instance_id = request.group_instance_id;
  m.client_id = client.client_id;
  m.client_host = client.client_host;
  m.rebalance_timeout_ms = rebalance_timeout_of(version, request);
  m.session_timeout_ms = request.session_timeout_ms;
  m.protocol_type = request.protocol_type;
  m.protocols = protocols_of(request);
  m.is_new = true;
  if (g.in(group_state::preparing_rebalance) && g.previous_state() == group_state::empty) {
    g.new_member_added = true;
  }
  g.add(std::move(m), parked_request{token, version});
  // A parked new member cannot heartbeat; its join times out on its own so
  // that retries of clients that went away do not pile up.
  reschedule_heartbeat(*g.members().find(member_id), now_ms, ctx_.config().new_member_join_timeout_ms);
  rebalance_.maybe_prepare_rebalance_or_complete_join(g, now_ms);
}

void group_metadata_manager::update_member_and_rebalance(classic_group& g, group_member& m, request_token token,
                                              int16_t version, const msg::join_group_request& request,
                                              int64_t now_ms) {
  if (m.awaiting_join) {
    // Kafka drops the superseded future; we answer it so no connection waits forever.
    g.complete_join(m, join_error(m.awaiting_join->version, m.member_id, error_code::rebalance_in_progress),
                    ctx_.completions());
  }
  g.members().update(m, protocols_of(request), rebalance_timeout_of(version, request), request.session_timeout_ms,
                  parked_request{token, version});
  rebalance_.maybe_prepare_rebalance_or_complete_join(g, now_ms);
}

void group_metadata_manager::update_static_member(classic_group& g, const std::string& old_id, std::string new_id,
                                       request_token token, int16_t version,
                                       const msg::join_group_request& request, int64_t now_ms) {
  assert(!g.in(group_state::empty) && !g.in(group_state::dead));
  std::optional<std::string> old_leader = g.leader_id();
  const std::string instance_id = *request.group_instance_id;
  group_member& m = g.replace_static_member(instance_id, old_id, new_id, ctx_.completions());
  reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
  auto old_protocols = m.protocols;
  int32_t old_rebalance_ms = m.rebalance_timeout_ms;
  int32_t old_session_ms = m.session_timeout_ms;
  g.members().update(m, protocols_of(request), rebalance_timeout_of(version, request), request.session_timeout_ms,
                  parked_request{token, version});
  if (g.in(group_state::stable)) {
    if (g.protocol_name().value_or("") != g.members().select_protocol()) {
      return rebalance_.maybe_prepare_rebalance_or_complete_join(g, now_ms);
    }
    // Nothing the assignment depends on changed: persist the new member id
    // and hand the member its old assignment, without a rebalance.
    std::string group_id = g.group_id();
    rebalance_.write_group(g, [=, this](error_code e, int64_t done_ms) {
      classic_group* cg = group(group_id);
      if (!cg) return;
      group_member* nm = cg->members().find(new_id);
      if (!nm) return;
      if (e != error_code::none) {
        cg->members().update(*nm, old_protocols, old_rebalance_ms, old_session_ms, std::nullopt);
        group_member& back = cg->replace_static_member(instance_id, new_id, old_id, ctx_.completions());
        reschedule_heartbeat(back, done_ms, back.session_timeout_ms);
        msg::join_group_response r;
        r.member_id = "";
        r.generation_id = cg->generation();
        r.protocol_name = cg->protocol_name();
        r.protocol_type = cg->protocol_type();
        r.leader = old_leader.value_or("");
        r.error_code = code(append_error_to_response_error(e));
        if (version < 7 && !r.protocol_name) r.protocol_name = "";
        ctx_.reply(token, std::move(r));
        return;
      }
      bool leader = cg->is_leader(new_id);
      if (version >= 9) {
        auto r = join_response(*cg, new_id, leader);
        r.skip_assignment = leader;
        cg->complete_join(*nm, std::move(r), ctx_.completions());
      } else {
        // Older clients would run an assignment if told they lead, so the
        // answer names the leader as it was before the replacement.
        auto r = join_response(*cg, new_id, false);
        r.leader = old_leader.value_or("");
        cg->complete_join(*nm, std::move(r), ctx_.completions());
      }
    });
    return;
  }
  if (g.in(group_state::completing_rebalance)) {
    // The leader may already be assigning to the old id: start over.
    return rebalance_.prepare_rebalance(g, now_ms);
  }
  rebalance_.maybe_complete_join_phase(g, now_ms);
}

// --- SyncGroup -------------------------------------------------------------------

void group_metadata_manager::sync_group(request_token token, int16_t version, const msg::sync_group_request& request,
                             int64_t now_ms) {
  (void)version;
  auto fail = [&](error_code e) {
    msg::sync_group_response r;
    r.error_code = code(e);
    ctx_.reply(token, std::move(r));
  };
  if (!ctx_.active()) return fail(ctx_.unavailable_error());
  if (request.group_id.empty()) return fail(error_code::invalid_group_id);
  classic_group* g = group(request.group_id);
  if (!g || g->in(group_state::empty)) return fail(error_code::unknown_member_id);
  if (g->in(group_state::dead)) return fail(error_code::coordinator_not_available);
  if (auto e = g->members().validate(request.member_id, request.group_instance_id); e != error_code::none) {
    return fail(e);
  }
  if (request.generation_id != g->generation()) return fail(error_code::illegal_generation);
  auto inconsistent = [](const std::optional<std::string>& asked, const std::optional<std::string>& have) {
    return asked && have && *asked != *have;
  };
  if (inconsistent(request.protocol_type, g->protocol_type()) ||
      inconsistent(request.protocol_name, g->protocol_name())) {
    return fail(error_code::inconsistent_group_protocol);
  }
  if (g->in(group_state::preparing_rebalance)) return fail(error_code::rebalance_in_progress);
  group_member& m = *g->members().find(request.member_id);
  if (g->in(group_state::stable)) {
    rebalance_.remove_pending_sync(*g, request.member_id);
    msg::sync_group_response r;
    r.protocol_type = g->protocol_type();
    r.protocol_name = g->protocol_name();
    r.assignment = m.assignment;
    return ctx_.reply(token, std::move(r));
  }
  // CompletingRebalance: park until the leader's assignment is durable.
  if (m.awaiting_sync) {
    g->complete_sync(m, sync_error(error_code::rebalance_in_progress),
                     ctx_.completions());
  }
  m.awaiting_sync = parked_request{token, version};
  rebalance_.remove_pending_sync(*g, request.member_id);
  if (!g->is_leader(request.member_id)) return;
  store_leader_assignment(*g, request);
}

// --- Heartbeat ---------------------------------------------------------------------

void group_metadata_manager::heartbeat(request_token token, int16_t version, const msg::heartbeat_request& request,
                            int64_t now_ms) {
  (void)version;
  auto answer = [&](error_code e) {
    msg::heartbeat_response r;
    r.error_code = code(e);
    ctx_.reply(token, r);
  };
  // While loading Kafka answers heartbeats blindly: the member is kept.
  if (ctx_.mode() == shard_mode::loading) return answer(error_code::none);
  if (!ctx_.active()) return answer(ctx_.unavailable_error());
  if (request.group_id.empty()) return answer(error_code::invalid_group_id);
  classic_group* g = group(request.group_id);
  if (!g) return answer(error_code::unknown_member_id);
  if (g->in(group_state::dead)) return answer(error_code::coordinator_not_available);
  if (auto e = g->members().validate(request.member_id, request.group_instance_id); e != error_code::none) {
    return answer(e);
  }
  if (request.generation_id != g->generation()) return answer(error_code::illegal_generation);
  group_member& m = *g->members().find(request.member_id);
  switch (g->state()) {
    case group_state::empty:
      return answer(error_code::unknown_member_id);
    case group_state::preparing_rebalance:
      reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
      return answer(error_code::rebalance_in_progress);
    default:
      reschedule_heartbeat(m, now_ms, m.session_timeout_ms);
      return answer(error_code::none);
  }
}

// --- LeaveGroup --------------------------------------------------------------------

error_code group_metadata_manager::leave_one(classic_group& g, const std::string& member_id,
                                  const std::optional<std::string>& instance_id) {
  auto remove_current = [&](const std::string& id) {
    group_member* m = g.members().find(id);
    g.complete_join(*m, join_error(m->awaiting_join ? m->awaiting_join->version : 9, "", error_code::unknown_member_id),
                    ctx_.completions());
    g.complete_sync(*m, sync_error(error_code::unknown_member_id), ctx_.completions());
    g.remove(id);
  };
  if (member_id.empty()) {
    // Administrative removal by group.instance.id.
    auto existing = instance_id ? g.members().static_member_id(*instance_id) : std::nullopt;
    if (!existing) return error_code::unknown_member_id;
    remove_current(*existing);
  } else if (g.members().is_pending(member_id)) {
    g.remove(member_id);
  } else if (auto e = g.members().validate(member_id, instance_id); e != error_code::none) {
    return e;
  } else {
    remove_current(member_id);
  }
  return error_code::none;
}

void group_metadata_manager::leave_group(request_token token, int16_t version, const msg::leave_group_request& request,
                              int64_t now_ms) {
  (void)version;
  msg::leave_group_response response;
  if (!ctx_.active()) {
    response.error_code = code(ctx_.unavailable_error());
    return ctx_.reply(token, std::move(response));
  }
  if (request.group_id.empty()) {
    response.error_code = code(error_code::invalid_group_id);
    return ctx_.reply(token, std::move(response));
  }
  classic_group* g = group(request.group_id);
  auto member_result = [](const msg::leave_group_request::member_identity& who, error_code e) {
    msg::leave_group_response::member_response r;
    r.member_id = who.member_id;
    r.group_instance_id = who.group_instance_id;
    r.error_code = code(e);
    return r;
  };
  if (!g) {
    for (const auto& who : request.members) {
      response.members.push_back(member_result(who, error_code::unknown_member_id));
    }
    return ctx_.reply(token, std::move(response));
  }
  if (g->in(group_state::dead)) {
    response.error_code = code(error_code::coordinator_not_available);
    return ctx_.reply(token, std::move(response));
  }
  bool any_left = false;
  for (const auto& who : request.members) {
    error_code e = leave_one(*g, who.member_id, who.group_instance_id);
    any_left |= e == error_code::none;
    response.members.push_back(member_result(who, e));
  }
  if (any_left) {
    if (g->in(group_state::stable) || g->in(group_state::completing_rebalance)) {
      rebalance_.maybe_prepare_rebalance_or_complete_join(*g, now_ms);
    } else if (g->in(group_state::preparing_rebalance)) {
      rebalance_.maybe_complete_join_phase(*g, now_ms);
    }
  }
  ctx_.reply(token, std::move(response));
}

}  // namespace hw::broker::group
