#pragma once
// A seeded, single-threaded simulation of one partition replicated on three
// brokers (1, 2, 3; replication factor 3, min.insync.replicas 2, clean
// elections only, no ELR), built from the real replication cores:
// leader_state (follower progress, ISR changes, HW, acks=all),
// follower_state with truncation_for_divergence and
// reset_after_out_of_range, and the controller's partition_change_builder.
// What partition.cc, replica_fetcher.cc, replica_manager.cc, the fetch
// handler and the controller do around those cores is mirrored here step by
// step (they need Asio and files); the log and its epoch cache are kept in
// memory with the rules of partition_log and leader_epoch_cache.h.
//
// The world: an event queue and an injected clock (time jumps to the next
// event); a network that delays, reorders and drops messages and can cut a
// broker off; disks that lose what was not flushed when a broker crashes; a
// controller that fences brokers whose heartbeats stop, re-registers
// restarted ones with a new broker epoch and answers AlterPartition; a
// producer that writes acks=all (and some acks=1) to whoever it thinks
// leads. Everything random comes from one seed, so a failing seed replays
// exactly.
//
// The fault model stays within what Kafka promises with RF 3, min ISR 2 and
// neither unclean elections nor ELR: one fault at a time. A broker crashes,
// is cut off, or loses a link only while every broker is up, registered and
// unfenced and no other cut is in place; and a crash takes a broker only
// when the ISR still holds another member, also after any ISR change it
// proposed as leader lands (without ELR, Kafka does lose acknowledged
// records when the last ISR member restarts without its unflushed tail,
// KIP-966). Heartbeats are delayed but not dropped (the
// controller channel retries), so only a cut fences a live broker.
//
// The checker runs after every step:
//   1. every acks=all record acknowledged is, at its offset, in the log of
//      the current leader once that leader has taken its epoch; when it is
//      acknowledged, at least min ISR replicas hold it (or lost it in a
//      crash since it was written); at the end, every replica has it;
//   2. records below a leader's HW are committed: they never change, and
//      every replica's log below its own HW is made of them; no replica
//      truncates below its HW;
//   3. a leader's HW never goes back within its leader epoch, and no HW is
//      above its log end;
//   4. every epoch cache matches its log (epochs and start offsets strictly
//      increase, nothing starts past the log end, every batch's epoch is
//      the one of the entry covering its base offset);
//   5. after the chaos ends, everything heals and the cluster settles within
//      a deadline: all three logs identical, every HW at the log end, all
//      three in the ISR.
//
// This file holds the simulation's state, its event loop, its network and
// the API tests drive it with. The member functions of each simulated
// component are defined in the headers included at the end:
//   replica_sim_controller.h      the controller (quorum_controller)
//   replica_sim_roles.h           a broker's metadata, roles, HW and acks
//                                 (replica_manager, partition)
//   replica_sim_leader.h          produce and the leader's side of a fetch
//                                 (partition::append_records, 01_fetch.cc)
//   replica_sim_follower.h        the follower's side (replica_fetcher.cc)
//   replica_sim_alter_partition.h the AlterPartition manager
//   replica_sim_periodic.h        a broker's periodic work and its life
//                                 (registration, flush, crash, restart)
//   replica_sim_faults.h          the producer and the fault schedule
//   replica_sim_checker.h         the invariants above

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "broker/replica/follower_state.h"
#include "broker/replica/leader_state.h"
#include "broker/replica/replica_types.h"
#include "controller/metadata/delta.h"
#include "controller/metadata/image.h"
#include "controller/partition_change.h"
#include "protocol/error_code.h"
#include "tests/broker/replica_sim_config.h"
#include "tests/broker/replica_sim_log.h"
#include "tests/broker/replica_sim_messages.h"

namespace hw::broker::replica_sim {

class simulation {
 public:
  explicit simulation(config c);

  // Runs the random schedule: chaos, healing, settling, final checks.
  outcome run();

