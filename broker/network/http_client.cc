#include "broker/network/http_client.h"

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace hw::broker {

namespace beast = boost::beast;
namespace http = beast::http;

std::variant<http_url, std::string> parse_http_url(const std::string& url) {
  http_url out;
  std::string rest;
  if (url.starts_with("https://")) {
    out.tls = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return "the URL " + url + " is neither http:// nor https://";
  }
  const size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  out.target = slash == std::string::npos ? "/" : rest.substr(slash);
  if (const size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string::npos) return "the URL " + url + " has a malformed host";
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') out.port = authority.substr(close + 2);
  } else if (const size_t colon = authority.rfind(':'); colon != std::string::npos) {
    out.host = authority.substr(0, colon);
    out.port = authority.substr(colon + 1);
  } else {
    out.host = authority;
  }
  if (out.host.empty()) return "the URL " + url + " has no host";
  if (out.port.empty()) out.port = out.tls ? "443" : "80";
  return out;
}

namespace {

template <typename Stream>
asio::awaitable<std::variant<http_response, std::string>> exchange(Stream& stream, const http_url& url,
                                                                   const http_request& request, size_t max_body) {
  http::request<http::string_body> req;
  req.method_string(request.method);
  req.target(url.target);
  req.version(11);
  req.set(http::field::host, url.host);
  req.set(http::field::user_agent, "highwater");
  req.set(http::field::connection, "close");
  for (const auto& [k, v] : request.headers) req.set(k, v);
  req.body() = request.body;
  req.prepare_payload();
  error_code ec;
  co_await http::async_write(stream, req, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return "sending the request failed: " + ec.message();
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body);
  co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return "reading the answer failed: " + ec.message();
  http_response out;
  out.status = static_cast<int>(parser.get().result_int());
  out.body = std::move(parser.get().body());
  co_return out;
}

}  // namespace

asio::awaitable<std::variant<http_response, std::string>> http_call(const http_url& url, const http_request& request,
                                                                    std::shared_ptr<asio::ssl::context> tls,
                                                                    std::chrono::milliseconds timeout,
                                                                    size_t max_body) {
  auto executor = co_await asio::this_coro::executor;
  tcp::resolver resolver(executor);
  error_code ec;
  auto endpoints = co_await resolver.async_resolve(url.host, url.port, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return "cannot resolve " + url.host + ": " + ec.message();
  const std::string where = (url.tls ? "https://" : "http://") + url.host + ":" + url.port;
  if (!url.tls) {
    beast::tcp_stream stream(executor);
    stream.expires_after(timeout);
    co_await stream.async_connect(endpoints, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return "cannot connect to " + where + ": " + ec.message();
    co_return co_await exchange(stream, url, request, max_body);
  }
  if (!tls) {
    tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    tls->set_default_verify_paths();
  }
  beast::ssl_stream<beast::tcp_stream> stream(executor, *tls);
  beast::get_lowest_layer(stream).expires_after(timeout);
  stream.set_verify_mode(asio::ssl::verify_peer);
  // The certificate must name the host (a name, or an address).
  SSL* ssl = stream.native_handle();
  SSL_set_tlsext_host_name(ssl, url.host.c_str());
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  boost::system::error_code addr_ec;
  asio::ip::make_address(url.host, addr_ec);
  if (!addr_ec)
    X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str());
  else
    X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0);
  co_await beast::get_lowest_layer(stream).async_connect(endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return "cannot connect to " + where + ": " + ec.message();
  co_await stream.async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return "the TLS handshake with " + where + " failed: " + ec.message();
  auto result = co_await exchange(stream, url, request, max_body);
  co_await stream.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
  co_return result;
}

}  // namespace hw::broker
