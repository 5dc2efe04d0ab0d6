// Java producer and consumer properties (what --command-property and
// --command-config give Kafka's console tools) as librdkafka properties,
// with Kafka's own validation messages; bootstrap.servers as Kafka checks
// it; the log lines and exception names the tools print.

#include <netdb.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "tools/commands/command.h"
#include "tools/commands/console.h"

#include "tools/client/client_security.h"

namespace hw::tools::console {
namespace {

constexpr const char* k_config_exception = "org.apache.kafka.common.config.ConfigException: ";

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return s.substr(b, e - b);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// Validates and maps one property at a time; the first failure wins.
class mapper {
 public:
  mapper(const properties& java, client_settings* out) : java_(java), out_(out) {}

  bool has(const char* key) const { return java_.count(key) > 0; }
  std::optional<std::string> raw(const char* key) const {
    auto it = java_.find(key);
    if (it == java_.end()) return std::nullopt;
    return it->second;
  }

  // ConfigDef's "Invalid value X for configuration K: why".
  bool invalid(const char* key, const std::string& value, const std::string& why) {
    error_ = std::string(k_config_exception) + "Invalid value " + value + " for configuration " + key + ": " + why;
    return false;
  }
  bool config_error(const std::string& message) {
    error_ = k_config_exception + message;
    return false;
  }
  bool refuse(const std::string& message) {
    error_ = message;
    return false;
  }

  // An INT or LONG property, at least `min`, into *value when present.
  bool number(const char* key, bool is_long, int64_t min, int64_t* value) {
    auto v = raw(key);
    if (!v) return true;
    const std::string t = trimmed(*v);
    int64_t n = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    const bool fits = is_long || (n >= INT32_MIN && n <= INT32_MAX);
    if (t.empty() || ec != std::errc{} || end != t.data() + t.size() || !fits)
      return invalid(key, *v, is_long ? "Not a number of type LONG" : "Not a number of type INT");
    if (n < min) return invalid(key, *v, "Value must be at least " + std::to_string(min));
    *value = n;
    return true;
  }

  bool boolean(const char* key, std::optional<bool>* value) {
    auto v = raw(key);
    if (!v) return true;
    const std::string t = trimmed(*v);
    if (iequals(t, "true"))
      *value = true;
    else if (iequals(t, "false"))
      *value = false;
    else
      return invalid(key, *v, "Expected value to be either true or false");
    return true;
  }

