#pragma once
// A small HTTP/1.1 client for what the broker fetches from an identity
// provider: a JSON Web Key Set (GET) and its own tokens (POST of a form).
// http:// and https:// URLs; over TLS the server's certificate is checked
// against the given context and its host name (SNI sent). One request per
// connection, a deadline over all of it, a bounded answer.
//
// Owner/thread: a coroutine on the caller's executor; no shared state.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "broker/asio.h"

namespace boost::asio::ssl {
class context;
}

namespace hw::broker {

struct http_url {
  bool tls = false;
  std::string host;
  std::string port;
  std::string target;  // path and query, at least "/"
};
// An http:// or https:// URL's parts, or what is wrong with it.
std::variant<http_url, std::string> parse_http_url(const std::string& url);

struct http_request {
  std::string method = "GET";
  std::map<std::string, std::string> headers;
  std::string body;
};

struct http_response {
  int status = 0;
  std::string body;
};

// The answer, or why there is none (no secret in the text). `tls` is used
// for https URLs (nullptr: the system's trusted certificates).
asio::awaitable<std::variant<http_response, std::string>> http_call(const http_url& url, const http_request& request,
                                                                    std::shared_ptr<asio::ssl::context> tls,
                                                                    std::chrono::milliseconds timeout,
                                                                    size_t max_body = 1 << 20);

}  // namespace hw::broker
