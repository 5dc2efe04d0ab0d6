#pragma once
// What raft_core keeps for one role only, as Kafka keeps one EpochState per
// role: the leader's progress (each replica's durable end and last fetch,
// BeginQuorumEpoch acknowledgements, check-quorum, the end a majority holds,
// and the answers it serves to Fetch and FetchSnapshot); a follower's fetch
// (the request in flight, the backoff after an error, the snapshot it copies
// chunk by chunk); a round of requests to the voters (votes, pre-votes,
// EndQuorumEpoch); and the rule by which a voter grants a vote. Pure: no
// clock, no I/O, no sending. raft_core owns one of each, starts and clears
// them on its transitions, and sends what they decide.
//
// Owner/thread: raft_core, on the raft strand; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "controller/raft/raft_log.h"
#include "controller/raft/raft_messages.h"
#include "controller/raft/raft_types.h"

namespace hw::controller::raft {

enum class role { unattached, prospective, candidate, follower, leader, resigned };
const char* role_name(role r);

// The leader's view of one replica.
struct replica_view {
  offset end{-1};             // durable end; -1 unknown
  int64_t last_fetch_ms = -1;  // -1: not in this epoch
  // When it last held everything the leader had (Kafka's
  // lastCaughtUpTimestamp: a fetch from the leader's end then, or from the
  // end the leader had at the fetch before); -1 never.
  int64_t last_caught_up_ms = -1;
};

// Where a voter stands when it is asked for its vote.
struct voter_standing {
  role current = role::unattached;
  bool heard_from_leader = false;  // fetched from its leader in this term of following
  persistent_state state;
  epoch last_epoch{0};  // of its log
  offset end{0};        // of its log
  bool skip_log_check = false;  // unsafe_test_switches::grant_votes_without_log_check
};

// Whether that voter grants `candidate` its (pre-)vote for a candidate log
// ending at `end` in `last_epoch`. For a real vote the request's epoch is
// the voter's current epoch (a newer one was adopted first).
bool grants_vote(const voter_standing& me, node_id candidate, bool pre_vote, epoch last_epoch, offset end);

// The leader's term: started when it wins, cleared when it leaves.
class leader_progress {
 public:
  // A term led by `self` from `epoch_start` (its LeaderChange entry): every
  // voter's end unknown, nothing sent.
  void start(node_id self, const std::vector<node_id>& voters, offset epoch_start, int64_t now_ms);
  void clear() { replicas_.clear(); }
  // The voter set changed during the term (a KRaftVoters entry appended):
  // the new set's voters are counted from now on; a new voter starts with
  // what it fetched as an observer.
  void set_voters(const std::vector<node_id>& voters);
  // The directory a replica last fetched with (zero when it has not
  // fetched this term), and whether that replica (id and directory) is
  // caught up as Kafka's isReplicaCaughtUp asks: it has held the leader's
  // end once this term and fetched within window_ms.
  protocol::uuid directory_of(node_id id) const;
  bool caught_up(node_id id, const protocol::uuid& directory, int64_t now_ms, int64_t window_ms) const;
  offset epoch_start_offset() const { return epoch_start_; }

  // A Fetch in the leader's epoch (the caller checked it): fills `r` with
  // entries from `log`, the diverging epoch, or the snapshot to copy first.
  // A fetch whose log matches ours records the fetcher's durable end.
  void serve_fetch(node_id from, const fetch_request& m, const raft_log& log, size_t max_records, int64_t now_ms,
                   fetch_response& r);
  // A FetchSnapshot in the leader's epoch: fills `r` with a chunk of our
  // snapshot `bytes`, or the error that makes the follower start over.
  void serve_snapshot(node_id from, const fetch_snapshot_request& m, const raft_log& log,
                      const snapshot_payload& bytes, int64_t now_ms, fetch_snapshot_response& r);
  void begin_acked(node_id from);
  // Voters that still need a BeginQuorumEpoch (neither acknowledged nor
  // fetched this term); with only_due, those not asked within resend_ms.
  // They count as asked now.
  std::vector<node_id> take_begin_epochs_due(int64_t now_ms, bool only_due, int64_t resend_ms);
  // False once a majority of voters (the leader included) has not fetched
  // within check_quorum_ms, counted from the term's start.
  bool has_quorum(int64_t now_ms, int64_t check_quorum_ms) const;
  // The end a majority of voters hold durably (the leader at self_end), when
  // it passes the term's first entry: the high watermark may move there.
  std::optional<offset> committed_end(offset self_end) const;
  // The other voters, most caught-up first (EndQuorumEpoch's successors).
  std::vector<node_id> successors() const;
  // Every replica's view: the voters, and the observers that fetched within
  // the last 5 minutes (Kafka's OBSERVER_SESSION_TIMEOUT_MS).
  std::map<node_id, replica_view> views(offset self_end, int64_t now_ms) const;
  static constexpr int64_t k_observer_session_timeout_ms = 300'000;

