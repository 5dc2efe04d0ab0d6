// hw_loadgen scram: new SCRAM-authenticated connections, as fast as they
// go (loadgen.cc lists its flags).
#include <atomic>
#include <mutex>

#include "bench/e2e/loadgen.h"
#include "bench/e2e/loadgen_wire.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/sasl/scram.h"
#include "protocol/sasl/scram_client.h"

namespace hw::loadgen {
namespace {

// What every login of `scram` needs; read-only once the threads start.
struct scram_plan {
  std::vector<std::string> addresses;  // the SASL listeners; each thread goes round them
  tls_settings tls;                    // SASL_SSL
  hw::protocol::scram_mechanism mechanism = hw::protocol::scram_mechanism::sha512;
  std::string user, password;
};

// The keys a salted password gives (RFC 5802): ClientKey, its hash
// StoredKey, and ServerKey.
struct scram_keys {
  hw::protocol::scram::bytes client_key, stored_key, server_key;
};

// Salted passwords by salt and iteration count, shared by the threads. RFC
// 5802 (5.1) lets a client cache them: a server gives a user the same salt
// at every login, so PBKDF2's rounds (about 3 ms of this client's CPU at
// 4096 iterations, where the broker spends a few HMACs per login) are paid
// once per run and the broker, not the client, bounds the rate.
class salted_password_cache {
 public:
  const scram_keys& keys(const scram_plan& plan, std::string_view salt_text, int32_t iterations) {
    namespace scram = hw::protocol::scram;
    const std::string key = std::string(salt_text) + "," + std::to_string(iterations);
    std::lock_guard lock(mu_);
    auto it = keys_.find(key);
    if (it != keys_.end()) return it->second;  // map nodes stay put: the reference outlives the lock
    const auto salt = scram::unbase64(salt_text);
    if (!salt || salt->empty()) throw std::runtime_error("SCRAM: a server-first message with a malformed salt");
    const scram::bytes salted = scram::salted_password(plan.mechanism, plan.password, *salt, iterations);
    scram_keys k;
    k.client_key = scram::hmac(plan.mechanism, salted, "Client Key");
    k.stored_key = scram::hash(plan.mechanism, k.client_key);
    k.server_key = scram::hmac(plan.mechanism, salted, "Server Key");
    return keys_.emplace(key, std::move(k)).first->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, scram_keys> keys_;
};

// The client side of one exchange with the keys from the cache: the
// messages protocol::scram_client writes, the proof and the expected
// server signature two HMACs over the AuthMessage.
class cached_scram_exchange {
 public:
  cached_scram_exchange(const scram_plan& plan, salted_password_cache& cache)
      : plan_(plan), cache_(cache), nonce_(hw::protocol::scram::random_nonce()) {}

  std::string client_first() {
    first_bare_ = "n=" + hw::protocol::scram::escape_user(plan_.user) + ",r=" + nonce_;
    return "n,," + first_bare_;
  }

  std::string client_final(std::string_view server_first) {
    namespace scram = hw::protocol::scram;
    // "r=<nonce>,s=<salt>,i=<iterations>[,...]"
    std::string_view fields[3];
    size_t start = 0;
    for (auto& field : fields) {
      const size_t comma = server_first.find(',', start);
      field = server_first.substr(start, comma == std::string_view::npos ? comma : comma - start);
      start = comma == std::string_view::npos ? server_first.size() : comma + 1;
    }
    if (fields[0].substr(0, 2) != "r=" || fields[1].substr(0, 2) != "s=" || fields[2].substr(0, 2) != "i=")
      throw std::runtime_error("SCRAM: a malformed server-first message");
    const std::string_view nonce = fields[0].substr(2);
    if (nonce.size() <= nonce_.size() || nonce.substr(0, nonce_.size()) != nonce_)
      throw std::runtime_error("SCRAM: the server nonce does not extend the client nonce");
    const int32_t iterations = static_cast<int32_t>(std::stol(std::string(fields[2].substr(2))));
    if (iterations < hw::protocol::scram_min_iterations) throw std::runtime_error("SCRAM: too few iterations");
    const scram_keys& keys = cache_.keys(plan_, fields[1].substr(2), iterations);
    const std::string without_proof = "c=biws,r=" + std::string(nonce);
    const std::string auth_message = first_bare_ + "," + std::string(server_first) + "," + without_proof;
    const scram::bytes signature = scram::hmac(plan_.mechanism, keys.stored_key, auth_message);
    scram::bytes proof(keys.client_key.size());
    for (size_t i = 0; i < proof.size(); ++i) proof[i] = keys.client_key[i] ^ signature[i];
    expected_server_signature_ = scram::hmac(plan_.mechanism, keys.server_key, auth_message);
    return without_proof + ",p=" + scram::base64(proof);
  }

