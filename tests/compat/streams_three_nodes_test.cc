// A Kafka Streams 4.3.1 application (KIP-1071, group.protocol=streams) on
// three highwater nodes (kraft_nodes.h: combined broker+controller, ids
// 1-3), as the issue asks: exactly_once_v2, a repartition topic and a
// state store, two instances, one killed and started again mid-run, and
// its output counts exactly what went in. Then the stronger fault: the
// node that coordinates the streams group is killed (SIGKILL) and started
// again mid-run, and the counts must still be exact.
//
// The application is tests/compat/streams/CountApp.java (what
// tests/compat/python/streams_group_test.py runs on one node), compiled
// here with javac against the jars scripts/fetch-kafka-streams.sh caches,
// into the cache dir the python test uses (<cache>/countapp-<the first 16
// hex digits of the source's SHA-256>), once per change of the source. It
// re-keys each record of streams-words by its value (the repartition topic
// <app>-by-word-repartition), counts per word into a RocksDB store (its
// changelog <app>-word-counts-changelog) and writes each count to
// streams-counts, committing every 100 ms. The broker creates both internal
// topics itself (no automatic topic creation otherwise), with
// default.replication.factor=3.
//
// The cluster: the internal topics at replication factor 3 with min ISR 2,
// min.insync.replicas=2 for every topic, streams sessions of 6 s with
// heartbeats every second and no initial rebalance delay. Input (6
// partitions) and output at replication factor 3.
//
// The scenario, each step waiting on a condition under a deadline:
//  1. 6,000 records of 50 words (uneven weights) go in through an
//     idempotent librdkafka producer (acks=all); two instances start and
//     reach RUNNING; the internal topics are there with 6 partitions and 3
//     replicas each.
//  2. A trickle (300 records a second, an idempotent producer on a thread
//     of its own) keeps records coming until step 5.
//  3. Once the output counts some of the trickle, instance a is killed
//     (SIGKILL, most likely with a transaction open) and started again on
//     the same state directory (the same process id, hence the same
//     transactional id: the dead one's transaction is fenced). Its old
//     member's session ends after 6 s; the group must come back Stable with
//     two members owning the 12 tasks (2 subtopologies x 6 partitions) once
//     each, both instances RUNNING, the output moving on.
//  4. The group's coordinator (FindCoordinator, key type 0) is killed
//     (SIGKILL). The group must move to another node and the output move on
//     while the node is down (about two seconds of the trickle counted);
//     then the node starts again on its own ports (a real broker's
//     restart), every replica of the application's and the internal topics
//     comes back in sync, and the output moves on with both instances
//     RUNNING.
//  5. The trickle stops (every record acknowledged), 4,000 more records go
//     in, and a read_committed reader of the output (librdkafka, every
//     partition from the start, no group) must see, per word, the latest
//     count equal to how many times the word went in; every count a word
//     was given must be above the one before (exactly once: a count given
//     twice is a record counted twice) and none above its total. The group
//     is then Stable with two members owning the 12 tasks.
// About 30 s with an ASan build (the JVMs' start included).
//
// On a failure the test prints its timings, each instance's states, errors
// and the ends of its logs, the nodes' logs, and the cluster as it ended:
// each partition's leader, high watermark, last stable offset and the
// group's committed offset, the transactions left open, the transactions
// each node coordinates and the group as StreamsGroupDescribe shows it.
// HW_STREAMS_KEEP=<dir> keeps a failed run's whole application logs and
// the nodes' logs in <dir>.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "cluster_queries.h"
#include "kafka_socket.h"
#include "kafka_tool.h"
#include "kraft_nodes.h"
#include "protocol/messages/describe_producers.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/streams_group_describe.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

const std::string k_app_id = "hw-streams-three-nodes";
const std::string k_input = "streams-words";
const std::string k_output = "streams-counts";
const std::string k_repartition = k_app_id + "-by-word-repartition";
const std::string k_changelog = k_app_id + "-word-counts-changelog";
constexpr int k_partitions = 6;
constexpr int k_first = 6000;
constexpr int k_last = 4000;
constexpr int k_trickle_rate = 300;     // records a second
constexpr int k_trickle_max = 60000;    // a cap: 200 s of it
constexpr int k_trickle_first_key = 1000000;  // its keys apart from the batches'
// What must be counted while the coordinator's node is down: about two
// seconds of the trickle, so that the application is seen to work on with
// the group at its new coordinator, not merely to finish a transaction.
constexpr int k_progress_while_down = 2 * k_trickle_rate;

const std::vector<std::string> k_cluster_settings{
    "auto.create.topics.enable=false",
    "num.partitions=1",
    "default.replication.factor=3",
    "min.insync.replicas=2",
    "offsets.topic.replication.factor=3",
    "offsets.topic.num.partitions=3",
    "transaction.state.log.replication.factor=3",
    "transaction.state.log.min.isr=2",
    "transaction.state.log.num.partitions=3",
    "group.initial.rebalance.delay.ms=0",
    "group.streams.session.timeout.ms=6000",
    "group.streams.min.session.timeout.ms=6000",
    "group.streams.heartbeat.interval.ms=1000",
    "group.streams.min.heartbeat.interval.ms=1000",
    "group.streams.initial.rebalance.delay.ms=0",
};

// The application's log: a file of its own, INFO and above.
constexpr const char* k_app_log4j = R"(status = warn
name = countapp
shutdownHook = disable
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${sys:countapp.log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p [%t] %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
)";