  bool one_of(const char* key, const std::vector<const char*>& allowed, std::optional<std::string>* value) {
    auto v = raw(key);
    if (!v) return true;
    const std::string t = trimmed(*v);
    std::string list;
    for (auto a : allowed) {
      if (t == a) {
        *value = t;
        return true;
      }
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    return invalid(key, *v, "String must be one of: " + list);
  }

  void set(const std::string& key, const std::string& value) { out_->rdkafka.emplace_back(key, value); }

  // A numeric property passed to librdkafka under `rd_key`, raised to
  // librdkafka's minimum (a Java 0 or -1 meaning "none" or "the OS's")
  // and refused above its maximum.
  bool pass_number(const char* key, bool is_long, int64_t java_min, const char* rd_key, int64_t rd_min,
                   int64_t rd_max) {
    int64_t n = 0;
    if (!has(key)) return true;
    if (!number(key, is_long, java_min, &n)) return false;
    if (n > rd_max)
      return refuse(std::string(key) + "=" + std::to_string(n) + " is above what librdkafka allows for " + rd_key +
                    " (" + std::to_string(rd_max) + ")");
    set(rd_key, std::to_string(std::max(n, rd_min)));
    return true;
  }

  client_settings& out() { return *out_; }
  const properties& java() const { return java_; }
  const std::string& error() const { return error_; }

 private:
  const properties& java_;
  client_settings* out_;
  std::string error_;
};

// Properties librdkafka lacks that change only timing, monitoring or
// client-side bookkeeping, never the records, are accepted and dropped:
// socket.connection.setup.timeout.max.ms, retry.backoff.max.ms,
// metadata.max.idle.ms, partitioner.availability.timeout.ms,
// partitioner.adaptive.partitioning.enable, metric(s).*,
// enable.metrics.push, client.dns.lookup, metadata.recovery.*,
// transaction.timeout.ms (no transactions here), max.poll.records (the
// consumer hands out one record at a time), and the (de)serializers, which
// the console tools replace with byte-array ones. Properties no Kafka
// client knows are ignored, as Kafka ignores them.

// security.protocol, sasl.* and ssl.* (tools/client/client_security.h) as
// librdkafka's: the mechanism and the JAAS login's username and password,
// the trust store's certificates as ssl.ca.pem and the key store's key and
// chain as ssl.key.pem / ssl.certificate.pem (whatever the store's type:
// loaded here, so PKCS12, PEM files and inline PEM all work), the host
// name check. With PLAINTEXT the ssl.* and sasl.* settings have no effect,
// in Kafka's client too.
bool map_security(mapper& m) {
  property_pairs pairs(m.java().begin(), m.java().end());
  for (const auto& [key, value] : pairs)
    if ((key.starts_with("sasl.") || key.starts_with("ssl.")) && !is_security_key(key))
      return m.refuse(key + " is not supported by the native tool");
  auto parsed = client_security_from(pairs);
  if (auto* e = std::get_if<std::string>(&parsed)) return m.refuse(*e);
  const client_security& s = std::get<client_security>(parsed);
  if (s.protocol == "PLAINTEXT") return true;
  m.set("security.protocol", s.protocol);
  if (s.uses_sasl()) {
    if (s.token_login)
      return m.refuse("sasl.jaas.config: tokenauth=true (a delegation token's login) is not supported by the native "
                      "console tools (librdkafka sends no SCRAM extensions)");
    m.set("sasl.mechanisms", s.mechanism);
    m.set("sasl.username", s.username);
    m.set("sasl.password", s.password);
  }
  if (s.uses_tls()) {
    if (!s.tls.cipher_suites.empty()) return m.refuse("ssl.cipher.suites is not supported by the native tool");
    auto pem = tls_pem_material(s);
    if (auto* e = std::get_if<std::string>(&pem)) return m.refuse(*e);
    const tls_pem& t = std::get<tls_pem>(pem);
    if (!t.trusted.empty()) m.set("ssl.ca.pem", t.trusted);
    if (!t.key.empty()) {
      m.set("ssl.key.pem", t.key);
      m.set("ssl.certificate.pem", t.chain);
    }
    m.set("ssl.endpoint.identification.algorithm", s.verify_host ? "https" : "none");
  }
  return true;
}

// What both clients share: connections, buffers, security.
bool map_common(mapper& m) {
  auto& out = m.out();
  if (auto v = m.raw("client.id")) {
    out.client_id = *v;
    m.set("client.id", *v);
  }
  if (!map_security(m)) return false;
  if (!m.pass_number("send.buffer.bytes", false, -1, "socket.send.buffer.bytes", 0, 100000000) ||
      !m.pass_number("receive.buffer.bytes", false, -1, "socket.receive.buffer.bytes", 0, 100000000) ||
      !m.pass_number("metadata.max.age.ms", true, 0, "metadata.max.age.ms", 1, 86400000) ||
      !m.pass_number("connections.max.idle.ms", true, INT64_MIN, "connections.max.idle.ms", 0, INT32_MAX) ||
      !m.pass_number("reconnect.backoff.ms", true, 0, "reconnect.backoff.ms", 0, 3600000) ||
      !m.pass_number("reconnect.backoff.max.ms", true, 0, "reconnect.backoff.max.ms", 0, 3600000) ||
      !m.pass_number("socket.connection.setup.timeout.ms", true, 0, "socket.connection.setup.timeout.ms", 1000,
                     INT32_MAX))
    return false;
  if (auto v = m.raw("interceptor.classes"); v && !trimmed(*v).empty())
    return m.refuse("interceptor.classes=" + *v + " is not supported by the native tool");
  return true;
}

bool map_compression(mapper& m) {
  std::optional<std::string> codec;
  if (!m.one_of("compression.type", {"none", "gzip", "snappy", "lz4", "zstd"}, &codec)) return false;
  if (!codec) return true;
  m.set("compression.type", *codec);
  // The level of the codec in use; librdkafka has one compression.level.
  const std::string level_key = "compression." + *codec + ".level";
  int64_t level = 0;
  if (*codec == "none" || *codec == "snappy" || !m.has(level_key.c_str())) return true;
  if (!m.number(level_key.c_str(), false, INT32_MIN, &level)) return false;
  const int64_t max = *codec == "gzip" ? 9 : 12;
  if (level < -1 || level > max)
    return m.refuse(level_key + "=" + std::to_string(level) + " is outside what librdkafka allows (-1.." +
                    std::to_string(max) + ")");
  m.set("compression.level", std::to_string(level));
  return true;
}

// Kafka's rules for enable.idempotence (on by default, silently off when
// acks, retries or max.in.flight.requests.per.connection rule it out
// unless the user asked for it) and transactional.id.
bool map_idempotence(mapper& m, const std::string& acks, int64_t retries, int64_t in_flight) {
  std::optional<bool> asked;
  if (!m.boolean("enable.idempotence", &asked)) return false;
  bool enabled = asked.value_or(true);
  if (enabled && retries == 0) {
    if (asked) return m.config_error("Must set retries to non-zero when using the idempotent producer.");
    enabled = false;
  }
  if (enabled && acks != "-1") {
    if (asked)
      return m.config_error(
          "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.");
    enabled = false;
  }
  if (enabled && in_flight > 5) {
    if (asked)
      return m.config_error(
          "Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.");
    enabled = false;
  }
  if (auto id = m.raw("transactional.id")) {
    if (!enabled) return m.config_error("Cannot set a transactional.id without also enabling idempotence.");
    m.out().transactional_id = *id;
  }
  m.set("enable.idempotence", enabled ? "true" : "false");
  return true;
}

bool map_producer(mapper& m) {
  auto& out = m.out();
  std::optional<std::string> acks;
  if (!m.one_of("acks", {"all", "-1", "0", "1"}, &acks)) return false;
  const std::string acks_value = !acks || *acks == "all" ? "-1" : *acks;
  m.set("acks", acks_value);
  int64_t retries = 2147483647, in_flight = 5, ignored = 0, memory = out.buffer_memory;
  if (!m.number("retries", false, 0, &retries) ||
      !m.number("max.in.flight.requests.per.connection", false, 1, &in_flight) ||
      !m.number("max.block.ms", true, 0, &out.max_block_ms) ||
      !m.number("max.request.size", false, 0, &out.max_request_size) ||
      !m.number("buffer.memory", true, 0, &memory) ||
      !m.number("delivery.timeout.ms", false, 0, &out.delivery_timeout_ms))
    return false;
  out.buffer_memory = memory;
  m.set("retries", std::to_string(retries));
  if (in_flight > 1000000) in_flight = 1000000;
  m.set("max.in.flight.requests.per.connection", std::to_string(in_flight));
  m.set("queue.buffering.max.kbytes", std::to_string(std::max<int64_t>(1, (memory + 1023) / 1024)));
  m.set("delivery.timeout.ms", std::to_string(out.delivery_timeout_ms));
  // Kafka checks each record against max.request.size itself (the tool does
  // too); librdkafka's own limit only has to let those records through.
  m.set("message.max.bytes", std::to_string(std::clamp<int64_t>(out.max_request_size + 1024, 1000, 1000000000)));
  if (!m.pass_number("linger.ms", true, 0, "linger.ms", 0, 900000) ||
      !m.pass_number("batch.size", false, 0, "batch.size", 1, INT32_MAX) ||
      !m.pass_number("request.timeout.ms", false, 0, "request.timeout.ms", 1, 900000) ||
      !m.pass_number("retry.backoff.ms", true, 0, "retry.backoff.ms", 1, 300000) || !map_compression(m) ||
      !m.number("transaction.timeout.ms", false, INT32_MIN, &ignored))
    return false;
  if (auto p = m.raw("partitioner.class"); p && !trimmed(*p).empty())
    return m.refuse("partitioner.class=" + *p + " is not supported by the native tool");
  std::optional<bool> ignore_keys;
  if (!m.boolean("partitioner.ignore.keys", &ignore_keys)) return false;
  // Kafka's partitioner: murmur2 of the key, a sticky random pick without one.
  m.set("partitioner", ignore_keys.value_or(false) ? "random" : "murmur2_random");
  return map_idempotence(m, acks_value, retries, in_flight);
}

// Kafka's assignor classes as librdkafka's assignor names. A list mixing
// eager and cooperative assignors runs eager in Kafka until every member
// upgrades, so the cooperative one is dropped from such a list.
bool map_assignors(mapper& m) {
  auto v = m.raw("partition.assignment.strategy");
  if (!v) {
    m.set("partition.assignment.strategy", "range");  // the first of Kafka's default list
    return true;
  }
  std::vector<std::string> eager, cooperative;
  std::string item;
  std::istringstream list(*v);
  while (std::getline(list, item, ',')) {
    item = trimmed(item);
    if (item.empty()) continue;
    const std::string simple = item.substr(item.rfind('.') == std::string::npos ? 0 : item.rfind('.') + 1);
    if (simple == "RangeAssignor")
      eager.push_back("range");
    else if (simple == "RoundRobinAssignor")
      eager.push_back("roundrobin");
    else if (simple == "CooperativeStickyAssignor")
      cooperative.push_back("cooperative-sticky");
    else
      return m.refuse("partition.assignment.strategy " + item + " is not supported by the native tool");
  }
  const auto& chosen = eager.empty() ? cooperative : eager;
  if (chosen.empty()) return m.invalid("partition.assignment.strategy", *v, "Empty list");
  std::string joined;
  for (auto& a : chosen) joined += (joined.empty() ? "" : ",") + a;
  m.set("partition.assignment.strategy", joined);
  return true;
}

bool map_consumer(mapper& m) {
  auto& out = m.out();
  if (auto v = m.raw("group.id")) {
    out.group_id = *v;
    m.set("group.id", *v);
  }
  if (auto v = m.raw("group.instance.id")) m.set("group.instance.id", *v);
  if (auto v = m.raw("group.protocol"); v && !iequals(trimmed(*v), "classic")) {
    if (!iequals(trimmed(*v), "consumer"))
      return m.invalid("group.protocol", *v, "String must be one of (case insensitive): CLASSIC, CONSUMER, SHARE");
    return m.refuse("group.protocol=" + *v + " is not supported by the native tool (the classic protocol only)");
  }
  if (auto v = m.raw("auto.offset.reset")) {
    const std::string t = trimmed(*v);
    if (t.rfind("by_duration:", 0) == 0)
      return m.refuse("auto.offset.reset=" + *v + " is not supported by the native tool");
    if (t != "earliest" && t != "latest" && t != "none")
      return m.invalid("auto.offset.reset", *v,
                       "Invalid value `" + *v +
                           "` for configuration auto.offset.reset. The value must be either 'earliest', 'latest', "
                           "'none' or of the format 'by_duration:<PnDTnHnMn.nS.>'.");
    m.set("auto.offset.reset", t == "none" ? "error" : t);
  }
  std::optional<std::string> isolation;
  if (!m.one_of("isolation.level", {"read_committed", "read_uncommitted"}, &isolation)) return false;
  if (isolation) m.set("isolation.level", *isolation);
  std::optional<bool> auto_commit, crcs, auto_create, exclude_internal;
  int64_t ignored = 0;
  if (!m.boolean("enable.auto.commit", &auto_commit) || !m.boolean("check.crcs", &crcs) ||
      !m.boolean("allow.auto.create.topics", &auto_create) ||
      !m.boolean("exclude.internal.topics", &exclude_internal) ||
      !m.number("default.api.timeout.ms", false, 0, &out.default_api_timeout_ms) ||
      !m.number("max.poll.records", false, 1, &ignored))
    return false;
  if (auto_commit) m.set("enable.auto.commit", *auto_commit ? "true" : "false");
  if (crcs) m.set("check.crcs", *crcs ? "true" : "false");
  m.set("allow.auto.create.topics", auto_create.value_or(true) ? "true" : "false");  // Kafka's consumer default
  out.exclude_internal_topics = exclude_internal.value_or(true);
  if (auto v = m.raw("client.rack")) m.set("client.rack", *v);
  return m.pass_number("auto.commit.interval.ms", false, 0, "auto.commit.interval.ms", 0, 86400000) &&
         m.pass_number("session.timeout.ms", false, INT32_MIN, "session.timeout.ms", 1, 3600000) &&
         m.pass_number("heartbeat.interval.ms", false, INT32_MIN, "heartbeat.interval.ms", 1, 3600000) &&
         m.pass_number("max.poll.interval.ms", false, 1, "max.poll.interval.ms", 1, 86400000) &&
         m.pass_number("fetch.min.bytes", false, 0, "fetch.min.bytes", 1, 100000000) &&
         m.pass_number("fetch.max.bytes", false, 0, "fetch.max.bytes", 0, 2147483135) &&
         m.pass_number("fetch.max.wait.ms", false, 0, "fetch.wait.max.ms", 0, 300000) &&
         m.pass_number("max.partition.fetch.bytes", false, 0, "max.partition.fetch.bytes", 1, 1000000000) &&
         m.pass_number("request.timeout.ms", false, 0, "socket.timeout.ms", 10, 300000) && map_assignors(m);
}

}  // namespace

bool map_client_properties(client_kind kind, const properties& java, client_settings* out, std::string* error) {
  client_settings settings;
  mapper m(java, &settings);
  const bool ok = map_common(m) && (kind == client_kind::producer ? map_producer(m) : map_consumer(m));
  if (!ok) {
    *error = m.error();
    return false;
  }
  *out = std::move(settings);
  return true;
}

std::optional<std::string> host_of_address(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size() ||
      address.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return std::nullopt;
  // The longest run of host characters before ":port" (brackets around it optional).
  auto host_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c != 0 && std::strchr("-%._:", c));
  };
  size_t end = colon;
  if (end > 0 && address[end - 1] == ']') --end;
  size_t begin = end;
  while (begin > 0 && host_char(address[begin - 1])) --begin;
  return address.substr(begin, end - begin);
}

