#include "final_read.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "protocol/messages/fetch.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record.h"
#include "protocol/records/record_batch.h"
#include "quiet_request.h"

namespace hw::chaos {

namespace {

namespace msg = protocol::msg;
using namespace std::chrono_literals;

constexpr int16_t k_fetch_version = 12;  // names topics (v13+ use ids)
constexpr int16_t k_list_offsets_version = 7;
constexpr int32_t k_no_leader = -1;

struct leader {
  int32_t node = k_no_leader;  // node.id
  int32_t epoch = -1;
};

// The partition's leader as the running nodes' metadata has it: the view
// with the highest leader epoch.
leader leader_of(chaos_cluster& cluster, const std::string& topic, int partition) {
  leader best;
  for (int i = 0; i < chaos_cluster::k_nodes; ++i) {
    auto parts = cluster.partitions(i, topic);
    if (!parts || static_cast<int>(parts->size()) <= partition) continue;
    const auto& p = (*parts)[partition];
    if (p.leader > 0 && p.leader <= chaos_cluster::k_nodes && p.leader_epoch > best.epoch)
      best = {p.leader, p.leader_epoch};
  }
  return best;
}

std::optional<int64_t> log_start(chaos_cluster& cluster, const std::string& topic, int partition, const leader& l) {
  msg::list_offsets_request req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.name = topic;
  auto& p = t.partitions.emplace_back();
  p.partition_index = partition;
  p.current_leader_epoch = l.epoch;
  p.timestamp = -2;  // earliest
  auto a = ask<msg::list_offsets_response>(cluster.reach(l.node - 1), 2, k_list_offsets_version, req);
  if (!a || a->body.topics.size() != 1 || a->body.topics[0].partitions.size() != 1) return std::nullopt;
  const auto& r = a->body.topics[0].partitions[0];
  if (r.error_code != 0) return std::nullopt;
  return r.offset;
}

// One partition's reading, a Fetch at a time, as a read_committed consumer
// fetches (up to the last stable offset, so it waits until every
// transaction is decided), keeping every record: those of aborted
// transactions are marked, from the markers, not dropped.
class partition_reader {
 public:
  partition_reader(chaos_cluster& cluster, const std::string& topic, int partition, history& h,
                   final_read_result& out)
      : cluster_(cluster), topic_(topic), partition_(partition), history_(h), out_(out) {}

  // One step; true once the partition is read up to its high watermark.
  bool step() {
    if (done()) return true;
    const leader l = leader_of(cluster_, topic_, partition_);
    if (l.node == k_no_leader) return false;
    if (next_ < 0) {
      auto start = log_start(cluster_, topic_, partition_, l);
      if (!start) return false;
      start_ = next_ = *start;
    }
    msg::fetch_request req;
    req.replica_id = -1;
    req.max_wait_ms = 0;
    req.min_bytes = 1;
    req.max_bytes = 4 << 20;
    req.session_id = 0;
    req.session_epoch = -1;  // no fetch session
    req.isolation_level = 1;  // READ_COMMITTED
    auto& t = req.topics.emplace_back();
    t.topic = topic_;
    auto& p = t.partitions.emplace_back();
    p.partition = partition_;
    p.current_leader_epoch = l.epoch;
    p.fetch_offset = next_;
    p.partition_max_bytes = 2 << 20;
    auto a = ask<msg::fetch_response>(cluster_.reach(l.node - 1), 1, k_fetch_version, req, 10s);
    if (!a || a->body.error_code != 0 || a->body.responses.size() != 1 ||
        a->body.responses[0].partitions.size() != 1)
      return false;
    const auto& r = a->body.responses[0].partitions[0];
    if (r.error_code != 0) return false;
    high_watermark_ = r.high_watermark;
    take(r.records.bytes(), l.epoch);
    return done();
  }

  bool done() const { return high_watermark_ >= 0 && next_ >= high_watermark_; }

  // Into the history, each with what its producer's markers decided
  // (undecided when the read stopped before a marker).
  void record_all() {
    for (const auto& r : read_) history_.final_read(partition_, r.offset, r.value, r.origin, r.status);
    read_.clear();
  }

