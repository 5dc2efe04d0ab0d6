#include "broker/security/oauth_validation.h"

#include <boost/asio/ssl.hpp>
#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "broker/asio.h"
#include "broker/network/http_client.h"
#include "broker/wall_clock.h"
#include "protocol/java_string.h"
#include "protocol/sasl/jws.h"
#include "protocol/tls/tls_stores.h"

namespace hw::broker {
namespace {

namespace oauth = protocol::oauthbearer;
namespace jws = protocol::jws;
using key_set_ptr = std::shared_ptr<const jws::key_set>;

constexpr std::string_view k_jwks_key = "sasl.oauthbearer.jwks.endpoint.url";

std::string restricted(std::string_view what, std::string_view property, const std::string& value) {
  return "Invalid value " + value + " for configuration " + std::string(k_jwks_key) + ": The " + std::string(what) +
         " cannot be accessed due to restrictions. Update the system property '" + std::string(property) +
         "' to allow the " + std::string(what) + " to be accessed.";
}

// Where the keys come from.
class key_source {
 public:
  virtual ~key_source() = default;
  virtual key_set_ptr keys() = 0;
  virtual void unknown_kid(const std::string& kid) = 0;
};

// A JWKS file, read again when it changes; a change that does not parse
// keeps the keys it had.
class file_key_source final : public key_source {
 public:
  explicit file_key_source(std::string path) : path_(std::move(path)) {}

  std::optional<std::string> load() {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0)
      return "The OAuth configuration option " + std::string(k_jwks_key) + " contains a file (" + path_ +
             ") that doesn't exist";
    if (S_ISDIR(st.st_mode))
      return "The OAuth configuration option " + std::string(k_jwks_key) + " references a directory (" + path_ +
             "), not a file";
    std::string error;
    if (!reload(st, &error)) return "Invalid value " + path_ + " for configuration " + std::string(k_jwks_key) + ": " + error;
    return std::nullopt;
  }

  key_set_ptr keys() override {
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0) {
      std::lock_guard lock(mu_);
      if (st.st_mtim.tv_sec != seen_.tv_sec || st.st_mtim.tv_nsec != seen_.tv_nsec || st.st_size != seen_size_) {
        std::string error;
        if (!reload_locked(st, &error))
          spdlog::warn("The JWKS file {} changed but cannot be used ({}); keeping its last good keys", path_, error);
      }
    }
    return std::atomic_load(&keys_);
  }
  void unknown_kid(const std::string&) override {}

 private:
  bool reload(const struct stat& st, std::string* error) {
    std::lock_guard lock(mu_);
    return reload_locked(st, error);
  }
  bool reload_locked(const struct stat& st, std::string* error) {
    seen_ = st.st_mtim;
    seen_size_ = st.st_size;
    std::ifstream in(path_, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      *error = "cannot read the file";
      return false;
    }
    auto parsed = jws::parse_key_set(text.str());
    if (auto* e = std::get_if<std::string>(&parsed)) {
      *error = *e;
      return false;
    }
    std::atomic_store(&keys_, key_set_ptr(std::make_shared<jws::key_set>(std::get<jws::key_set>(std::move(parsed)))));
    return true;
  }

  const std::string path_;
  std::mutex mu_;
  struct timespec seen_ {};
  off_t seen_size_ = -1;
  key_set_ptr keys_ = std::make_shared<jws::key_set>();
};

// An http(s) JWKS endpoint, fetched on a thread of its own: at start-up,
// every refresh interval, and at once for an unknown key id (each key id
// at most once a minute); a failing fetch is retried with a doubling
// backoff for up to the maximum, and the last good keys stay.
class endpoint_key_source final : public key_source, public std::enable_shared_from_this<endpoint_key_source> {
 public:
  endpoint_key_source(std::string url, http_url where, std::shared_ptr<asio::ssl::context> tls,
                      const config::listener_security::oauth_keys& keys)
      : url_(std::move(url)),
        where_(std::move(where)),
        tls_(std::move(tls)),
        refresh_ms_(keys.jwks_refresh_ms),
        backoff_ms_(keys.jwks_retry_backoff_ms),
        backoff_max_ms_(keys.jwks_retry_backoff_max_ms),
        work_(asio::make_work_guard(io_)),
        timer_(io_) {}