const std::vector<std::string> k_words{
    "apple",   "amber",   "anchor",  "arrow",   "aspen",   "badger", "basil",    "beacon",  "birch",   "bramble",
    "cedar",   "cinder",  "clover",  "cobalt",  "comet",   "coral",  "cricket",  "dahlia",  "delta",   "dune",
    "ember",   "falcon",  "fern",    "fjord",   "flint",   "garnet", "glacier",  "harbor",  "hazel",   "heron",
    "indigo",  "iris",    "juniper", "kestrel", "lagoon",  "lantern", "linden",  "maple",   "marble",  "meadow",
    "nectar",  "oak",     "onyx",    "otter",   "pebble",  "quartz", "raven",    "saffron", "thistle", "willow"};

using counts = std::map<std::string, int64_t>;

// Words drawn with uneven weights, from a seed.
class word_source {
 public:
  explicit word_source(uint32_t seed) : rng_(seed) {
    const auto w = weights();
    pick_ = std::discrete_distribution<int>(w.begin(), w.end());
  }
  const std::string& next() { return k_words[static_cast<size_t>(pick_(rng_))]; }

 private:
  static std::vector<double> weights() {
    std::vector<double> w;
    for (size_t i = 0; i < k_words.size(); ++i) w.push_back(1.0 + static_cast<double>((i * 7) % 11));
    return w;
  }
  std::mt19937 rng_;
  std::discrete_distribution<int> pick_;
};

