#pragma once
// What hw_loadgen's commands share (bench/e2e/loadgen.cc lists them): the
// command line, the -X client settings, librdkafka clients made with them,
// the latency histogram, the readers' plan and totals, and the commands
// themselves, one file each kind (loadgen_clients.cc: librdkafka;
// loadgen_fetch.cc, loadgen_scram.cc: the protocol spoken directly through
// loadgen_wire.h).

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace hw::loadgen {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

// The -X key=value settings (a later one for the same key wins). Set by
// main before any client or thread starts; read-only after.
std::map<std::string, std::string>& client_settings();
// A -X setting, or the fallback.
std::string client_setting(const std::string& key, const std::string& fallback = "");

// Command-line flags as --name value pairs; -X key=value pairs go to
// client_settings().
class flags {
 public:
  flags(int argc, char** argv, int first) {
    for (int i = first; i < argc; i += 2) {
      std::string name = argv[i];
      if (i + 1 >= argc) throw std::runtime_error("bad argument: " + name);
      if (name == "-X") {
        const std::string setting = argv[i + 1];
        const auto eq = setting.find('=');
        if (eq == std::string::npos || eq == 0) throw std::runtime_error("-X wants key=value, not " + setting);
        client_settings()[setting.substr(0, eq)] = setting.substr(eq + 1);
        continue;
      }
      if (name.rfind("--", 0) != 0) throw std::runtime_error("bad argument: " + name);
      values_[name.substr(2)] = argv[i + 1];
    }
  }
  std::string str(const std::string& name, const std::string& fallback = "") const {
    auto it = values_.find(name);
    if (it != values_.end()) return it->second;
    if (fallback.empty()) throw std::runtime_error("missing --" + name);
    return fallback;
  }
  int64_t num(const std::string& name, int64_t fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : std::stoll(it->second);
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

 private:
  std::map<std::string, std::string> values_;
};

// Log-linear latency histogram in microseconds: 64 sub-buckets per power of
// two, so a reported percentile is within ~1.6% of the true value.
class histogram {
 public:
  void record(int64_t us) {
    if (us < 0) us = 0;
    ++counts_[index(static_cast<uint64_t>(us))];
    ++total_;
    max_ = std::max(max_, us);
  }
  void merge(const histogram& o) {
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    max_ = std::max(max_, o.max_);
  }
  int64_t percentile(double p) const {
    if (total_ == 0) return 0;
    auto rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(total_ - 1)) + 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(upper(i), max_);
    }
    return max_;
  }
  uint64_t total() const { return total_; }
  int64_t max() const { return max_; }

 private:
  static constexpr int sub_bits = 6;
  static size_t index(uint64_t v) {
    if (v < (1u << sub_bits)) return v;
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - sub_bits;
    return static_cast<size_t>((shift + 1) << sub_bits) + ((v >> shift) & ((1u << sub_bits) - 1));
  }
  static int64_t upper(size_t i) {
    if (i < (1u << sub_bits)) return static_cast<int64_t>(i);
    int shift = static_cast<int>(i >> sub_bits) - 1;
    uint64_t mantissa = (i & ((1u << sub_bits) - 1)) | (1u << sub_bits);
    return static_cast<int64_t>(((mantissa + 1) << shift) - 1);
  }
  std::array<uint64_t, 64 * 60> counts_{};
  uint64_t total_ = 0;
  int64_t max_ = 0;
};

// A librdkafka configuration: bootstrap, then the command's settings, then
// the -X ones; and a client made from it (errors throw).
rd_kafka_conf_t* make_conf(const std::string& bootstrap, const std::map<std::string, std::string>& extra);
rd_kafka_t* make_client(rd_kafka_type_t type, rd_kafka_conf_t* conf);

inline int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Payload of printable letters, as Kafka's ProducerPerformance uses.
std::string make_payload(size_t size);
// "SSL" for "ssl", as librdkafka takes security.protocol in either case.
std::string upper(std::string s);
// JSON string contents without the characters that would end or escape it.
std::string json_safe(std::string s);
// This process's user and system CPU so far.
double process_cpu_seconds();

// The topic's metadata as librdkafka has it (one topic, no error).
using metadata_ptr = std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)>;
metadata_ptr topic_metadata(rd_kafka_t* rk, const std::string& topic);

// What `consume` and `fetch` are asked: read `want` records of `topic`
// with `readers` clients, failing after `idle_limit` without a record.
struct read_plan {
  std::string topic;
  std::string bootstrap;
  uint64_t want;
  int readers;
  std::chrono::milliseconds idle_limit;

  read_plan(const flags& f, const char* readers_flag, int default_readers)
      : topic(f.str("topic")),
        bootstrap(f.str("bootstrap")),
        want(static_cast<uint64_t>(f.num("records", 0))),
        readers(static_cast<int>(f.num(readers_flag, default_readers))),
        idle_limit(f.num("timeout-ms", 30000)) {
    if (readers < 1) throw std::runtime_error(std::string("--") + readers_flag + " must be at least 1");
  }
};

// What one of several readers (`consume --consumers`, `fetch --readers`)
// read; touched only by its thread until joined.
struct reader_share {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t fetches = 0;         // fetch only
  clock_type::time_point last;  // when its last record arrived
  std::string error;
};

// Runs read(i, share i) on n threads and prints the readers' totals as one
// JSON object; the exit code.
template <typename Read>
int run_readers(int n, const char* count_name, bool with_fetches, Read read) {
  std::vector<reader_share> shares(n);
  const auto t0 = clock_type::now();
  for (auto& s : shares) s.last = t0;
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back([&, i] { read(i, shares[i]); });
  for (auto& t : threads) t.join();
  reader_share all;
  all.last = t0;
  for (const auto& s : shares) {
    all.records += s.records;
    all.bytes += s.bytes;
    all.fetches += s.fetches;
    all.last = std::max(all.last, s.last);
    if (all.error.empty()) all.error = s.error;
  }
  // Up to the last record: an idle wait at the end is not throughput.
  const double secs = std::chrono::duration<double>(all.last - t0).count();
  const std::string fetches = with_fetches ? ", \"fetches\": " + std::to_string(all.fetches) : "";
  std::printf(
      "{\"records\": %" PRIu64 ", \"bytes\": %" PRIu64 "%s, \"%s\": %d, \"seconds\": %.3f, "
      "\"records_per_s\": %.1f, \"mb_per_s\": %.2f, \"error\": \"%s\"}\n",
      all.records, all.bytes, fetches.c_str(), count_name, n, secs, static_cast<double>(all.records) / secs,
      static_cast<double>(all.bytes) / secs / 1e6, all.error.c_str());
  return all.error.empty() ? 0 : 1;
}

// The commands (each prints one JSON object; the exit code).
int cmd_probe(const flags& f);
int cmd_create_topic(const flags& f);
int cmd_produce(const flags& f);
int cmd_consume(const flags& f);
int cmd_fetch(const flags& f);
int cmd_e2e(const flags& f);
int cmd_txn(const flags& f);
int cmd_scram(const flags& f);

}  // namespace hw::loadgen