  ~endpoint_key_source() override {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  // The first fetch (once, no retry, as Kafka's), then the refresh thread.
  std::optional<std::string> start() {
    thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "jwks-refresh");
      io_.run();
    });
    std::promise<std::optional<std::string>> first;
    auto done = first.get_future();
    asio::co_spawn(
        io_,
        [this, &first]() -> asio::awaitable<void> {
          auto fetched = co_await fetch();
          if (auto* e = std::get_if<std::string>(&fetched)) {
            first.set_value(*e);
            co_return;
          }
          std::atomic_store(&keys_, std::get<key_set_ptr>(fetched));
          first.set_value(std::nullopt);
          schedule();
        },
        asio::detached);
    auto error = done.get();
    if (error) return "Could not refresh JWKS from " + url_ + ": " + *error;
    spdlog::info("JWKS validation key refresh of {} started with a refresh interval of {} ms", url_, refresh_ms_);
    return std::nullopt;
  }

  key_set_ptr keys() override { return std::atomic_load(&keys_); }

  void unknown_kid(const std::string& kid) override {
    if (kid.size() > 1000) {
      spdlog::warn("Key ID {}... ({} characters) was too long to look up", kid.substr(0, 1000), kid.size());
      return;
    }
    {
      std::lock_guard lock(mu_);
      const int64_t now = wall_clock_ms();
      auto it = missing_.find(kid);
      if (it != missing_.end() && it->second > now) return;
      missing_[kid] = now + 60000;
      if (missing_.size() > 16) missing_.erase(missing_.begin());
    }
    asio::post(io_, [this] { asio::co_spawn(io_, refresh(), asio::detached); });
  }

 private:
  asio::awaitable<std::variant<key_set_ptr, std::string>> fetch() {
    http_request get;
    get.headers["Accept"] = "application/json";
    auto answer = co_await http_call(where_, get, tls_, std::chrono::seconds(10));
    if (auto* e = std::get_if<std::string>(&answer)) co_return *e;
    const auto& response = std::get<http_response>(answer);
    if (response.status != 200) co_return "the endpoint answered HTTP " + std::to_string(response.status);
    auto parsed = jws::parse_key_set(response.body);
    if (auto* e = std::get_if<std::string>(&parsed)) co_return *e;
    co_return key_set_ptr(std::make_shared<jws::key_set>(std::get<jws::key_set>(std::move(parsed))));
  }

  void schedule() {
    timer_.expires_after(std::chrono::milliseconds(refresh_ms_));
    timer_.async_wait([this](error_code ec) {
      if (ec) return;
      asio::co_spawn(io_, refresh(), asio::detached);
      schedule();
    });
  }

  asio::awaitable<void> refresh() {
    if (refreshing_) co_return;
    refreshing_ = true;
    spdlog::info("OAuth JWKS refresh of {} starting", url_);
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(backoff_max_ms_);
    std::string first_error;
    for (int attempt = 1;; ++attempt) {
      auto fetched = co_await fetch();
      if (auto* keys = std::get_if<key_set_ptr>(&fetched)) {
        {
          std::lock_guard lock(mu_);
          for (const auto& k : **keys) missing_.erase(k.kid);
        }
        std::atomic_store(&keys_, *keys);
        spdlog::info("OAuth JWKS refresh of {} complete", url_);
        refreshing_ = false;
        co_return;
      }
      if (first_error.empty()) first_error = std::get<std::string>(fetched);
      auto wait = std::chrono::milliseconds(backoff_ms_ << std::min(attempt - 1, 30));
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      wait = std::min(wait, left);
      if (wait.count() <= 0) break;
      asio::steady_timer pause(io_, wait);
      error_code ec;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
    spdlog::warn("OAuth JWKS refresh of {} encountered an error ({}); keeping the last good keys", url_, first_error);
    refreshing_ = false;
  }

  const std::string url_;
  const http_url where_;
  std::shared_ptr<asio::ssl::context> tls_;
  const int64_t refresh_ms_, backoff_ms_, backoff_max_ms_;
  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  asio::steady_timer timer_;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, int64_t> missing_;  // key id → when it may be looked up again
  bool refreshing_ = false;                 // on the refresh thread only
  key_set_ptr keys_ = std::make_shared<jws::key_set>();
};

}  // namespace