std::string key_of(int n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key-%07d", n);
  return buf;
}

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// Polls pred every `every` until it holds or the timeout passes.
bool poll_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = 50ms) {
  const auto deadline = clock_type::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

std::string file_tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  if (!in) return "(no " + path + ")\n";
  std::vector<std::string> all;
  std::string line;
  while (std::getline(in, line)) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

// A program on PATH (or the path given), resolved before a fork.
std::string which(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return name;
}

// --- The application --------------------------------------------------------

struct compiled_app {
  std::string classes;  // the directory of CountApp.class
  std::string libs;     // Kafka Streams 4.3.1 and its dependencies
  std::string error;
};

// What streams_group_test.py's compile_app does: the jars through
// scripts/fetch-kafka-streams.sh (it prints the cache dir last), CountApp
// compiled into <cache>/countapp-<16 hex digits of the source's SHA-256>
// unless already there, through a staging dir renamed into place (so that
// concurrent runs never see a half-written one).
compiled_app compile_app(const std::string& work) {
  compiled_app app;
  auto fetched =
      run_captured(work, "fetch-kafka-streams", shell_quote(HW_SOURCE_DIR "/scripts/fetch-kafka-streams.sh"), "", 480);
  const auto fetched_lines = lines_of(fetched.out);
  if (fetched.exit_code != 0 || fetched_lines.empty()) {
    app.error = "scripts/fetch-kafka-streams.sh failed:\n" + fetched.all();
    return app;
  }
  const std::string cache = fetched_lines.back();
  app.libs = cache + "/libs";
  const std::string source = HW_SOURCE_DIR "/tests/compat/streams/CountApp.java";
  auto hashed = run_captured(work, "sha256sum", "sha256sum " + shell_quote(source), "", 30);
  if (hashed.exit_code != 0 || hashed.out.size() < 16) {
    app.error = "sha256sum CountApp.java failed:\n" + hashed.all();
    return app;
  }
  app.classes = cache + "/countapp-" + hashed.out.substr(0, 16);
  if (std::filesystem::exists(app.classes + "/CountApp.class")) return app;

  std::string staging = cache + "/countapp.tmp.XXXXXX";
  if (!::mkdtemp(staging.data())) {
    app.error = "mkdtemp in " + cache + " failed";
    return app;
  }
  const char* javac = std::getenv("JAVAC");
  auto compiled = run_captured(work, "javac",
                               shell_quote(javac && *javac ? javac : "javac") + " -nowarn -d " + shell_quote(staging) +
                                   " -cp " + shell_quote(app.libs + "/*") + " " + shell_quote(source),
                               "", 180);
  std::error_code ec;
  if (compiled.exit_code != 0) {
    app.error = "javac CountApp.java failed:\n" + compiled.all();
  } else {
    std::filesystem::rename(staging, app.classes, ec);
    if (ec && !std::filesystem::exists(app.classes + "/CountApp.class"))  // not another run's
      app.error = "cannot move the compiled CountApp to " + app.classes + ": " + ec.message();
  }
  std::filesystem::remove_all(staging, ec);
  return app;
}

// One instance of CountApp in a JVM of its own, in `dir` (its properties,
// state/, tmp/, its log app.log, its stdout and stderr, appended to by each
// start). Its stdout's STATE, ERROR and CLOSED lines are read as they come.
// The JVM dies with the test (PR_SET_PDEATHSIG) and is killed when this is
// destroyed.
class count_app {
 public:
  count_app(std::string name, std::string dir, const std::string& log4j, const compiled_app& app,
            const std::vector<std::pair<std::string, std::string>>& settings)
      : name_(std::move(name)), dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_ + "/tmp");
    const std::string config = dir_ + "/countapp.properties";
    {
      std::ofstream out(config);
      for (const auto& [k, v] : settings) out << k << "=" << v << "\n";
      out << "state.dir=" << dir_ << "/state\n";
    }
    const char* java = std::getenv("JAVA");
    // Short-lived JVMs on few cores: C1 only and the serial collector.
    // RocksDB unpacks its native library into java.io.tmpdir: the
    // instance's own, so that a killed JVM leaves nothing in /tmp.
    argv_ = {which(java && *java ? java : "java"),
             "-Xmx384m",
             "-XX:TieredStopAtLevel=1",
             "-XX:+UseSerialGC",
             "-Djava.awt.headless=true",
             "-Djava.io.tmpdir=" + dir_ + "/tmp",
             "-Dlog4j2.configurationFile=" + log4j,
             "-Dcountapp.log=" + log_path(),
             "-cp",
             app.classes + ":" + app.libs + "/*",
             "CountApp",
             config};
  }
  count_app(const count_app&) = delete;
  count_app& operator=(const count_app&) = delete;
  ~count_app() { kill(); }

  const std::string& name() const { return name_; }
  std::string log_path() const { return dir_ + "/app.log"; }
  std::string stdout_path() const { return dir_ + "/stdout.log"; }
  std::string stderr_path() const { return dir_ + "/stderr.log"; }

  // Starts the JVM (again, after kill(): the same directory, so the same
  // state and process id); "" or what failed.
  std::string start() {
    kill();
    states_.clear();
    errors_.clear();
    closed_.clear();
    exit_code_.reset();
    std::error_code ec;
    const auto size = std::filesystem::file_size(stdout_path(), ec);
    offset_ = ec ? 0 : static_cast<size_t>(size);
    ++runs_;
    // Everything the child needs, made before the fork.
    std::vector<char*> argv;
    for (auto& a : argv_) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = stdout_path(), err = stderr_path();
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int in_fd = ::open("/dev/null", O_RDONLY);
      const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (in_fd < 0 || out_fd < 0 || err_fd < 0) ::_exit(126);
      ::dup2(in_fd, 0);
      ::dup2(out_fd, 1);
      ::dup2(err_fd, 2);
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    pid_ = pid;
    return "";
  }

  // SIGKILL: no close, no leave, a transaction possibly open.
  void kill() {
    if (pid_ <= 0 || exit_code_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

  bool alive() {
    if (pid_ <= 0 || exit_code_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_)
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    return !exit_code_;
  }

  // Reads the lines the current run printed since the last call.
  void refresh() {
    std::ifstream in(stdout_path(), std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto end = rest.rfind('\n');
    if (end == std::string::npos) return;
    offset_ += end + 1;
    for (const auto& line : lines_of(rest.substr(0, end + 1))) {
      const auto words = words_of(line);
      if (words.empty()) continue;
      if (words[0] == "STATE" && words.size() >= 2) states_.push_back(words[1]);
      else if (words[0] == "ERROR") errors_.push_back(line);
      else if (words[0] == "CLOSED") closed_ = line;
    }
  }
  std::string state() const { return states_.empty() ? "" : states_.back(); }
  bool running() { return state() == "RUNNING"; }
  // An ERROR line, state (PENDING_)ERROR, or its JVM gone.
  bool failed() {
    refresh();
    return !errors_.empty() || state() == "ERROR" || state() == "PENDING_ERROR" || !alive();
  }

  // What it went through, for a failure message.
  std::string report() {
    refresh();
    std::string out = "  " + name_ + " (start " + std::to_string(runs_) + "): states [";
    for (size_t i = 0; i < states_.size(); ++i) out += (i ? " " : "") + states_[i];
    out += "], errors [";
    for (const auto& e : errors_) out += "\n    " + e;
    out += "], exit code " + (exit_code_ ? std::to_string(*exit_code_) : std::string(alive() ? "(running)" : "?"));
    std::vector<std::string> warnings;
    std::ifstream in(log_path());
    std::string line;
    while (std::getline(in, line))
      if (line.find("] WARN ") != std::string::npos || line.find("] ERROR ") != std::string::npos)
        warnings.push_back(line);
    out += "\n  its log's last warnings and errors (" + log_path() + "):\n";
    for (size_t i = warnings.size() > 12 ? warnings.size() - 12 : 0; i < warnings.size(); ++i)
      out += "    " + warnings[i] + "\n";
    return out;
  }
  // Its logs' ends, for a failed test.
  std::string logs() const {
    return "--- " + name_ + ": the end of its log ---\n" + file_tail(log_path(), 60) + "--- " + name_ +
           ": its stdout ---\n" + file_tail(stdout_path(), 40) + "--- " + name_ + ": the end of its stderr ---\n" +
           file_tail(stderr_path(), 30);
  }

 private:
  std::string name_, dir_;
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  size_t offset_ = 0;
  int runs_ = 0;
  std::vector<std::string> states_, errors_;
  std::string closed_;
};

// --- librdkafka ---------------------------------------------------------------

rd_kafka_conf_t* conf_of(const std::map<std::string, std::string>& settings) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] : settings)
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK)
      ADD_FAILURE() << k << ": " << err;
  return conf;
}

