// task_assignor: Kafka's StickyTaskAssignor (see task_assignor.h). The
// structure follows Kafka's so that its tie-breaks can be followed: process
// states in a HashMap sized for the members, members' task counts in a
// HashMap each, processes and members polled from PriorityQueues by load.
#include "broker/group/streams/task_assignor.h"

#include <algorithm>
#include <list>
#include <memory>
#include <optional>

#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"
#include "broker/group/consumer/java_priority_queue.h"
#include "broker/group/consumer/java_strings.h"

namespace hw::broker::group::streams {

using consumer::java_hash_map;
using consumer::java_priority_queue;
using consumer::java_string_key;

namespace {

struct task {
  std::string subtopology;
  int32_t partition = 0;
  bool operator==(const task&) const = default;
  bool operator<(const task& o) const {
    if (int c = consumer::java_string_compare(subtopology, o.subtopology); c != 0) return c < 0;
    return partition < o.partition;
  }
};

std::string to_string(const task& t) { return t.subtopology + "_" + std::to_string(t.partition); }

struct member_ref {
  std::string process_id;
  std::string member_id;
};

struct assignor_failure {
  std::string message;
};

// One process (Kafka's ProcessState): its members' task counts and tasks.
class process_state {
 public:
  explicit process_state(std::string id) : id_(std::move(id)) {}

  double load() const { return load_; }
  const java_hash_map<std::string, int32_t, java_string_key>& member_counts() const { return counts_; }
  int32_t count_of(const std::string& member_id) const { return *counts_.find(member_id); }
  bool has_task(const task& t) const { return assigned_.count(t) > 0; }
  const std::map<std::string, std::vector<task>>& active() const { return active_; }
  const std::map<std::string, std::vector<task>>& standby() const { return standby_; }

  void add_member(const std::string& member_id) {
    counts_.put(member_id, 0);
    ++capacity_;
    compute_load();
  }

  int32_t add_task(const std::string& member_id, const task& t, bool is_active) {
    const int32_t n = add_task_internal(member_id, t, is_active);
    by_load_.reset();
    return n;
  }

  // -1 when it has no member.
  int32_t add_task_to_least_loaded_member(const task& t, bool is_active) {
    if (counts_.empty()) return -1;
    if (counts_.size() == 1) return add_task_internal(counts_.keys().front(), t, is_active);
    if (!by_load_) {
      by_load_.emplace(entry_compare{});
      counts_.for_each([&](const std::string& id, const int32_t& n) { by_load_->add({id, n}); });
    }
    auto member = by_load_->poll();
    if (!member) throw assignor_failure{"No members available to assign task " + to_string(t)};
    const int32_t n = add_task_internal(member->first, t, is_active);
    member->second = n;
    by_load_->add(*member);
    return n;
  }

 private:
  struct entry_compare {
    int operator()(const std::pair<std::string, int32_t>& a, const std::pair<std::string, int32_t>& b) const {
      return a.second < b.second ? -1 : (a.second > b.second ? 1 : 0);
    }
  };

  int32_t add_task_internal(const std::string& member_id, const task& t, bool is_active) {
    ++task_count_;
    assigned_.insert(t);
    (is_active ? active_ : standby_)[member_id].push_back(t);
    const int32_t n = count_of(member_id) + 1;
    counts_.put(member_id, n);
    compute_load();
    return n;
  }

  void compute_load() { load_ = capacity_ <= 0 ? -1 : static_cast<double>(task_count_) / capacity_; }

  std::string id_;
  int32_t capacity_ = 0;
  double load_ = 1.7976931348623157e308;  // Double.MAX_VALUE until it has a member
  int32_t task_count_ = 0;
  java_hash_map<std::string, int32_t, java_string_key> counts_;
  std::map<std::string, std::vector<task>> active_, standby_;
  std::set<task> assigned_;
  std::optional<java_priority_queue<std::pair<std::string, int32_t>, entry_compare>> by_load_;
};

int32_t tasks_per_member(int32_t tasks, int32_t members) {
  if (members == 0) return 0;
  return tasks / members + (tasks % members > 0 ? 1 : 0);
}

struct load_compare {
  int operator()(process_state* a, process_state* b) const {
    return a->load() < b->load() ? -1 : (a->load() > b->load() ? 1 : 0);
  }
};
using process_queue = java_priority_queue<process_state*, load_compare>;

class sticky_assignor {
 public:
  explicit sticky_assignor(const task_assignment_input& in) : in_(in) {}

  std::map<std::string, member_tasks> run() {
    initialize();
    auto active = task_ids(true);
    assign_active(active);
    if (standby_replicas_ > 0) {
      auto stateful = task_ids(false);
      assign_standby(stateful);
    }
    return result();
  }