bool oauth_url_allowed(const std::optional<std::string>& allow_list, const std::string& value) {
  const std::string text = allow_list.value_or("");
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (protocol::java_trim(item) == value) return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

std::variant<std::shared_ptr<asio::ssl::context>, std::string> oauth_endpoint_tls(
    const std::map<std::string, std::string>& o, const config::listener_security::oauth_keys& keys) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  protocol::tls::store_settings s;
  auto option = [&](const char* name) -> std::optional<std::string> {
    auto it = o.find(name);
    if (it == o.end()) return std::nullopt;
    return it->second;
  };
  std::string where = "the OAUTHBEARER login module's ssl.truststore options";
  s.truststore_location = option("ssl.truststore.location");
  s.truststore_password = option("ssl.truststore.password");
  s.truststore_certificates = option("ssl.truststore.certificates");
  if (auto type = option("ssl.truststore.type")) s.truststore_type = *type;
  if (!s.truststore_location && !s.truststore_certificates && keys.jvm_truststore) {
    where = "the trust store of -Djavax.net.ssl.trustStore in KAFKA_OPTS";
    s.truststore_location = keys.jvm_truststore;
    s.truststore_password = keys.jvm_truststore_password;
    s.truststore_type = keys.jvm_truststore_type.value_or("JKS");
  }
  for (auto& ch : s.truststore_type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (!s.truststore_location && !s.truststore_certificates) {
    ctx->set_default_verify_paths();
    return ctx;
  }
  auto trusted = protocol::tls::trust_store(s, where);
  if (auto* e = std::get_if<std::string>(&trusted)) return *e;
  if (auto error = protocol::tls::configure(ctx->native_handle(), s, std::nullopt,
                                            std::get<std::vector<protocol::tls::cert_ptr>>(trusted), where))
    return *error;
  return ctx;
}

std::variant<oauth_validator, std::string> make_oauth_validator(const config::listener_security& keys,
                                                                const std::vector<jaas_entry>& jaas) {
  const std::string where = "Listener " + keys.listener + " (OAUTHBEARER): ";
  const auto& o = keys.oauth;
  const std::map<std::string, std::string> options = jaas.empty() ? std::map<std::string, std::string>{} : jaas.front().options;
  const std::string handler = o.server_callback_handler_class.value_or("");
  if (handler.empty() || handler == k_oauth_unsecured_validator_handler) {
    auto parsed = oauth::unsecured_validator_options_from(options);
    if (auto* e = std::get_if<std::string>(&parsed)) return where + *e;
    return oauth_validator([opts = std::get<oauth::unsecured_validator_options>(std::move(parsed))](std::string_view t) {
      return oauth::validate_unsecured(t, opts, wall_clock_ms());
    });
  }
  if (handler != k_oauth_validator_handler)
    return where + "sasl.server.callback.handler.class " + handler +
           " is not supported (OAUTHBEARER validates with " + std::string(k_oauth_validator_handler) +
           ", or unsecured tokens when it is unset)";
  if (!o.jwks_endpoint_url)
    return where + "The OAuth validator for the broker requires \"sasl.oauthbearer.jwks.endpoint.url\" to be "
                   "configured so that JWT signatures can be verified, but it was not set. Set "
                   "\"sasl.oauthbearer.jwks.endpoint.url\" to the OAuth/OIDC provider's JWKS endpoint URL for this "
                   "listener, or configure a signature-verifying \"sasl.oauthbearer.jwt.validator.class\".";
  const std::string& url = *o.jwks_endpoint_url;
  if (o.jwks_refresh_ms <= 0) return where + "sasl.oauthbearer.jwks.endpoint.refresh.ms must be positive";
  std::shared_ptr<key_source> source;
  if (url.starts_with("file:")) {
    std::string path = url.substr(5);
    if (path.starts_with("//")) path = path.substr(2);  // file:///p: an empty authority
    // Kafka checks a file: URL against the allowed URLs, as written.
    if (!oauth_url_allowed(o.allowed_urls, url))
      return where + restricted("URL", "org.apache.kafka.sasl.oauthbearer.allowed.urls", url);
    auto file = std::make_shared<file_key_source>(path);
    if (auto error = file->load()) return where + *error;
    source = file;
  } else {
    auto parsed = parse_http_url(url);
    if (auto* e = std::get_if<std::string>(&parsed))
      return where + "The OAuth configuration option " + std::string(k_jwks_key) + " contains a URL (" + url +
             ") that contains an invalid protocol; only \"http\", \"https\", and \"file\" protocol are supported";
    if (!oauth_url_allowed(o.allowed_urls, url))
      return where + restricted("URL", "org.apache.kafka.sasl.oauthbearer.allowed.urls", url);
    auto tls = oauth_endpoint_tls(options, o);
    if (auto* e = std::get_if<std::string>(&tls)) return where + *e;
    auto endpoint = std::make_shared<endpoint_key_source>(url, std::get<http_url>(std::move(parsed)),
                                                          std::get<std::shared_ptr<asio::ssl::context>>(tls), o);
    if (auto error = endpoint->start()) return where + *error;
    source = endpoint;
  }
  if (o.expected_audience.empty())
    spdlog::warn("Listener {}: OAUTHBEARER validates tokens without sasl.oauthbearer.expected.audience, so it refuses "
                 "every token that carries an aud claim; set it to the audiences the brokers expect",
                 keys.listener);
  if (!o.expected_issuer)
    spdlog::warn("Listener {}: OAUTHBEARER validates tokens without sasl.oauthbearer.expected.issuer, so it accepts "
                 "tokens of any issuer; set it to the identity provider's issuer",
                 keys.listener);
  jws::validator_options v;
  v.expected_audience = o.expected_audience;
  v.expected_issuer = o.expected_issuer;
  v.sub_claim = o.sub_claim_name;
  v.scope_claim = o.scope_claim_name;
  v.clock_skew_seconds = o.clock_skew_seconds;
  return oauth_validator([source, v, listener = keys.listener](std::string_view token) {
    jws::outcome out = jws::validate(token, *source->keys(), v, wall_clock_ms());
    if (out.unknown_kid) source->unknown_kid(*out.unknown_kid);
    if (auto* f = std::get_if<oauth::token_failure>(&out.result))
      spdlog::warn("Listener {}: OAUTHBEARER token refused: {}", listener, f->reason);
    return std::move(out.result);
  });
}

}  // namespace hw::broker
