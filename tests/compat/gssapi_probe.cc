// gssapi_probe: one SASL/GSSAPI login spoken on a raw socket, each answer
// printed, so that a test can hold what two brokers answered side by side.
//
//   gssapi_probe --connect HOST:PORT --keytab FILE --principal NAME
//                [--service kafka] [--host HOST] [--authzid ID] [--garbage]
//
// SaslHandshake v1 (GSSAPI), then SaslAuthenticate v2 rounds with the
// broker's own GSSAPI client (gssapi_client.h) for <service>/<host> (host:
// the one connected to unless given), authorization id --authzid (none by
// default); --garbage sends a first token that is no GSS-API token. One
// line per answer:
//   handshake error=<code>
//   authenticate error=<code> message=<text or -> bytes=<n> lifetime=<ms>
//   client-error <text>       (the client side gave up; nothing sent)
//   closed                    (no answer: the broker closed the connection)
//   metadata answered|closed  (after a login: whether a request is served)
// Kerberos comes from the environment (KRB5_CONFIG); exit code 0 whatever
// the broker answered, 2 on bad arguments.
#include <iostream>
#include <string>
#include <vector>

#include "broker/security/gss_credential.h"
#include "broker/security/gssapi_client.h"
#include "kafka_socket.h"
#include "protocol/messages/api_registry.h"
#include "protocol/messages/headers.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/sasl_authenticate.h"
#include "protocol/messages/sasl_handshake.h"
#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"

namespace msg = hw::protocol::msg;
using hw::testing::kafka_socket;

namespace {

template <class Response, class Request>
std::optional<Response> exchange(kafka_socket& socket, int16_t key, int16_t version, int32_t correlation,
                                 const Request& req) {
  std::vector<uint8_t> body;
  hw::protocol::writer w(body);
  req.encode(w, version);
  if (!socket.send_frame(hw::testing::request_frame(key, version, correlation, body, "gssapi-probe")))
    return std::nullopt;
  auto frame = socket.read_frame(std::chrono::seconds(15));
  if (!frame) return std::nullopt;
  hw::protocol::reader r(*frame);
  msg::response_header h;
  h.decode(r, hw::protocol::response_header_version(key, version));
  Response resp;
  resp.decode(r, version);
  if (!r.ok()) return std::nullopt;
  return resp;
}

}  // namespace

int main(int argc, char** argv) {
  std::string connect, keytab, principal, service = "kafka", host, authzid;
  bool garbage = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--connect") connect = value();
    else if (a == "--keytab") keytab = value();
    else if (a == "--principal") principal = value();
    else if (a == "--service") service = value();
    else if (a == "--host") host = value();
    else if (a == "--authzid") authzid = value();
    else if (a == "--garbage") garbage = true;
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  const size_t colon = connect.rfind(':');
  if (colon == std::string::npos || keytab.empty() || principal.empty()) {
    std::cerr << "usage: gssapi_probe --connect HOST:PORT --keytab FILE --principal NAME [--service S] [--host H] "
                 "[--authzid ID] [--garbage]\n";
    return 2;
  }
  const std::string connect_host = connect.substr(0, colon);
  if (host.empty()) host = connect_host;
  auto credential = hw::broker::gss_credential::from_keytab(principal, keytab,
                                                            hw::broker::gss_credential::usage::initiate);
  if (auto* e = std::get_if<std::string>(&credential)) {
    std::cout << "client-error " << *e << std::endl;
    return 0;
  }
  hw::broker::gssapi_client client(std::get<std::shared_ptr<const hw::broker::gss_credential>>(credential), service,
                                   host, authzid);
  kafka_socket socket(hw::testing::endpoint(connect_host == "localhost" ? "127.0.0.1" : connect_host,
                                            static_cast<uint16_t>(std::stoi(connect.substr(colon + 1)))));
  if (!socket.connected()) {
    std::cout << "client-error cannot connect" << std::endl;
    return 0;
  }
  int32_t correlation = 0;
  msg::sasl_handshake_request hello;
  hello.mechanism = "GSSAPI";
  auto handshake = exchange<msg::sasl_handshake_response>(socket, 17, 1, ++correlation, hello);
  if (!handshake) {
    std::cout << "closed" << std::endl;
    return 0;
  }
  std::cout << "handshake error=" << handshake->error_code << std::endl;
  if (handshake->error_code != 0) return 0;
  std::string error;
  std::optional<std::vector<uint8_t>> token =
      garbage ? std::optional<std::vector<uint8_t>>(std::vector<uint8_t>{'n', 'o', 't', ' ', 'g', 's', 's'})
              : client.first(&error);
  bool logged_in = false;
  while (token) {
    msg::sasl_authenticate_request req;
    req.auth_bytes = std::move(*token);
    auto answer = exchange<msg::sasl_authenticate_response>(socket, 36, 2, ++correlation, req);
    if (!answer) {
      std::cout << "closed" << std::endl;
      return 0;
    }
    std::cout << "authenticate error=" << answer->error_code << " message=" << answer->error_message.value_or("-")
              << " bytes=" << answer->auth_bytes.size() << " lifetime=" << answer->session_lifetime_ms << std::endl;
    if (answer->error_code != 0) return 0;
    if (garbage) return 0;
    token = client.next(answer->auth_bytes, &error);
    logged_in = !token && client.done();
  }
  if (!logged_in) {
    std::cout << "client-error " << error << std::endl;
    return 0;
  }
  msg::metadata_request metadata;
  metadata.topics.emplace();
  auto served = exchange<msg::metadata_response>(socket, 3, 12, ++correlation, metadata);
  std::cout << "metadata " << (served ? "answered" : "closed") << std::endl;
  return 0;
}