 private:
  struct replica {
    replica_view view;
    protocol::uuid directory_id;
    offset leader_end_at_last_fetch{-1};
    int64_t previous_fetch_ms = -1;
    bool begin_acked = false;
    int64_t begin_sent_ms = -1;
  };
  offset end_of(node_id v, offset self_end) const;

  node_id self_ = no_node;
  std::vector<node_id> voters_;
  std::map<node_id, replica> replicas_;  // voters, and observers once they fetch
  offset epoch_start_{0};
  int64_t since_ms_ = 0;
};

// A follower's (or a leaderless observer's) fetching.
class fetch_progress {
 public:
  enum class chunk { restart, more, complete };

  // Nothing in flight, no snapshot being copied.
  void reset();
  // A new term of following: also not yet heard from the leader.
  void new_term();
  bool heard_from_leader() const { return heard_; }
  void heard(bool yes) { heard_ = yes; }
  // The leader said it is leaving (EndQuorumEpoch): answers it sent before
  // no longer count as hearing from it.
  bool leader_ending() const { return leader_ending_; }
  void leader_ends() {
    leader_ending_ = true;
    heard_ = false;
  }

  // None in flight, no snapshot being copied, no backoff.
  bool may_fetch(int64_t now_ms) const;
  void sent(uint64_t correlation, int64_t now_ms);
  // Whether a response answers the request in flight; it is no longer then.
  bool take_answer(uint64_t correlation);
  // A request in flight longer than timeout_ms is given up (true).
  bool expire(int64_t now_ms, int64_t timeout_ms);
  void back_off(int64_t until_ms) { backoff_until_ms_ = until_ms; }
  // The voter a leaderless observer asks next, round-robin.
  node_id next_probe(const std::vector<node_id>& voters) { return voters[probe_++ % voters.size()]; }

  // Copying the leader's snapshot.
  bool copying() const { return copy_.has_value(); }
  const snapshot_id& copied_snapshot() const { return *copy_; }
  int64_t copied_bytes() const { return static_cast<int64_t>(buffer_.size()); }
  void start_copy(snapshot_id s);
  // Takes a FetchSnapshot answer: more to ask, complete, or (an error, a
  // different snapshot, a chunk out of place) start over from a Fetch.
  chunk add_chunk(const fetch_snapshot_response& m);
  // The complete copy; the copy state is cleared.
  std::pair<snapshot_id, std::vector<uint8_t>> finish_copy();

 private:
  uint64_t in_flight_ = 0;  // correlation of the outstanding request, 0 none
  int64_t sent_ms_ = -1;
  int64_t backoff_until_ms_ = 0;
  bool heard_ = false;
  bool leader_ending_ = false;
  size_t probe_ = 0;
  std::optional<snapshot_id> copy_;
  std::vector<uint8_t> buffer_;
};

// One round of requests to the voters (votes or pre-votes; EndQuorumEpoch):
// who answered yes, who no, and when the round last went out.
class voter_round {
 public:
  void start(uint64_t correlation, std::vector<node_id> yes);
  uint64_t correlation() const { return correlation_; }
  bool answered(node_id v) const;
  void yes(node_id v) { yes_.push_back(v); }
  void no(node_id v) { no_.push_back(v); }
  size_t yes_count() const { return yes_.size(); }
  size_t no_count() const { return no_.size(); }
  int64_t sent_ms() const { return sent_ms_; }
  void sent(int64_t now_ms) { sent_ms_ = now_ms; }

 private:
  uint64_t correlation_ = 0;
  std::vector<node_id> yes_;
  std::vector<node_id> no_;
  int64_t sent_ms_ = -1;
};

}  // namespace hw::controller::raft