  void verify_server_final(std::string_view server_final) {
    const std::string_view text = server_final.substr(0, server_final.find(','));
    const auto signature = text.substr(0, 2) == "v=" ? hw::protocol::scram::unbase64(text.substr(2)) : std::nullopt;
    if (!signature || !hw::protocol::scram::equal_constant_time(*signature, expected_server_signature_))
      throw std::runtime_error("SCRAM: the server signature does not verify (" + std::string(server_final) + ")");
  }

 private:
  const scram_plan& plan_;
  salted_password_cache& cache_;
  std::string nonce_;
  std::string first_bare_;
  hw::protocol::scram::bytes expected_server_signature_;
};

// The project's SCRAM client as it is: the salted password derived at
// every login, as a client without a cache does (--cache-salted-password
// false; the client's PBKDF2 then bounds the rate).
class fresh_scram_exchange {
 public:
  explicit fresh_scram_exchange(const scram_plan& plan) : client_(plan.mechanism, plan.user, plan.password) {}
  std::string client_first() { return client_.client_first(); }
  std::string client_final(std::string_view server_first) {
    std::string error;
    auto final_message = client_.client_final(server_first, &error);
    if (!final_message) throw std::runtime_error("SCRAM: " + error);
    return *final_message;
  }
  void verify_server_final(std::string_view server_final) {
    std::string error;
    if (!client_.verify_server_final(server_final, &error)) throw std::runtime_error("SCRAM: " + error);
  }