  // --- driving it by hand (scripted tests) ---------------------------------
  void run_until(int64_t t) {
    while (out_.ok && !queue_.empty() && queue_.front().at <= t) step();
    now_ = std::max(now_, t);
  }
  // Runs until pred() holds (checked after every step) or t passes.
  template <class F>
  bool run_until(int64_t t, F pred) {
    while (out_.ok && !pred()) {
      if (queue_.empty() || queue_.front().at > t) return false;
      step();
    }
    return out_.ok;
  }
  // A produce of n records from the producer to broker `to`, sent now.
  std::vector<uint64_t> produce(int to, int n, bool acks_all);
  void cut_link(int a, int b) {
    cut_[a][b] = cut_[b][a] = true;
    trace("cut " + std::to_string(a) + "-" + std::to_string(b));
  }
  void heal_links() {
    for (auto& row : cut_) row.fill(false);
    trace("heal links");
  }
  void crash(int id) { crash_broker(brokers_[id]); }
  void restart(int id) { restart_broker(brokers_[id]); }
  void flush(int id) { flush_broker(brokers_[id]); }
  void finish() { final_check(); }
  void fail_unless(bool cond, const std::string& what) {
    if (!cond) fail(what + describe());
  }

  // --- views ----------------------------------------------------------------
  struct ack_record {
    storage::offset at;
    uint64_t payload;
  };
  int64_t now() const { return now_; }
  const outcome& result() const { return out_; }
  const controller::partition_registration& registration() const { return ctl_.reg; }
  const replica_log& log_of(int id) const { return brokers_[id].log; }
  storage::offset hw_of(int id) const { return brokers_[id].hw; }
  bool leads(int id) const { return brokers_[id].leading.has_value(); }
  const std::vector<ack_record>& acked() const { return acked_; }
  // The last produce's outcome at the broker (NONE when appended).
  error_code last_produce_error() const { return last_produce_error_; }
  storage::offset last_truncation(int id) const { return brokers_[id].last_truncation; }
  // Whether the controller's leader has taken its epoch and every replica
  // holds its log, at the HW, in the ISR.
  bool settled() const;
  // Every broker's state, appended to failures.
  std::string describe() const;

 private:
  enum class ev_kind : uint8_t { deliver, tick, controller_tick, producer_tick, fault_tick, flush, restart, heal };
  struct event {
    int64_t at = 0;
    uint64_t seq = 0;
    ev_kind kind = ev_kind::tick;
    int node = 0;
    message msg;
  };
  struct later {
    bool operator()(const event& a, const event& b) const { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  };

  struct pending_ack {
    storage::offset required;
    std::vector<ack_record> records;
    std::array<int64_t, 4> crashes_at_append{};
  };

  struct broker {
    int id = 0;
    bool up = true;
    uint64_t incarnation = 1;
    storage::broker_epoch epoch{-1};  // this incarnation's registration; -1 until registered
    uint64_t register_request = 0;
    int64_t register_sent_at = -1;
    int64_t next_heartbeat = 0;
    metadata_view image;      // what it has applied
    partition_role applied;   // the last registration it acted on
    bool roles_enabled = false;
    // The partition.
    replica_log log;
    storage::offset hw{0};
    storage::offset hw_checkpoint{0};
    partition_role published;  // partition::publish_role
    std::optional<leader_state> leading;
    // The fetcher.
    std::optional<follower_state> following;
    node_id fetch_from = no_node;
    uint64_t generation = 0;
    uint64_t fetch_request = 0;  // in flight, 0: none
    int64_t fetch_sent_at = 0;
    uint64_t list_request = 0;
    int64_t list_sent_at = 0;
    // The AlterPartition manager: one change in flight, retried.
    std::optional<isr_change> alter;
    bool alter_in_flight = false;
    int64_t alter_send_at = 0;
    uint64_t alter_request = 0;
    int64_t next_shrink_check = 0;
    std::vector<pending_ack> acks;
    // The checker's memory.
    storage::leader_epoch hw_epoch{-1};
    storage::offset hw_seen{-1};
    storage::offset verified{0};  // log prefix checked against the committed records
    size_t acks_checked = 0;      // acked records checked in this leader's log
    storage::leader_epoch acks_checked_epoch{-1};
    bool log_changed = true;
    int64_t crashes = 0;
    storage::offset last_truncation{-1};
  };

  struct controller_broker {
    storage::broker_epoch epoch{-1};
    bool fenced = false;
    uint64_t incarnation = 0;
    int64_t last_contact = 0;
    bool registered = false;
  };
  struct controller_state {
    int64_t version = 0;  // the metadata log's offset
    controller::partition_registration reg;
    std::array<controller_broker, 4> brokers;
    int64_t next_refresh = 0;
  };