  std::string summary() const {
    return "partition " + std::to_string(partition_) + ": log start " + std::to_string(start_) +
           ", high watermark " + std::to_string(high_watermark_) + ", read up to " + std::to_string(next_) + "\n";
  }

 private:
  // The records of a Fetch answer at or above the next offset.
  void take(protocol::bytes_view records, int32_t leader_epoch) {
    protocol::record_batch_walker walker(records);
    protocol::record_batch_view b;
    while (walker.next(b)) {
      if (b.last_offset() < next_) continue;
      const std::string where = "partition " + std::to_string(partition_) + " batch at offset " +
                                std::to_string(b.base_offset()) + " (read from leader epoch " +
                                std::to_string(leader_epoch) + ")";
      // A corrupt batch is a problem of the run; the read goes on after it.
      if (b.validate() != protocol::batch_error::none) corrupt(where + " fails its CRC or header check");
      else if (b.is_control()) read_marker(b, where);
      else read_records(b, where);
      next_ = std::max(next_ + 1, b.next_offset());
    }
  }

  void read_records(const protocol::record_batch_view& b, const std::string& where) {
    protocol::record_iterator it;
    if (b.open_records(scratch_, 64 << 20, it) != protocol::batch_error::none) {
      corrupt(where + ": its records do not decode");
      return;
    }
    protocol::record_view rec;
    while (it.next(rec)) {
      if (rec.offset < next_) continue;
      batch_origin origin{b.producer_id(), b.producer_epoch(),
                          b.base_sequence() < 0 ? -1 : b.base_sequence() + rec.offset_delta,
                          b.partition_leader_epoch()};
      const std::string value = rec.value ? std::string(reinterpret_cast<const char*>(rec.value->data()),
                                                        rec.value->size())
                                          : std::string();
      if (b.is_transactional()) open_[b.producer_id()].push_back(read_.size());
      read_.push_back({rec.offset, value, origin, b.is_transactional() ? txn_status::open : txn_status::none});
      ++out_.records;
    }
    if (it.error() != protocol::batch_error::none) corrupt(where + ": a record does not decode");
  }

  // A COMMIT or ABORT marker decides its producer's open records.
  void read_marker(const protocol::record_batch_view& b, const std::string& where) {
    protocol::record_iterator it;
    if (b.open_records(scratch_, 1 << 20, it) != protocol::batch_error::none) {
      corrupt(where + ": its control record does not decode");
      return;
    }
    protocol::record_view rec;
    if (!it.next(rec)) return;  // cleaned away: decides nothing
    auto marker = protocol::parse_end_txn_marker(rec);
    if (!marker) {
      corrupt(where + ": its control record is not a COMMIT or ABORT marker");
      return;
    }
    auto open = open_.find(b.producer_id());
    if (open == open_.end()) return;
    const txn_status decided =
        marker->type == protocol::control_record_type::commit ? txn_status::committed : txn_status::aborted;
    for (size_t i : open->second) read_[i].status = decided;
    open_.erase(open);
  }

  void corrupt(const std::string& what) { out_.corrupt.push_back(what); }

  chaos_cluster& cluster_;
  const std::string topic_;
  const int partition_;
  history& history_;
  final_read_result& out_;
  std::vector<uint8_t> scratch_;
  struct read_record {
    int64_t offset;
    std::string value;
    batch_origin origin;
    txn_status status;
  };
  std::vector<read_record> read_;                   // in offset order, kept until record_all()
  std::map<int64_t, std::vector<size_t>> open_;     // producer id → its undecided records in read_
  int64_t start_ = -1;
  int64_t next_ = -1;
  int64_t high_watermark_ = -1;
};

}  // namespace

final_read_result read_everything(chaos_cluster& cluster, const std::string& topic, int partitions, history& h,
                                  std::chrono::milliseconds timeout) {
  final_read_result out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  out.complete = true;
  for (int p = 0; p < partitions; ++p) {
    partition_reader reader(cluster, topic, p, h, out);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    const bool read = testing::wait_until([&] { return reader.step(); }, std::max(left, 0ms));
    reader.record_all();
    out.complete = out.complete && read;
    out.detail += reader.summary();
  }
  return out;
}

}  // namespace hw::chaos