// An idempotent producer (acks=all) of keyed records to the input topic,
// for one thread; flush() says whether every record sent was acknowledged.
class producer {
 public:
  explicit producer(const std::string& bootstrap) {
    char err[512];
    rd_kafka_conf_t* conf = conf_of(
        {{"bootstrap.servers", bootstrap}, {"enable.idempotence", "true"}, {"acks", "all"}, {"linger.ms", "5"}});
    rd_kafka_conf_set_dr_msg_cb(conf, &producer::delivered);
    rd_kafka_conf_set_opaque(conf, this);
    rk_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!rk_) failures_.push_back(std::string("rd_kafka_new: ") + err);
  }
  producer(const producer&) = delete;
  producer& operator=(const producer&) = delete;
  ~producer() {
    if (!rk_) return;
    rd_kafka_purge(rk_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_destroy(rk_);
  }

  void send(const std::string& key, const std::string& value) {
    if (!rk_) return;
    for (;;) {
      auto e = rd_kafka_producev(rk_, RD_KAFKA_V_TOPIC(k_input.c_str()), RD_KAFKA_V_KEY(key.data(), key.size()),
                                 RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                 RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(rk_, 10);
        continue;
      }
      if (e) failures_.push_back(std::string("produce: ") + rd_kafka_err2name(e));
      else ++sent_;
      return;
    }
  }
  void serve() {
    if (rk_) rd_kafka_poll(rk_, 0);
  }
  // Waits for every record sent; "" when each was acknowledged, else what went wrong.
  std::string flush(int timeout_ms) {
    if (rk_) {
      auto e = rd_kafka_flush(rk_, timeout_ms);
      if (e) failures_.push_back(std::string("flush: ") + rd_kafka_err2name(e));
    }
    if (failures_.empty() && acked_ == sent_) return "";
    std::set<std::string> distinct(failures_.begin(), failures_.end());
    std::string out = std::to_string(acked_) + " of " + std::to_string(sent_) + " records acknowledged; failures:";
    for (const auto& f : distinct) out += " " + f;
    return out;
  }

 private:
  static void delivered(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* self = static_cast<producer*>(opaque);
    if (m->err) self->failures_.push_back(std::string("delivery: ") + rd_kafka_err2name(m->err));
    else ++self->acked_;
  }

  rd_kafka_t* rk_ = nullptr;
  int64_t sent_ = 0, acked_ = 0;
  std::vector<std::string> failures_;
};

// Records written by a thread of its own at a steady pace until stopped
// (or `max` of them): they are still coming in when an instance and the
// coordinator are killed. stop() waits for every one to be acknowledged.
class trickle {
 public:
  trickle(std::string bootstrap, uint32_t seed, int per_second, int max)
      : bootstrap_(std::move(bootstrap)), seed_(seed), per_second_(per_second), max_(max) {
    thread_ = std::thread([this] { run(); });
  }
  trickle(const trickle&) = delete;
  trickle& operator=(const trickle&) = delete;
  ~trickle() { stop(); }

  int written() const { return written_.load(); }
  // Stops it; "" when every record written was acknowledged.
  std::string stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return result_;
  }
  // What it wrote, per word (after stop()).
  const counts& words() const { return words_; }

 private:
  void run() {
    producer p(bootstrap_);
    word_source source(seed_);
    const auto start = clock_type::now();
    int i = 0;
    std::unique_lock lock(mu_);
    while (!stop_ && i < max_) {
      // Paced against the clock: record i goes at i / per_second seconds.
      const int due = std::min(max_, static_cast<int>(seconds_since(start) * per_second_));
      for (; i < due; ++i) {
        const std::string& word = source.next();
        p.send(key_of(k_trickle_first_key + i), word);
        ++words_[word];
      }
      written_ = i;
      p.serve();
      cv_.wait_for(lock, 20ms, [&] { return stop_; });
    }
    lock.unlock();
    result_ = p.flush(30000);
  }

  std::string bootstrap_;
  uint32_t seed_;
  int per_second_, max_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<int> written_{0};
  counts words_;
  std::string result_;
  std::thread thread_;
};

// A read_committed consumer of every partition of the output from its
// start (no group): the latest count of each word, and every count each
// word was given, in order.
class output_reader {
 public:
  explicit output_reader(const std::string& bootstrap) {
    char err[512];
    rd_kafka_conf_t* conf = conf_of({{"bootstrap.servers", bootstrap},
                                     {"group.id", "streams-output-reader"},
                                     {"isolation.level", "read_committed"},
                                     {"enable.auto.commit", "false"},
                                     {"enable.partition.eof", "false"},
                                     {"auto.offset.reset", "earliest"}});
    rd_kafka_conf_set_error_cb(conf, [](rd_kafka_t*, int e, const char* reason, void* opaque) {
      static_cast<output_reader*>(opaque)->client_errors_.push_back(
          std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(e))) + ": " + reason);
    });
    rd_kafka_conf_set_opaque(conf, this);
    rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!rk_) {
      ADD_FAILURE() << "output reader: " << err;
      return;
    }
    rd_kafka_poll_set_consumer(rk_);
    rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(k_partitions);
    for (int32_t p = 0; p < k_partitions; ++p)
      rd_kafka_topic_partition_list_add(l, k_output.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(rk_, l);
    rd_kafka_topic_partition_list_destroy(l);
  }
  output_reader(const output_reader&) = delete;
  output_reader& operator=(const output_reader&) = delete;
  ~output_reader() {
    if (!rk_) return;
    rd_kafka_consumer_close(rk_);
    rd_kafka_destroy(rk_);
  }

  // Reads what has come (waiting up to 50 ms for the first record).
  void poll() {
    if (!rk_) return;
    for (int n = 0; n < 50000; ++n) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, n == 0 ? 50 : 0);
      if (!m) return;
      if (m->err) {
        if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) errors_.push_back(rd_kafka_message_errstr(m));
      } else {
        const std::string word(static_cast<const char*>(m->key), m->key_len);
        const char* value = static_cast<const char*>(m->payload);
        int64_t count = -1;
        if (std::from_chars(value, value + m->len, count).ec != std::errc()) count = -1;
        latest_[word] = count;
        history_[word].push_back(count);
        ++records_;
      }
      rd_kafka_message_destroy(m);
    }
  }
  const counts& latest() const { return latest_; }
  const std::map<std::string, std::vector<int64_t>>& history() const { return history_; }
  int64_t counted() const {
    int64_t n = 0;
    for (const auto& [w, c] : latest_) n += c;
    return n;
  }
  int64_t records() const { return records_; }
  const std::vector<std::string>& errors() const { return errors_; }
  const std::vector<std::string>& client_errors() const { return client_errors_; }

 private:
  rd_kafka_t* rk_ = nullptr;
  counts latest_;
  std::map<std::string, std::vector<int64_t>> history_;
  int64_t records_ = 0;
  std::vector<std::string> errors_;         // errors of consumed messages
  std::vector<std::string> client_errors_;  // the client's own (brokers down and so on)
};

