#include "broker/security/oauth_login.h"

#include <boost/asio/ssl.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <thread>

#include "broker/asio.h"
#include "broker/network/http_client.h"
#include "broker/security/oauth_validation.h"
#include "broker/security/scram.h"
#include "broker/wall_clock.h"
#include "protocol/sasl/oauthbearer.h"

namespace hw::broker {
namespace {

namespace oauth = protocol::oauthbearer;

std::string form_encode(std::string_view s) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '*') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
  }
  return out;
}

// A token as Kafka's client validator reads it before use: three parts, a
// payload with exp (seconds) and sub. The expiry in epoch ms, or why not.
std::variant<int64_t, std::string> token_expiry(const std::string& token) {
  const size_t d1 = token.find('.');
  const size_t d2 = d1 == std::string::npos ? d1 : token.find('.', d1 + 1);
  if (d2 == std::string::npos || token.find('.', d2 + 1) != std::string::npos)
    return std::string("Malformed JWT provided; expected three sections (header, payload, and signature)");
  auto payload = oauth::base64url_decode(token.substr(d1 + 1, d2 - d1 - 1));
  if (!payload) return std::string("the token's payload is not base64url");
  auto claims = oauth::parse_json_object(*payload);
  if (!claims) return std::string("the token's payload is not JSON");
  auto exp = claims->find("exp");
  if (exp == claims->end() || exp->second.type != oauth::json_value::kind::number)
    return std::string("exp value must be non-null");
  auto sub = claims->find("sub");
  if (sub == claims->end() || sub->second.type != oauth::json_value::kind::text || sub->second.text.empty())
    return std::string("sub value must be non-null");
  return static_cast<int64_t>(exp->second.number) * 1000;
}

class endpoint_token_source final : public oauth_token_source {
 public:
  endpoint_token_source(std::string listener, std::string url, http_url where, std::shared_ptr<asio::ssl::context> tls,
                        std::string authorization, std::string body, const config::listener_security::oauth_keys& k)
      : listener_(std::move(listener)),
        url_(std::move(url)),
        where_(std::move(where)),
        tls_(std::move(tls)),
        authorization_(std::move(authorization)),
        body_(std::move(body)),
        backoff_ms_(k.login_retry_backoff_ms),
        backoff_max_ms_(k.login_retry_backoff_max_ms),
        work_(asio::make_work_guard(io_)),
        timer_(io_) {}

  ~endpoint_token_source() override {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  std::optional<std::string> start() {
    thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "oauth-login");
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
          adopt(std::get<std::pair<std::string, int64_t>>(std::move(fetched)));
          first.set_value(std::nullopt);
        },
        asio::detached);
    auto error = done.get();
    if (error) return "Listener " + listener_ + ": the broker's OAUTHBEARER login failed: " + *error;
    return std::nullopt;
  }

  std::string token() const override { return *std::atomic_load(&token_); }

 private:
  asio::awaitable<std::variant<std::pair<std::string, int64_t>, std::string>> fetch() {
    http_request post;
    post.method = "POST";
    post.headers["Authorization"] = authorization_;
    post.headers["Content-Type"] = "application/x-www-form-urlencoded";
    post.headers["Accept"] = "application/json";
    post.body = body_;
    auto answer = co_await http_call(where_, post, tls_, std::chrono::seconds(10));
    if (auto* e = std::get_if<std::string>(&answer)) co_return "the token endpoint " + url_ + ": " + *e;
    const auto& response = std::get<http_response>(answer);
    if (response.status < 200 || response.status > 299) {
      refused_ = response.status >= 400 && response.status < 500;
      co_return "the token endpoint " + url_ + " answered HTTP " + std::to_string(response.status);
    }
    nlohmann::json doc = nlohmann::json::parse(response.body, nullptr, false);
    std::string token;
    if (doc.is_object()) {
      for (const char* name : {"access_token", "id_token"})
        if (auto it = doc.find(name); it != doc.end() && it->is_string() && !it->get<std::string>().empty()) {
          token = it->get<std::string>();
          break;
        }
    }
    if (token.empty()) co_return "the token endpoint " + url_ + " answered no access_token";
    auto expiry = token_expiry(token);
    if (auto* e = std::get_if<std::string>(&expiry)) co_return "the token from " + url_ + " is not usable: " + *e;
    co_return std::make_pair(std::move(token), std::get<int64_t>(expiry));
  }

  // Takes a token and plans the next fetch at 80-85% of its lifetime.
  void adopt(std::pair<std::string, int64_t> fetched) {
    std::atomic_store(&token_, std::make_shared<const std::string>(std::move(fetched.first)));
    thread_local std::minstd_rand jitter{std::random_device{}()};
    const int64_t left = std::max<int64_t>(fetched.second - wall_clock_ms(), 0);
    const double share = 0.8 + 0.05 * std::uniform_real_distribution<double>(0, 1)(jitter);
    const auto wait = std::chrono::milliseconds(std::max<int64_t>(static_cast<int64_t>(left * share), 1000));
    spdlog::info("Listener {}: the broker's OAUTHBEARER token lasts {} ms; the next is fetched in {} ms", listener_,
                 left, wait.count());
    timer_.expires_after(wait);
    timer_.async_wait([this](error_code ec) {
      if (!ec) asio::co_spawn(io_, refresh(), asio::detached);
    });
  }

  asio::awaitable<void> refresh() {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(backoff_max_ms_);
    for (int attempt = 1;; ++attempt) {
      refused_ = false;
      auto fetched = co_await fetch();
      if (auto* ok = std::get_if<std::pair<std::string, int64_t>>(&fetched)) {
        adopt(std::move(*ok));
        co_return;
      }
      spdlog::warn("Listener {}: getting the broker's OAUTHBEARER token failed: {}", listener_,
                   std::get<std::string>(fetched));
      auto wait = std::chrono::milliseconds(backoff_ms_ << std::min(attempt - 1, 30));
      if (!refused_) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        wait = std::min(wait, left);
      }
      if (refused_ || wait.count() <= 0) {
        // Keep the current token and try again later.
        wait = std::chrono::milliseconds(std::max<int64_t>(backoff_max_ms_, 1000));
        timer_.expires_after(wait);
        timer_.async_wait([this](error_code ec) {
          if (!ec) asio::co_spawn(io_, refresh(), asio::detached);
        });
        co_return;
      }
      asio::steady_timer pause(io_, wait);
      error_code ec;
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
    }
  }

  const std::string listener_, url_;
  const http_url where_;
  std::shared_ptr<asio::ssl::context> tls_;
  const std::string authorization_, body_;
  const int64_t backoff_ms_, backoff_max_ms_;
  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  asio::steady_timer timer_;
  std::thread thread_;
  bool refused_ = false;  // on the login thread only
  std::shared_ptr<const std::string> token_ = std::make_shared<const std::string>();
};

}  // namespace

