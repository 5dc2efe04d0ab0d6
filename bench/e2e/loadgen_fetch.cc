// hw_loadgen fetch: readers that ask the broker for records with Fetch
// requests of their own and do not decode them (loadgen.cc lists its flags).
#include <atomic>

#include "bench/e2e/loadgen.h"
#include "bench/e2e/loadgen_wire.h"
#include "protocol/messages/fetch.h"

namespace hw::loadgen {
namespace {


uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
uint64_t be64(const uint8_t* p) { return (uint64_t(be32(p)) << 32) | be32(p + 4); }

// Walks the whole batches of a partition's records (a batch cut at the
// end comes whole in the next fetch) by their headers alone: adds their
// bytes to `bytes`, moves `next` past the last, returns their records.
uint64_t count_whole_batches(const hw::protocol::records_view& records, uint64_t& bytes, int64_t& next) {
  constexpr size_t header = 61;  // base offset .. record count
  const uint8_t* b = records.data;
  size_t left = records.size;
  uint64_t count = 0;
  while (left >= header) {
    const size_t length = 12 + be32(b + 8);
    if (length > left) break;
    count += be32(b + 57);
    bytes += length;
    next = static_cast<int64_t>(be64(b) + be32(b + 23) + 1);  // base offset + last offset delta + 1
    b += length;
    left -= length;
  }
  return count;
}

// One reader: its partitions, by the broker that leads them, fetched from
// offset 0 one Fetch at a time per broker (v12, no session: every request
// names every partition), as a consumer's fetch loop does, until the
// readers together have seen `want` records. Only the batch headers are
// read: the offsets to go on from and the record counts; the bytes counted
// are whole batches, headers included.
void run_fetch_reader(const std::string& topic, const std::map<std::string, std::vector<int32_t>>& by_leader,
                      const tls_settings& tls, const plain_login& login, uint64_t want, std::atomic<uint64_t>& seen,
                      std::chrono::milliseconds idle_limit, reader_share& share) {
  constexpr int16_t version = 12;
  struct source {
    std::unique_ptr<wire_connection> conn;
    std::map<int32_t, int64_t> next;  // partition -> offset to fetch
  };
  try {
    std::vector<source> sources;
    for (const auto& [leader, partitions] : by_leader) {
      source& src = sources.emplace_back();
      src.conn = std::make_unique<wire_connection>(leader, tls, "hw-loadgen-fetch");
      login.run(*src.conn);
      for (int32_t p : partitions) src.next[p] = 0;
    }
    hw::protocol::msg::fetch_request request;
    request.max_wait_ms = 100;
    request.min_bytes = 1;
    request.max_bytes = 50 << 20;
    auto& t = request.topics.emplace_back();
    t.topic = topic;
    auto progress_at = clock_type::now();
    while (!sources.empty() && seen.load(std::memory_order_relaxed) < want) {
      uint64_t got = 0;
      for (source& src : sources) {
        t.partitions.clear();
        for (const auto& [p, offset] : src.next) {
          auto& fp = t.partitions.emplace_back();
          fp.partition = p;
          fp.fetch_offset = offset;
          fp.partition_max_bytes = 1 << 20;
        }
        // The records are views into the connection's buffer, read before the next call.
        const auto answer = src.conn->round_trip<hw::protocol::msg::fetch_response>(request, version);
        ++share.fetches;
        if (answer.error_code != 0) throw std::runtime_error("Fetch error " + std::to_string(answer.error_code));
        for (const auto& tr : answer.responses) {
          for (const auto& pr : tr.partitions) {
            if (pr.error_code != 0)
              throw std::runtime_error("Fetch error " + std::to_string(pr.error_code) + " for partition " +
                                       std::to_string(pr.partition_index));
            got += count_whole_batches(pr.records, share.bytes, src.next[pr.partition_index]);
          }
        }
      }
      const auto now = clock_type::now();
      if (got > 0) {
        share.records += got;
        share.last = progress_at = now;
        seen.fetch_add(got, std::memory_order_relaxed);
      } else if (now - progress_at > idle_limit) {
        share.error = "no record for " + std::to_string(idle_limit.count()) + " ms";
        return;
      }
    }
  } catch (const std::exception& e) {
    share.error = e.what();
  }
}

}  // namespace

// --readers N threads, each with its own connection to every leader it
// needs and the partitions p where p % N is its index.
int cmd_fetch(const flags& f) {
  const read_plan plan(f, "readers", 4);
  const int readers = plan.readers;
  std::vector<std::map<std::string, std::vector<int32_t>>> shares(readers);  // leader -> partitions
  {
    rd_kafka_t* rk = make_client(RD_KAFKA_PRODUCER, make_conf(plan.bootstrap, {}));
    metadata_ptr md = topic_metadata(rk, plan.topic);
    std::map<int32_t, std::string> brokers;
    for (int i = 0; i < md->broker_cnt; ++i)
      brokers[md->brokers[i].id] = std::string(md->brokers[i].host) + ":" + std::to_string(md->brokers[i].port);
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      const auto& p = md->topics[0].partitions[i];
      if (!brokers.count(p.leader)) throw std::runtime_error("fetch: a partition without a known leader");
      shares[p.id % readers][brokers[p.leader]].push_back(p.id);
    }
    md.reset();
    rd_kafka_destroy(rk);
  }
  const tls_settings tls = tls_settings::from_client_settings();
  const plain_login login = plain_login::from_client_settings();
  std::atomic<uint64_t> seen{0};
  return run_readers(readers, "readers", true, [&](int i, reader_share& share) {
    run_fetch_reader(plan.topic, shares[i], tls, login, plan.want, seen, plan.idle_limit, share);
  });
}

}  // namespace hw::loadgen