 private:
  // Each subtopology's tasks, subtopologies in id order (Kafka's sorted map).
  std::list<task> task_ids(bool active) const {
    std::list<task> out;
    std::vector<std::string> ids;
    for (const auto& [id, n] : in_.tasks) ids.push_back(id);
    std::sort(ids.begin(), ids.end(),
              [](const std::string& a, const std::string& b) { return consumer::java_string_compare(a, b) < 0; });
    for (const auto& id : ids)
      if (active || in_.stateful.count(id))
        for (int32_t p = 0; p < in_.tasks.at(id); ++p) out.push_back({id, p});
    return out;
  }

  process_state& process(const std::string& id) { return *processes_.at(id); }

  void initialize() {
    standby_replicas_ = in_.num_standby_replicas;
    for (const auto& [id, n] : in_.tasks) {
      total_tasks_ += n;
      total_active_tasks_ += n;
      if (in_.stateful.count(id)) total_tasks_ += n * standby_replicas_;
    }
    const auto members = static_cast<int32_t>(in_.members.size());
    members_with_active_capacity_ = members;
    members_with_capacity_ = members;
    active_per_member_ = tasks_per_member(total_active_tasks_, members_with_active_capacity_);
    total_per_member_ = tasks_per_member(total_tasks_, members_with_capacity_);
    process_order_ = java_hash_map<std::string, process_state*, java_string_key>(members);
    // The members in the order of Kafka's HashMap of member specs.
    java_hash_map<std::string, size_t, java_string_key> specs;
    for (size_t i = 0; i < in_.members.size(); ++i) specs.put(in_.members[i].member_id, i);
    specs.for_each([&](const std::string& member_id, const size_t& i) {
      const auto& m = in_.members[i];
      if (!processes_.count(m.process_id)) {
        processes_.emplace(m.process_id, std::make_unique<process_state>(m.process_id));
        process_order_.put(m.process_id, processes_.at(m.process_id).get());
      }
      process(m.process_id).add_member(member_id);
      const member_ref ref{m.process_id, member_id};
      for (const auto& [subtopology, partitions] : m.active)
        for (int32_t p : partitions) prev_active_.insert_or_assign(task{subtopology, p}, ref);
      for (const auto& [subtopology, partitions] : m.standby)
        for (int32_t p : partitions) prev_standby_[task{subtopology, p}].push_back(ref);
      order_.push_back(member_id);
    });
  }

  bool under_active_quota(const member_ref& m) { return process(m.process_id).count_of(m.member_id) < active_per_member_; }
  bool under_quota(const member_ref& m) { return process(m.process_id).count_of(m.member_id) < total_per_member_; }

  void took_active(int32_t n) {
    if (n == active_per_member_) {
      --members_with_active_capacity_;
      total_active_tasks_ -= n;
      active_per_member_ = tasks_per_member(total_active_tasks_, members_with_active_capacity_);
    }
  }
  void took(int32_t n) {
    if (n == total_per_member_) {
      --members_with_capacity_;
      total_tasks_ -= n;
      total_per_member_ = tasks_per_member(total_tasks_, members_with_capacity_);
    }
  }

  process_queue processes_by_load() {
    process_queue q{load_compare{}};
    process_order_.for_each([&](const std::string&, process_state* const& p) { q.add(p); });
    return q;
  }

  // The previous member (of `members`) of least load, on a process without
  // `t` when a task is given; nullopt when none fits.
  std::optional<member_ref> prev_member_with_least_load(const std::vector<member_ref>* members,
                                                        const std::optional<task>& t) {
    if (!members || members->empty()) return std::nullopt;
    member_ref candidate = (*members)[0];
    process_state& candidate_process = process(candidate.process_id);
    double candidate_process_load = candidate_process.load();
    double candidate_member_load = candidate_process.count_of(candidate.member_id);
    for (size_t i = 1; i < members->size(); ++i) {
      const member_ref& m = (*members)[i];
      process_state& p = process(m.process_id);
      const double process_load = p.load();
      if (process_load < candidate_process_load && (!t || !p.has_task(*t))) {
        const double member_load = p.count_of(m.member_id);
        if (member_load < candidate_member_load) {
          candidate_process_load = process_load;
          candidate_member_load = member_load;
          candidate = m;
        }
      }
    }
    // Kafka checks the first candidate's process here, whoever won.
    if (!t || !candidate_process.has_task(*t)) return candidate;
    return std::nullopt;
  }