// --- The test ---------------------------------------------------------------

class StreamsThreeNodesIT : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hw-streams3-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    work_ = tmpl;
    log4j_ = work_ + "/countapp-log4j2.properties";
    std::ofstream(log4j_) << k_app_log4j;
    setenv("CLUSTER_ID", "StreamsThreeNodes00000", 1);
    // javac (when the source changed) while the nodes start.
    auto compiling = std::async(std::launch::async, [this] { return compile_app(work_); });
    const bool up = cluster.start(false, k_cluster_settings);
    app_ = compiling.get();
    ASSERT_TRUE(up) << broker_logs();
    ASSERT_EQ(app_.error, "");
    // Every broker registered, so that replication factor 3 can be placed.
    ASSERT_TRUE(poll_until(
        [&] {
          auto md = metadata({});
          return md && md->brokers.size() == 3;
        },
        60s))
        << broker_logs();
  }

  void TearDown() override {
    unsetenv("CLUSTER_ID");
    if (HasFailure()) {
      std::string out = "\n=== timings ===\n" + timings_ + state_of_things();
      for (auto& app : apps_) out += app->report() + app->logs();
      out += broker_logs();
      std::fprintf(stderr, "%s\n", out.c_str());
    }
    apps_.clear();  // SIGKILLs the JVMs
    std::error_code ec;
    // HW_STREAMS_KEEP=<dir>: a failed run's application directories (their
    // whole logs) and the nodes' logs are copied there.
    if (const char* keep = std::getenv("HW_STREAMS_KEEP"); keep && *keep && HasFailure() && !work_.empty()) {
      const std::string to = std::string(keep) + "/" + std::filesystem::path(work_).filename().string();
      std::filesystem::copy(work_, to, std::filesystem::copy_options::recursive, ec);
      for (size_t i = 0; i < cluster.nodes.size(); ++i)
        std::ofstream(to + "/node-" + std::to_string(i + 1) + ".log") << cluster.nodes[i]->log();
      std::fprintf(stderr, "kept in %s\n", to.c_str());
    }
    if (!work_.empty()) std::filesystem::remove_all(work_, ec);
  }

  std::string bootstrap() const {
    std::string out;
    for (const auto& n : cluster.nodes) out += (out.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(n->port());
    return out;
  }
  std::string broker_logs() const {
    std::string out;
    for (size_t i = 0; i < cluster.nodes.size(); ++i)
      out += "--- node " + std::to_string(i + 1) + " log (end) ---\n" + tail(cluster.nodes[i]->log(), 12000);
    return out;
  }
  std::vector<uint16_t> running_ports() { return cluster.running_ports(); }
  std::optional<msg::metadata_response> metadata(const std::vector<std::string>& topics) {
    return cluster_metadata(running_ports(), topics);
  }
  // "" when each of the topics has `partitions` partitions, each with a
  // leader and three replicas in sync; else what is not so.
  std::string unwhole(const std::vector<std::string>& topics, int partitions) {
    return hw::testing::unwhole(running_ports(), topics, partitions);
  }
  // The group's coordinator as a running node names it; -1 when none answers.
  int coordinator() { return coordinator_of(running_ports(), 0, k_app_id); }

  // StreamsGroupDescribe of the group at its coordinator.
  std::optional<msg::streams_group_describe_response::described_group> describe() {
    const int id = coordinator();
    if (id < 1 || id > 3 || !cluster.node(id).running()) return std::nullopt;
    msg::streams_group_describe_request req;
    req.group_ids = {k_app_id};
    auto r = quiet_call<msg::streams_group_describe_response>(cluster.node(id).port(), 89, 0, req);
    if (!r || r->groups.size() != 1) return std::nullopt;
    return r->groups[0];
  }
  // "" when the group is Stable with two members whose active tasks are
  // each of the 12 tasks once; else how it is.
  std::string unsettled() {
    auto g = describe();
    if (!g) return "no StreamsGroupDescribe answer";
    std::string how = "error " + std::to_string(g->error_code) + ", state " + g->group_state + ", epoch " +
                      std::to_string(g->group_epoch) + "/" + std::to_string(g->assignment_epoch) + ", " +
                      std::to_string(g->members.size()) + " members:";
    std::multiset<std::pair<std::string, int32_t>> tasks;
    for (const auto& m : g->members) {
      int owned = 0;
      for (const auto& t : m.assignment.active_tasks)
        for (int32_t p : t.partitions) {
          tasks.insert({t.subtopology_id, p});
          ++owned;
        }
      how += " " + m.client_id + "@" + std::to_string(m.member_epoch) + " (" + std::to_string(owned) + " tasks)";
    }
    std::multiset<std::pair<std::string, int32_t>> all;
    for (const char* s : {"0", "1"})
      for (int32_t p = 0; p < k_partitions; ++p) all.insert({s, p});
    if (g->error_code == 0 && g->group_state == "Stable" && g->members.size() == 2 && tasks == all) return "";
    return how;
  }

  // For a failed test: each partition of the application's topics (its
  // leader, high watermark, last stable offset and the group's committed
  // offset), the producers with a transaction open where the last stable
  // offset lags, the transactions each node coordinates and the group as
  // StreamsGroupDescribe shows it.
  std::string state_of_things() {
    std::string out = "=== the cluster as the test ended ===\n";
    const std::vector<std::string> topics{k_input, k_repartition, k_changelog, k_output};
    auto md = metadata(topics);
    if (!md) return out + "no metadata\n";
    std::map<std::pair<std::string, int32_t>, int64_t> committed;
    const int coord = coordinator();
    if (coord >= 1 && coord <= 3 && cluster.node(coord).running()) {
      msg::offset_fetch_request req;
      auto& g = req.groups.emplace_back();
      g.group_id = k_app_id;
      g.topics.reset();
      if (auto r = quiet_call<msg::offset_fetch_response>(cluster.node(coord).port(), 9, 8, req); r && r->groups.size() == 1)
        for (const auto& t : r->groups[0].topics)
          for (const auto& p : t.partitions) committed[{t.name, p.partition_index}] = p.committed_offset;
    }
    auto offset = [&](uint16_t port, const std::string& topic, int32_t partition, int8_t isolation) -> int64_t {
      msg::list_offsets_request req;
      req.replica_id = -1;
      req.isolation_level = isolation;
      auto& t = req.topics.emplace_back();
      t.name = topic;
      auto& p = t.partitions.emplace_back();
      p.partition_index = partition;
      p.timestamp = -1;
      auto r = quiet_call<msg::list_offsets_response>(port, 2, k_list_offsets_version, req);
      if (!r || r->topics.size() != 1 || r->topics[0].partitions.size() != 1) return -100;
      const auto& a = r->topics[0].partitions[0];
      return a.error_code ? -1000 - a.error_code : a.offset;
    };
    for (const auto& t : md->topics) {
      for (const auto& p : t.partitions) {
        const std::string name = t.name.value_or("?");
        const bool led = p.leader_id >= 1 && p.leader_id <= 3 && cluster.node(p.leader_id).running();
        const uint16_t port = led ? cluster.node(p.leader_id).port() : 0;
        const int64_t hw = led ? offset(port, name, p.partition_index, 0) : -1;
        const int64_t lso = led ? offset(port, name, p.partition_index, 1) : -1;
        out += "  " + name + "-" + std::to_string(p.partition_index) + ": leader " + std::to_string(p.leader_id) +
               ", isr " + std::to_string(p.isr_nodes.size()) + ", high watermark " + std::to_string(hw) +
               ", last stable " + std::to_string(lso);
        if (auto it = committed.find({name, p.partition_index}); it != committed.end())
          out += ", committed " + std::to_string(it->second);
        out += "\n";
        if (!led || lso >= hw) continue;
        msg::describe_producers_request dp;
        dp.topics.emplace_back().name = name;
        dp.topics.back().partition_indexes = {p.partition_index};
        auto r = quiet_call<msg::describe_producers_response>(port, 61, 0, dp);
        if (!r) continue;
        for (const auto& rt : r->topics)
          for (const auto& rp : rt.partitions)
            for (const auto& ap : rp.active_producers)
              if (ap.current_txn_start_offset >= 0)
                out += "    open transaction of producer " + std::to_string(ap.producer_id) + " epoch " +
                       std::to_string(ap.producer_epoch) + " from offset " +
                       std::to_string(ap.current_txn_start_offset) + ", coordinator epoch " +
                       std::to_string(ap.coordinator_epoch) + ", last write at " + std::to_string(ap.last_timestamp) +
                       "\n";
      }
    }
    for (int id = 1; id <= 3; ++id) {
      if (!cluster.node(id).running()) continue;
      const uint16_t port = cluster.node(id).port();
      auto listed = quiet_call<msg::list_transactions_response>(port, 66, 0, msg::list_transactions_request{});
      if (!listed) continue;
      msg::describe_transactions_request dt;
      for (const auto& t : listed->transaction_states) dt.transactional_ids.push_back(t.transactional_id);
      if (dt.transactional_ids.empty()) continue;
      auto described = quiet_call<msg::describe_transactions_response>(port, 65, 0, dt);
      if (!described) continue;
      for (const auto& t : described->transaction_states) {
        out += "  node " + std::to_string(id) + " coordinates " + t.transactional_id + ": error " +
               std::to_string(t.error_code) + ", " + t.transaction_state + ", producer " +
               std::to_string(t.producer_id) + " epoch " + std::to_string(t.producer_epoch) + ", started at " +
               std::to_string(t.transaction_start_time_ms) + ", partitions";
        for (const auto& tp : t.topics)
          for (int32_t p : tp.partitions) out += " " + tp.topic + "-" + std::to_string(p);
        out += "\n";
      }
    }
    if (auto g = describe()) {
      out += "  group at node " + std::to_string(coord) + ": " + g->group_state + ", epoch " +
             std::to_string(g->group_epoch) + "/" + std::to_string(g->assignment_epoch) + "\n";
      for (const auto& m : g->members) {
        out += "    " + m.client_id + " " + m.member_id + " epoch " + std::to_string(m.member_epoch) + ", active";
        for (const auto& t : m.assignment.active_tasks)
          for (int32_t p : t.partitions) out += " " + t.subtopology_id + "_" + std::to_string(p);
        out += "; target";
        for (const auto& t : m.target_assignment.active_tasks)
          for (int32_t p : t.partitions) out += " " + t.subtopology_id + "_" + std::to_string(p);
        out += "\n";
      }
    }
    return out;
  }

  count_app& add_app(const std::string& name) {
    apps_.push_back(std::make_unique<count_app>(
        name, work_ + "/app-" + name, log4j_, app_,
        std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap()},
                                                         {"application.id", k_app_id},
                                                         {"client.id", k_app_id + "-" + name},
                                                         {"countapp.input.topic", k_input},
                                                         {"countapp.output.topic", k_output},
                                                         {"group.protocol", "streams"},
                                                         {"processing.guarantee", "exactly_once_v2"},
                                                         {"num.stream.threads", "1"},
                                                         {"commit.interval.ms", "100"}}));
    return *apps_.back();
  }
  bool any_app_failed() {
    bool failed = false;
    for (auto& a : apps_) failed = a->failed() || failed;
    return failed;
  }
  std::string app_reports() {
    std::string out;
    for (auto& a : apps_) out += a->report();
    return out;
  }
  bool all_running() {
    for (auto& a : apps_)
      if (!a->running()) return false;
    return true;
  }

  // Started again on the ports it had (a broker's restart keeps them), or
  // on a new client port if its old one was taken meanwhile.
  bool restart_on_its_ports(int id, uint16_t port) {
    auto& args = cluster.args[id - 1];
    const auto first = args;
    const std::string any = "listeners=PLAINTEXT://127.0.0.1:0,";
    for (auto& a : args)
      if (a.rfind(any, 0) == 0)
        a = "listeners=PLAINTEXT://127.0.0.1:" + std::to_string(port) + "," + a.substr(any.size());
    bool up = cluster.restart(id);
    args = first;
    if (!up && cluster.node(id).lost_port_race()) up = cluster.restart(id);
    return up;
  }

  void phase(const std::string& what) {
    char line[512];
    std::snprintf(line, sizeof line, "  %6.1f s  %s\n", seconds_since(start_), what.c_str());
    timings_ += line;
    std::printf("[streams 3 nodes] %s", line);
    std::fflush(stdout);
  }

  kraft_nodes cluster;
  std::string work_, log4j_;
  compiled_app app_;
  std::vector<std::unique_ptr<count_app>> apps_;
  clock_type::time_point start_ = clock_type::now();
  std::string timings_;
};