std::variant<std::shared_ptr<const oauth_token_source>, std::string> start_oauth_token_source(
    const std::string& listener, const config::listener_security::oauth_keys& keys,
    const std::map<std::string, std::string>& jaas) {
  const std::string where = "Listener " + listener + ": ";
  if (keys.login_callback_handler_class && *keys.login_callback_handler_class != k_oauth_login_handler)
    return where + "sasl.login.callback.handler.class " + *keys.login_callback_handler_class +
           " is not supported (OAUTHBEARER logins use " + std::string(k_oauth_login_handler) + ")";
  if (!keys.token_endpoint_url)
    return where + "the OAuth configuration option sasl.oauthbearer.token.endpoint.url value is required";
  const std::string& url = *keys.token_endpoint_url;
  auto option = [&](const char* name) -> std::optional<std::string> {
    auto it = jaas.find(name);
    if (it == jaas.end()) return std::nullopt;
    return it->second;
  };
  if (url.starts_with("file:"))
    return where + "tokens from a file (" + url + ") are not supported; use the identity provider's token endpoint";
  auto parsed = parse_http_url(url);
  if (auto* e = std::get_if<std::string>(&parsed)) return where + *e;
  // The URL must be allowed, as in Kafka.
  if (!oauth_url_allowed(keys.allowed_urls, url))
    return where + "Invalid value " + url +
           " for configuration sasl.oauthbearer.token.endpoint.url: The URL cannot be accessed due to restrictions. "
           "Update the system property 'org.apache.kafka.sasl.oauthbearer.allowed.urls' to allow the URL to be "
           "accessed.";
  const std::optional<std::string> id = keys.client_id ? keys.client_id : option("clientId");
  const std::optional<std::string> secret = keys.client_secret ? keys.client_secret : option("clientSecret");
  if (!id || id->empty())
    return where + "the OAuth configuration option sasl.oauthbearer.client.credentials.client.id value is required";
  if (!secret || secret->empty())
    return where + "the OAuth configuration option sasl.oauthbearer.client.credentials.client.secret value is required";
  const std::string pair = *id + ":" + *secret;
  const std::string authorization =
      "Basic " + scram::base64(std::span(reinterpret_cast<const uint8_t*>(pair.data()), pair.size()));
  std::string body = "grant_type=client_credentials";
  const std::optional<std::string> scope = keys.scope ? keys.scope : option("scope");
  if (scope && !scope->empty()) body += "&scope=" + form_encode(*scope);
  auto tls = oauth_endpoint_tls(jaas, keys);
  if (auto* e = std::get_if<std::string>(&tls)) return where + *e;
  auto source = std::make_shared<endpoint_token_source>(listener, url, std::get<http_url>(std::move(parsed)),
                                                        std::get<std::shared_ptr<asio::ssl::context>>(tls),
                                                        authorization, std::move(body), keys);
  if (auto error = source->start()) return *error;
  return std::shared_ptr<const oauth_token_source>(std::move(source));
}

}  // namespace hw::broker