std::string librdkafka_bootstrap(const std::string& servers) {
  std::string out;
  for (const auto& entry : java_string_split(servers, ',')) {
    const size_t b = entry.find_first_not_of(" \t\r\n"), e = entry.find_last_not_of(" \t\r\n");
    if (b != std::string::npos) out += (out.empty() ? "" : ",") + entry.substr(b, e - b + 1);
  }
  return out;
}

bool validate_bootstrap(const std::string& servers, std::vector<std::string>* warnings, std::string* error) {
  size_t resolvable = 0;
  std::string entry;
  std::istringstream list(servers);
  while (std::getline(list, entry, ',')) {
    size_t b = 0, e = entry.size();
    while (b < e && std::isspace(static_cast<unsigned char>(entry[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(entry[e - 1]))) --e;
    entry = entry.substr(b, e - b);
    if (entry.empty()) continue;
    const auto host = host_of_address(entry);
    if (!host || host->empty()) {
      *error = std::string(k_config_exception) + "Invalid url in bootstrap.servers: " + entry;
      return false;
    }
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host->c_str(), nullptr, &hints, &found) == 0 && found) {
      freeaddrinfo(found);
      ++resolvable;
    } else {
      warnings->push_back("Couldn't resolve server " + entry + " from bootstrap.servers as DNS resolution failed for " +
                          *host);
    }
  }
  if (resolvable == 0) {
    *error = std::string(k_config_exception) + "No resolvable bootstrap urls given in bootstrap.servers";
    return false;
  }
  return true;
}