  // What the leader's checks make of a follower's fetch before it is read.
  struct fetch_check {
    error_code error = error_code::none;
    std::optional<diverging_epoch> diverging;
  };

  static std::string list(const std::vector<node_id>& v) {
    std::string out;
    for (node_id n : v) out += (out.empty() ? "" : ",") + std::to_string(n.value);
    return "{" + out + "}";
  }
  static std::string list(const std::vector<int32_t>& v) {
    std::string out;
    for (int32_t n : v) out += (out.empty() ? "" : ",") + std::to_string(n);
    return "{" + out + "}";
  }

  // The event loop and the network (this file).
  void push_event(int64_t at, ev_kind k, int node, message m = {});
  bool step();
  void schedule_tick(int id) { push_event(now_ + rng_.uniform(cfg_.tick_min_ms, cfg_.tick_max_ms + 1), ev_kind::tick, id); }
  void trace(const std::string& s);
  void fail(const std::string& what);
  bool droppable(msg_kind k) const {
    return k != msg_kind::heartbeat && k != msg_kind::register_broker && k != msg_kind::register_answer;
  }
  void send(message m);
  void deliver(message m);
  message answer_to(const message& req, msg_kind k) const;

  // The controller (replica_sim_controller.h).
  metadata_view view() const;
  bool active(int r) const { return r >= 1 && r <= 3 && ctl_.brokers[r].registered && !ctl_.brokers[r].fenced; }
  void leader_and_isr_update(int remove, int add);
  void apply_change(const controller::msg::partition_change_record& record);
  void publish();
  void broadcast();
  void controller_tick();
  void controller_register(const message& m);
  void controller_heartbeat(const message& m);
  error_code alter_partition_error(const message& m, const std::vector<int32_t>& isr) const;
  void controller_alter_partition(const message& m);

  // A broker's metadata and roles (replica_sim_roles.h).
  broker_lookup lookup_of(const broker& b) const;
  leader_settings settings() const { return leader_settings{cfg_.lag_time_max_ms, 2}; }
  void apply_metadata(broker& b, const metadata_view& v);
  void apply_role(broker& b, const partition_role& role);
  void become_leader(broker& b, const partition_role& role);
  void become_follower(broker& b, const partition_role& role);
  void unfollow(broker& b);
  void follow(broker& b, node_id leader, storage::leader_epoch e);
  void maybe_advance_hw(broker& b);
  void check_acks(broker& b);
  void acknowledge(const broker& leader, const pending_ack& p);

  // Produce and the leader's side of a fetch (replica_sim_leader.h).
  void on_produce(broker& b, const message& m);
  error_code check_leader_epoch(const broker& b, storage::leader_epoch current) const;
  fetch_check check_fetch(const broker& b, const fetch_position& pos) const;
  error_code on_follower_fetch(broker& b, const message& m);
  void read_one(const broker& b, const fetch_position& pos, const fetch_check& checked, message& a);
  void trace_fetch_answer(const broker& b, const message& m, const message& a);
  void on_fetch(broker& b, const message& m);
  void on_list_offsets(broker& b, const message& m);

  // The follower's side (replica_sim_follower.h).
  bool follower_at(const broker& b, storage::leader_epoch e) const {
    return !b.leading && b.published.leader != node_id(b.id) && b.published.leader_epoch == e;
  }
  message follower_request(broker& b, msg_kind kind);
  void send_fetch(broker& b);
  void send_list_offsets(broker& b);
  void truncate(broker& b, const truncation& t);
  void follow_leader_offsets(broker& b, storage::offset leader_hw);
  void on_diverging_epoch(broker& b, const message& a);
  void on_fetch_answer(broker& b, const message& a);
  void on_list_offsets_answer(broker& b, const message& a);

  // AlterPartition (replica_sim_alter_partition.h).
  void queue_alter(broker& b, const isr_change& c);
  void send_alter(broker& b);
  void on_alter_answer(broker& b, const message& a);

  // A broker's periodic work and its life (replica_sim_periodic.h).
  void tick(broker& b);
  void register_if_due(broker& b);
  void heartbeat_if_due(broker& b);
  void leader_tick(broker& b);
  void follower_tick(broker& b);
  void on_registered(broker& b, const message& a);
  void flush_broker(broker& b);
  void crash_broker(broker& b);
  void restart_broker(broker& b);