 private:
  hw::protocol::scram_client client_;
};

// One login, as Kafka's client makes it: connect (and the TLS handshake on
// SASL_SSL), ApiVersions v3, SaslHandshake v1 naming the mechanism,
// SaslAuthenticate v2 with the client-first then the client-final, the
// server-final checked; then close. Throws what went wrong.
template <typename Exchange>
void scram_login(const std::string& address, const scram_plan& plan, Exchange exchange) {
  namespace msg = hw::protocol::msg;
  wire_connection c(address, plan.tls, "hw-loadgen-scram");
  msg::api_versions_request versions;
  versions.client_software_name = "hw-loadgen";
  versions.client_software_version = "1.0";
  if (const auto a = c.round_trip<msg::api_versions_response>(versions, 3); a.error_code != 0)
    throw std::runtime_error("ApiVersions error " + std::to_string(a.error_code));
  msg::sasl_handshake_request handshake;
  handshake.mechanism = hw::protocol::scram_mechanism_name(plan.mechanism);
  if (const auto a = c.round_trip<msg::sasl_handshake_response>(handshake, 1); a.error_code != 0)
    throw std::runtime_error("SaslHandshake error " + std::to_string(a.error_code));
  auto authenticate = [&](const std::string& token) {
    msg::sasl_authenticate_request request;
    request.auth_bytes.assign(token.begin(), token.end());
    const auto a = c.round_trip<msg::sasl_authenticate_response>(request, 2);
    if (a.error_code != 0)
      throw std::runtime_error("SaslAuthenticate error " + std::to_string(a.error_code) + ": " +
                               a.error_message.value_or(""));
    return std::string(a.auth_bytes.begin(), a.auth_bytes.end());
  };
  const std::string server_first = authenticate(exchange.client_first());
  exchange.verify_server_final(authenticate(exchange.client_final(server_first)));
}

// One thread's logins; touched only by it until joined.
struct login_stats {
  histogram latency_us;
  uint64_t logins = 0;
  uint64_t failures = 0;
  std::string first_error;
};

}  // namespace

// --connections threads, each logging in again and again (one connection
// open at a time, a new one per login) over the listeners of --bootstrap
// in turn, for --seconds. Before that, every listener must take one login
// within --wait-ms: a user's credential reaches each node from the
// metadata log a moment after kafka-configs returns.
int cmd_scram(const flags& f) {
  scram_plan plan;
  const std::string bootstrap = f.str("bootstrap");
  for (size_t start = 0; start <= bootstrap.size();) {
    const size_t comma = std::min(bootstrap.find(',', start), bootstrap.size());
    if (comma > start) plan.addresses.push_back(bootstrap.substr(start, comma - start));
    start = comma + 1;
  }
  const std::string protocol = upper(client_setting("security.protocol", "plaintext"));
  if (protocol != "SASL_PLAINTEXT" && protocol != "SASL_SSL")
    throw std::runtime_error("scram wants -X security.protocol=sasl_plaintext or sasl_ssl");
  const auto mechanism = hw::protocol::parse_scram_mechanism(client_setting("sasl.mechanism", "SCRAM-SHA-512"));
  if (!mechanism) throw std::runtime_error("scram wants -X sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512");
  plan.mechanism = *mechanism;
  plan.user = client_setting("sasl.username");
  plan.password = client_setting("sasl.password");
  if (plan.user.empty() || plan.password.empty()) throw std::runtime_error("scram wants -X sasl.username and sasl.password");
  plan.tls = tls_settings::from_client_settings();
  const bool cached = f.str("cache-salted-password", "true") == "true";
  const int connections = static_cast<int>(f.num("connections", 16));
  salted_password_cache cache;
  auto login = [&](const std::string& address) {
    if (cached)
      scram_login(address, plan, cached_scram_exchange(plan, cache));
    else
      scram_login(address, plan, fresh_scram_exchange(plan));
  };

  const auto wait_started = clock_type::now();
  const auto wait_deadline = wait_started + std::chrono::milliseconds(f.num("wait-ms", 60000));
  for (const auto& address : plan.addresses) {
    for (;;) {
      try {
        login(address);
        break;
      } catch (const std::exception& e) {
        if (clock_type::now() > wait_deadline)
          throw std::runtime_error("no login on " + address + " within --wait-ms: " + e.what());
        std::this_thread::sleep_for(50ms);
      }
    }
  }
  const double wait_s = seconds_since(wait_started);

  std::vector<login_stats> stats(connections);
  std::atomic<bool> stop{false};
  const double cpu0 = process_cpu_seconds();
  const auto t0 = clock_type::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < connections; ++i) {
    threads.emplace_back([&, i] {
      login_stats& st = stats[i];
      for (size_t n = static_cast<size_t>(i); !stop.load(std::memory_order_relaxed); ++n) {
        const auto started = clock_type::now();
        try {
          login(plan.addresses[n % plan.addresses.size()]);
          ++st.logins;
          st.latency_us.record(
              std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - started).count());
        } catch (const std::exception& e) {
          if (st.failures++ == 0) st.first_error = e.what();
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(f.num("seconds", 10) * 1000));
  stop = true;
  for (auto& t : threads) t.join();
  const double secs = seconds_since(t0);
  const double cpu = process_cpu_seconds() - cpu0;
  histogram all;
  uint64_t logins = 0, failures = 0;
  std::string first_error;
  for (const auto& st : stats) {
    all.merge(st.latency_us);
    logins += st.logins;
    failures += st.failures;
    if (first_error.empty()) first_error = st.first_error;
  }
  std::printf("{\"logins\": %" PRIu64 ", \"failures\": %" PRIu64 ", \"connections\": %d, \"listeners\": %zu, "
              "\"seconds\": %.3f, \"logins_per_s\": %.1f, \"latency_ms\": {\"p50\": %.3f, \"p99\": %.3f, "
              "\"max\": %.3f}, \"client_cpu_s\": %.3f, \"wait_s\": %.3f, \"salted_password_cached\": %s, "
              "\"first_error\": \"%s\"}\n",
              logins, failures, connections, plan.addresses.size(), secs, static_cast<double>(logins) / secs,
              static_cast<double>(all.percentile(50)) / 1e3, static_cast<double>(all.percentile(99)) / 1e3,
              static_cast<double>(all.max()) / 1e3, cpu, wait_s, cached ? "true" : "false",
              json_safe(first_error).c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace hw::loadgen