TEST_F(StreamsThreeNodesIT, CountsStayExactThroughAnInstanceAndTheCoordinatorKilled) {
  start_ = clock_type::now();
  phase("three nodes up");
  {
    raw_client c(cluster.node(1).port());
    for (const auto& topic : {k_input, k_output}) {
      auto created = c.create_topic(topic, k_partitions, 3);
      ASSERT_TRUE(created && created->topics.size() == 1) << topic;
      ASSERT_EQ(created->topics[0].error_code, 0) << topic << ": " << created->topics[0].error_message.value_or("");
    }
  }
  std::string how;
  ASSERT_TRUE(poll_until([&] { return (how = unwhole({k_input, k_output}, k_partitions)).empty(); }, 60s))
      << how << "\n" << broker_logs();

  counts expected;
  word_source words(1071);
  int next_key = 0;
  auto write_batch = [&](int n) {
    producer p(bootstrap());
    for (int i = 0; i < n; ++i) {
      const std::string& word = words.next();
      p.send(key_of(next_key++), word);
      ++expected[word];
    }
    return p.flush(60000);
  };
  ASSERT_EQ(write_batch(k_first), "") << broker_logs();
  phase(std::to_string(k_first) + " records in");

  output_reader output(bootstrap());
  count_app& a = add_app("a");
  count_app& b = add_app("b");
  ASSERT_EQ(a.start(), "");
  ASSERT_EQ(b.start(), "");
  // Each wait notes whether its condition held when it ended (an instance
  // may leave RUNNING again a moment later, which is no failure).
  bool reached = false;
  poll_until([&] { return any_app_failed() || (reached = all_running()); }, 90s, 100ms);
  ASSERT_FALSE(any_app_failed()) << "an instance failed before RUNNING\n" << app_reports();
  ASSERT_TRUE(reached) << "both instances RUNNING\n" << app_reports();
  phase("both instances RUNNING");

  // The internal topics, made by the broker: 6 partitions, replication factor 3.
  ASSERT_TRUE(poll_until([&] { return (how = unwhole({k_repartition, k_changelog}, k_partitions)).empty(); }, 30s))
      << "the internal topics: " << how;

  // Records keep coming; once some of them are counted, instance a is
  // killed, most likely with a transaction open, and started again on its
  // state directory.
  auto trickling = std::make_unique<trickle>(bootstrap(), 4242, k_trickle_rate, k_trickle_max);
  poll_until(
      [&] {
        output.poll();
        return any_app_failed() || output.counted() > k_first;
      },
      60s);
  ASSERT_FALSE(any_app_failed()) << app_reports();
  ASSERT_GT(output.counted(), k_first) << "the trickle's first counts (counted " << output.counted() << ")\n"
                                       << app_reports();
  a.kill();
  phase("instance a killed (" + std::to_string(trickling->written()) + " records of the trickle written, " +
        std::to_string(output.counted()) + " counted)");
  ASSERT_EQ(a.start(), "");

  // Its old member's session ends; the group comes back Stable, two members
  // owning each task once, and counting goes on.
  int64_t before = output.counted();
  reached = false;
  poll_until(
      [&] {
        output.poll();
        return any_app_failed() ||
               (reached = all_running() && output.counted() > before && (how = unsettled()).empty());
      },
      60s, 100ms);
  ASSERT_FALSE(any_app_failed()) << app_reports();
  ASSERT_TRUE(reached)
      << "after instance a's restart: group " << (how.empty() ? "settled" : how) << "; counted " << output.counted()
      << " (" << before
      << " at the restart)\n"
      << app_reports();
  phase("instance a back: both RUNNING, the group Stable with two members, " + std::to_string(output.counted()) +
        " counted");

  // The group's coordinator dies.
  int coord = -1;
  ASSERT_TRUE(poll_until([&] { return (coord = coordinator()) > 0; }, 30s)) << "no coordinator for " << k_app_id;
  ASSERT_TRUE(coord >= 1 && coord <= 3) << coord;
  const uint16_t coord_port = cluster.node(coord).port();
  before = output.counted();
  ASSERT_EQ(cluster.node(coord).stop(SIGKILL), -SIGKILL);
  phase("the group's coordinator, node " + std::to_string(coord) + ", killed (" + std::to_string(before) +
        " counted)");
  int moved = -1;
  reached = false;
  poll_until(
      [&] {
        output.poll();
        if (any_app_failed()) return true;
        moved = coordinator();
        return reached = moved > 0 && moved != coord && output.counted() >= before + k_progress_while_down;
      },
      60s, 100ms);
  ASSERT_FALSE(any_app_failed()) << app_reports();
  ASSERT_TRUE(reached)
      << "with node " << coord << " down: coordinator " << moved << ", counted " << output.counted() << " ("
      << before << " at the kill)\n"
      << app_reports() << broker_logs();
  const std::vector<std::string> app_topics{k_input, k_output, k_repartition, k_changelog};
  const std::vector<std::string> internal_topics{"__consumer_offsets", "__transaction_state"};
  auto out_of_sync = [&] {
    const std::string lacking = unwhole(app_topics, k_partitions) + unwhole(internal_topics, 3);
    return std::to_string(std::count(lacking.begin(), lacking.end(), ';'));
  };
  phase("the group moved to node " + std::to_string(moved) + ", counting went on (" +
        std::to_string(output.counted()) + " counted; " + out_of_sync() + " partitions not whole)");
  ASSERT_TRUE(restart_on_its_ports(coord, coord_port)) << "node " << coord << " did not start again\n"
                                                       << broker_logs();
  const uint16_t new_port = cluster.node(coord).port();
  phase("node " + std::to_string(coord) + " started again, client port " + std::to_string(new_port) +
        (new_port == coord_port ? " (its own)" : " (a new one)") + ", " + out_of_sync() + " partitions not whole");
  // It catches up (every replica of the application's topics and of the
  // internal ones in sync again) while counting goes on.
  before = output.counted();
  reached = false;
  poll_until(
      [&] {
        output.poll();
        return any_app_failed() ||
               (reached = all_running() && output.counted() > before &&
                          (how = unwhole(app_topics, k_partitions) + unwhole(internal_topics, 3)).empty());
      },
      60s, 100ms);
  ASSERT_FALSE(any_app_failed()) << app_reports();
  ASSERT_TRUE(reached)
      << "after node " << coord << "'s restart: counted " << output.counted() << " (" << before
      << " then); not in sync: " << how << "\n"
      << app_reports() << broker_logs();
  phase("node " + std::to_string(coord) + " back in sync, counting goes on (" + std::to_string(output.counted()) +
        " counted)");

  const int trickled = trickling->written();
  ASSERT_EQ(trickling->stop(), "") << "the trickle" << broker_logs();
  for (const auto& [w, n] : trickling->words()) expected[w] += n;
  trickling.reset();
  ASSERT_EQ(write_batch(k_last), "") << broker_logs();
  int64_t total = 0;
  for (const auto& [w, n] : expected) total += n;
  phase("the trickle stopped at " + std::to_string(trickled) + " records, " + std::to_string(k_last) +
        " more in: " + std::to_string(total) + " in all");

  // The exact counts, read_committed.
  poll_until(
      [&] {
        output.poll();
        return any_app_failed() || output.latest() == expected;
      },
      90s);
  ASSERT_FALSE(any_app_failed()) << app_reports();
  std::string wrong;
  for (const auto& [w, n] : expected) {
    auto it = output.latest().find(w);
    const int64_t got = it == output.latest().end() ? 0 : it->second;
    if (got != n) wrong += " " + w + ":" + std::to_string(got) + "/" + std::to_string(n);
  }
  for (const auto& [w, n] : output.latest())
    if (!expected.count(w)) wrong += " " + w + "(not in the input):" + std::to_string(n);
  EXPECT_EQ(output.latest(), expected) << "the latest count of every word (counted " << output.counted() << " of "
                                       << total << "; word:counted/expected" << wrong << ")\n"
                                       << app_reports();
  phase("the exact counts (" + std::to_string(output.records()) + " committed output records)");

  // Exactly once: each committed count of a word above the one before,
  // none above the word's total.
  std::string unruly;
  for (const auto& [w, h] : output.history()) {
    bool bad = false;
    for (size_t i = 0; i < h.size(); ++i)
      bad = bad || h[i] < 1 || (i > 0 && h[i] <= h[i - 1]) || h[i] > (expected.count(w) ? expected.at(w) : 0);
    if (!bad) continue;
    unruly += "\n  " + w + " (of " + std::to_string(expected.count(w) ? expected.at(w) : 0) + "):";
    for (size_t i = h.size() > 40 ? h.size() - 40 : 0; i < h.size(); ++i) unruly += " " + std::to_string(h[i]);
  }
  EXPECT_EQ(unruly, "") << "words whose committed counts did not rise strictly up to their total";
  EXPECT_TRUE(output.errors().empty()) << "the output reader's errors: " << output.errors().front();

  // The group as it ends: Stable, both instances, each task once.
  poll_until([&] { return (how = unsettled()).empty(); }, 30s, 100ms);
  EXPECT_EQ(how, "") << "the group at the end";
  phase("done; the group Stable with two members at node " + std::to_string(coordinator()) + "; the reader saw " +
        std::to_string(output.client_errors().size()) + " client errors (nodes down)");
}

}  // namespace
}  // namespace hw::testing