  // The producer and the faults (replica_sim_faults.h).
  void producer_tick();
  bool quiet() const;
  bool may_crash(int x) const;
  void fault_tick();
  void heal_all();

  // The checker (replica_sim_checker.h).
  void check();
  void check_acked_in_leader();
  void check_broker(broker& b);
  bool check_hw_bounds(broker& b, const std::string& who);
  bool check_committed_prefix(broker& b, const std::string& who);
  bool check_epoch_cache(broker& b, const std::string& who);
  void final_check();

  config cfg_;
  rng rng_;
  int64_t now_ = 0;
  uint64_t seq_ = 0;
  std::vector<event> queue_;
  outcome out_;
  controller_state ctl_;
  std::array<broker, 4> brokers_;  // 1–3
  std::array<std::array<bool, node_count>, node_count> cut_{};
  bool fault_active_ = false;
  bool healed_ = false;
  int64_t heal_at_ = 0;
  int64_t last_restart_ = 0;
  uint64_t request_ids_ = 0;
  uint64_t next_payload_ = 1;
  std::vector<ack_record> acked_;
  std::vector<uint64_t> committed_;  // by offset: the records below some leader's HW
  error_code last_produce_error_ = error_code::none;
  protocol::uuid topic_id_{};
};

inline simulation::simulation(config c) : cfg_(c), rng_(c.seed) {
  if (cfg_.trace) cfg_.record_trace = true;
  // The partition exists with leader 1 at epoch 0; all three are
  // registered and unfenced.
  ctl_.reg.replicas = {node_id(1), node_id(2), node_id(3)};
  ctl_.reg.isr = ctl_.reg.replicas;
  ctl_.reg.leader = node_id(1);
  ctl_.reg.leader_epoch = storage::leader_epoch(0);
  ctl_.reg.partition_epoch = partition_epoch(0);
  for (int i = 1; i <= 3; ++i) {
    ctl_.version++;
    ctl_.brokers[i] = {storage::broker_epoch(ctl_.version), false, 1, 0, true};
  }
  ctl_.version++;
  for (int i = 1; i <= 3; ++i) {
    broker& b = brokers_[i];
    b.id = i;
    b.epoch = storage::broker_epoch(ctl_.brokers[i].epoch);
    b.incarnation = 1;
    schedule_tick(i);
    apply_metadata(b, view());
  }
  push_event(0, ev_kind::controller_tick, 0);
  if (!cfg_.scripted) {
    push_event(0, ev_kind::producer_tick, 0);
    push_event(0, ev_kind::fault_tick, 0);
    for (int i = 1; i <= 3; ++i) push_event(rng_.uniform(10, 200), ev_kind::flush, i);
  }
  heal_at_ = cfg_.chaos_ms;
}

inline outcome simulation::run() {
  const int64_t deadline = cfg_.chaos_ms + cfg_.settle_ms;
  while (out_.ok) {
    if (!step()) break;
    if (now_ >= heal_at_ && !healed_) heal_all();
    if (healed_ && now_ >= last_restart_ && settled()) break;
    if (now_ >= deadline) {
      fail("the cluster did not settle within " + std::to_string(cfg_.settle_ms) + " ms of the heal" + describe());
      break;
    }
  }
  if (out_.ok) final_check();
  return out_;
}

inline std::vector<uint64_t> simulation::produce(int to, int n, bool acks_all) {
  message m;
  m.kind = msg_kind::produce;
  m.from = producer_node;
  m.to = to;
  m.acks_all = acks_all;
  for (int i = 0; i < n; ++i) m.payloads.push_back(next_payload_++);
  std::vector<uint64_t> ids = m.payloads;
  send(std::move(m));
  return ids;
}

// --- the event loop -----------------------------------------------------------
inline void simulation::push_event(int64_t at, ev_kind k, int node, message m) {
  queue_.push_back(event{at, seq_++, k, node, std::move(m)});
  std::push_heap(queue_.begin(), queue_.end(), later{});
}

inline bool simulation::step() {
  if (queue_.empty()) return false;
  std::pop_heap(queue_.begin(), queue_.end(), later{});
  event e = std::move(queue_.back());
  queue_.pop_back();
  now_ = std::max(now_, e.at);
  ++out_.s.steps;
  switch (e.kind) {
    case ev_kind::deliver: deliver(std::move(e.msg)); break;
    case ev_kind::tick: tick(brokers_[e.node]); schedule_tick(e.node); break;
    case ev_kind::controller_tick: controller_tick(); push_event(now_ + 10, ev_kind::controller_tick, 0); break;
    case ev_kind::producer_tick: producer_tick(); break;
    case ev_kind::fault_tick: fault_tick(); break;
    case ev_kind::flush:
      if (now_ < heal_at_ || cfg_.scripted) flush_broker(brokers_[e.node]);
      if (!cfg_.scripted) push_event(now_ + rng_.uniform(10, 200), ev_kind::flush, e.node);
      break;
    case ev_kind::restart: restart_broker(brokers_[e.node]); break;
    case ev_kind::heal: heal_links(); fault_active_ = false; break;
  }
  check();
  return true;
}

// The trace is hashed (FNV-1a) so that the determinism test can compare
// runs without keeping them.
inline void simulation::trace(const std::string& s) {
  if (!cfg_.record_trace) return;
  std::string line = "t=" + std::to_string(now_) + " " + s;
  for (unsigned char c : line) out_.s.trace_hash = (out_.s.trace_hash ^ c) * 1099511628211ULL;
  out_.s.trace_hash = (out_.s.trace_hash ^ '\n') * 1099511628211ULL;
  if (cfg_.trace) std::fprintf(stderr, "%s\n", line.c_str());
}

inline void simulation::fail(const std::string& what) {
  if (!out_.ok) return;
  out_.ok = false;
  std::ostringstream o;
  o << "seed " << cfg_.seed << " step " << out_.s.steps << " t=" << now_ << "ms: " << what;
  out_.failure = o.str();
  trace("FAIL " + what);
}

// --- the network ----------------------------------------------------------------
inline void simulation::send(message m) {
  if (!cfg_.scripted && droppable(m.kind) && rng_.chance(cfg_.p_drop)) {
    if (cfg_.record_trace) trace(std::string("drop ") + kind_name(m.kind) + " " + std::to_string(m.from) + "->" + std::to_string(m.to));
    return;
  }
  int64_t delay = rng_.uniform(cfg_.min_delay_ms, cfg_.max_delay_ms + 1);
  push_event(now_ + delay, ev_kind::deliver, m.to, std::move(m));
}

inline void simulation::deliver(message m) {
  // A cut link drops what crosses it when it would arrive.
  if (cut_[m.from][m.to]) return;
  if (m.to >= 1 && m.to <= 3) {
    broker& b = brokers_[m.to];
    if (!b.up) return;
    if (m.to_incarnation != 0 && m.to_incarnation != b.incarnation) return;
  }
  switch (m.kind) {
    case msg_kind::fetch: on_fetch(brokers_[m.to], m); break;
    case msg_kind::fetch_answer: on_fetch_answer(brokers_[m.to], m); break;
    case msg_kind::list_offsets: on_list_offsets(brokers_[m.to], m); break;
    case msg_kind::list_offsets_answer: on_list_offsets_answer(brokers_[m.to], m); break;
    case msg_kind::alter_partition: controller_alter_partition(m); break;
    case msg_kind::alter_partition_answer: on_alter_answer(brokers_[m.to], m); break;
    case msg_kind::metadata: apply_metadata(brokers_[m.to], m.image); break;
    case msg_kind::heartbeat: controller_heartbeat(m); break;
    case msg_kind::register_broker: controller_register(m); break;
    case msg_kind::register_answer: on_registered(brokers_[m.to], m); break;
    case msg_kind::produce: on_produce(brokers_[m.to], m); break;
  }
}

inline message simulation::answer_to(const message& req, msg_kind k) const {
  message a;
  a.kind = k;
  a.from = req.to;
  a.to = req.from;
  a.to_incarnation = req.incarnation;
  a.request_id = req.request_id;
  a.generation = req.generation;
  a.position = req.position;
  return a;
}

}  // namespace hw::broker::replica_sim

// The components' member functions; each of these includes this file back
// so that it also reads on its own.
#include "tests/broker/replica_sim_controller.h"
#include "tests/broker/replica_sim_roles.h"
#include "tests/broker/replica_sim_leader.h"
#include "tests/broker/replica_sim_follower.h"
#include "tests/broker/replica_sim_alter_partition.h"
#include "tests/broker/replica_sim_periodic.h"
#include "tests/broker/replica_sim_faults.h"
#include "tests/broker/replica_sim_checker.h"