std::string log_line(const std::string& level, const std::string& message, const std::string& logger) {
  timeval now{};
  gettimeofday(&now, nullptr);
  std::tm local{};
  localtime_r(&now.tv_sec, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
  char millis[8];
  std::snprintf(millis, sizeof millis, ",%03d", static_cast<int>(now.tv_usec / 1000));
  return "[" + std::string(stamp) + millis + "] " + level + " " + message + " (" + logger + ")";
}

std::string java_exception_for(int16_t code) { return java_exception_class(code) + ": " + error_message(code); }

}  // namespace hw::tools::console

namespace hw::tools::console {

std::optional<int64_t> parse_java_integer(const std::string& text, bool is_long) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  const uint64_t limit = is_long ? static_cast<uint64_t>(INT64_MAX) : static_cast<uint64_t>(INT32_MAX);
  if (magnitude > limit + (negative ? 1 : 0)) return std::nullopt;
  if (negative) return magnitude == limit + 1 ? (is_long ? INT64_MIN : INT32_MIN) : -static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude);
}

std::vector<std::string> java_string_split(const std::string& text, char separator) {
  std::vector<std::string> pieces;
  if (text.find(separator) == std::string::npos) return {text};
  size_t start = 0;
  while (true) {
    const size_t at = text.find(separator, start);
    pieces.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  while (!pieces.empty() && pieces.back().empty()) pieces.pop_back();
  return pieces;
}

std::pair<std::string, std::string> java_key_value(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return {text, ""};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool load_java_properties(const std::string& path, properties* out, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    *error = std::filesystem::exists(path, ec) ? "java.io.IOException: Is a directory"
                                               : "java.nio.file.NoSuchFileException: " + path;
    return false;
  }
  std::vector<std::pair<std::string, std::string>> entries;
  if (!load_properties_file(path, &entries, error)) return false;
  for (auto& [key, value] : entries) (*out)[key] = value;
  return true;
}

std::vector<std::string> with_optional_value(std::span<const std::string> args, const std::string& name) {
  std::vector<std::string> out;
  const std::string flag = "--" + name;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool value_follows = i + 1 < args.size() && !args[i + 1].starts_with("-");
    out.push_back(args[i] == flag && !value_follows ? flag + "=" : args[i]);
  }
  return out;
}

}  // namespace hw::tools::console