  void assign_active(std::list<task>& tasks) {
    tasks.sort([](const task& a, const task& b) {
      if (a.partition != b.partition) return a.partition < b.partition;
      return consumer::java_string_compare(a.subtopology, b.subtopology) < 0;
    });
    // Sticky: to the member that had it, while under its share.
    for (auto it = tasks.begin(); it != tasks.end();) {
      auto prev = prev_active_.find(*it);
      if (prev != prev_active_.end() && under_active_quota(prev->second)) {
        const int32_t n = process(prev->second.process_id).add_task(prev->second.member_id, *it, true);
        took_active(n);
        took(n);
        it = tasks.erase(it);
      } else {
        ++it;
      }
    }
    // Then to a member that had it as standby.
    for (auto it = tasks.begin(); it != tasks.end();) {
      auto prevs = prev_standby_.find(*it);
      auto prev = prev_member_with_least_load(prevs == prev_standby_.end() ? nullptr : &prevs->second, std::nullopt);
      if (prev && under_active_quota(*prev)) {
        const int32_t n = process(prev->process_id).add_task(prev->member_id, *it, true);
        took_active(n);
        took(n);
        it = tasks.erase(it);
      } else {
        ++it;
      }
    }
    // The rest to the least loaded process.
    tasks.sort([](const task& a, const task& b) { return a < b; });
    auto queue = processes_by_load();
    for (const auto& t : tasks) {
      auto p = queue.poll();
      if (!p) throw assignor_failure{"No process available to assign active task " + to_string(t) + "."};
      const int32_t n = (*p)->add_task_to_least_loaded_member(t, true);
      if (n == -1) throw assignor_failure{"No member available to assign active task " + to_string(t) + "."};
      took_active(n);
      took(n);
      queue.add(*p);
    }
  }

  bool standby_to_least_loaded(process_queue& queue, const task& t) {
    auto p = queue.poll();
    if (!p) return false;
    bool found = false;
    if (!(*p)->has_task(t)) {
      const int32_t n = (*p)->add_task_to_least_loaded_member(t, false);
      if (n != -1) {
        found = true;
        took(n);
      }
    } else if (!queue.empty()) {
      found = standby_to_least_loaded(queue, t);
    }
    queue.add(*p);
    return found;
  }

  void assign_standby(std::list<task>& tasks) {
    struct to_assign {
      task t;
      int32_t remaining;
    };
    std::vector<to_assign> to_least_loaded;
    tasks.sort([](const task& a, const task& b) {
      if (a.partition != b.partition) return a.partition > b.partition;
      return consumer::java_string_compare(a.subtopology, b.subtopology) > 0;
    });
    for (const auto& t : tasks) {
      for (int32_t i = 0; i < standby_replicas_; ++i) {
        if (auto prev = prev_active_.find(t); prev != prev_active_.end()) {
          process_state& p = process(prev->second.process_id);
          if (!p.has_task(t) && under_quota(prev->second)) {
            took(p.add_task(prev->second.member_id, t, false));
            continue;
          }
        }
        auto prevs = prev_standby_.find(t);
        if (prevs != prev_standby_.end() && !prevs->second.empty()) {
          if (auto prev = prev_member_with_least_load(&prevs->second, t); prev && under_quota(*prev)) {
            took(process(prev->process_id).add_task(prev->member_id, t, false));
            continue;
          }
        }
        to_least_loaded.push_back({t, standby_replicas_ - i});
        break;
      }
    }
    std::stable_sort(to_least_loaded.begin(), to_least_loaded.end(), [](const to_assign& a, const to_assign& b) {
      if (int c = consumer::java_string_compare(a.t.subtopology, b.t.subtopology); c != 0) return c > 0;
      return a.t.partition > b.t.partition;
    });
    auto queue = processes_by_load();
    for (const auto& a : to_least_loaded)
      for (int32_t i = 0; i < a.remaining; ++i)
        if (!standby_to_least_loaded(queue, a.t)) break;  // Kafka warns: not enough capacity
  }

  std::map<std::string, member_tasks> result() {
    std::map<std::string, member_tasks> out;
    for (const auto& id : order_) out[id];
    for (const auto& [id, p] : processes_) {
      for (const auto& [member_id, tasks] : p->active())
        for (const auto& t : tasks) out[member_id].active[t.subtopology].insert(t.partition);
      for (const auto& [member_id, tasks] : p->standby())
        for (const auto& t : tasks) out[member_id].standby[t.subtopology].insert(t.partition);
    }
    return out;
  }

  const task_assignment_input& in_;
  int32_t standby_replicas_ = 0;
  int32_t total_active_tasks_ = 0, total_tasks_ = 0;
  int32_t members_with_active_capacity_ = 0, members_with_capacity_ = 0;
  int32_t active_per_member_ = 0, total_per_member_ = 0;
  std::map<std::string, std::unique_ptr<process_state>> processes_;
  java_hash_map<std::string, process_state*, java_string_key> process_order_;  // Kafka's processIdToState order
  std::map<task, member_ref> prev_active_;
  std::map<task, std::vector<member_ref>> prev_standby_;
  std::vector<std::string> order_;
};

}  // namespace

std::variant<std::map<std::string, member_tasks>, task_assignor_error> sticky_assign(const task_assignment_input& input) {
  try {
    sticky_assignor a(input);
    return a.run();
  } catch (assignor_failure& f) {
    return task_assignor_error{std::move(f.message)};
  }
}

}  // namespace hw::broker::group::streams
