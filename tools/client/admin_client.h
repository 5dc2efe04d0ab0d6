#pragma once
// The tools' admin client: bootstraps from --bootstrap-server (or
// --bootstrap-controller), learns the cluster's nodes, and sends any
// request the project's protocol code knows to a chosen node at the newest
// version both sides speak. Blocking, one thread; connections are opened on
// first use and kept for the tool's run.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/wire/reader.h"
#include "protocol/wire/writer.h"
#include "tools/client/connection.h"

namespace hw::tools {

struct node_info {
  int32_t id = -1;
  host_port address;
  std::optional<std::string> rack;
};

class admin_client {
 public:
  struct settings {
    std::vector<host_port> bootstrap;
    bool bootstrap_controllers = false;  // --bootstrap-controller: the nodes are controllers
    std::chrono::milliseconds timeout{60000};  // default.api.timeout.ms: the whole operation
    std::shared_ptr<const connection_security> security;  // TLS and SASL of every connection; null: PLAINTEXT
  };

  // Connects to the first bootstrap address that answers and reads the
  // cluster's nodes; nullptr with the reason (Kafka's tools time out; a
  // failed authentication ends it at once, its error
  // connection::authentication_failure's).
  static std::unique_ptr<admin_client> connect(const settings& s, std::string* error);

  const std::vector<node_info>& nodes() const { return nodes_; }
  int32_t controller_id() const { return controller_id_; }
  const std::optional<std::string>& cluster_id() const { return cluster_id_; }
  bool bootstrap_controllers() const { return settings_.bootstrap_controllers; }
  clock::time_point deadline() const { return deadline_; }
  // Reads the nodes again (after a leader moved, say).
  bool refresh(std::string* error);

  // Kafka's retry.backoff.ms (100 ms) between attempts of one operation:
  // waits it and reads the cluster's nodes again (a leader or the
  // controller may have moved); false, without waiting, when the
  // operation's deadline would pass first.
  bool back_off();
  // Whether a failed call's error says the node does not speak the API at
  // any version this client knows (not worth retrying).
  static bool unsupported(const std::string& error) { return error.starts_with(unsupported_prefix); }
  static constexpr const char* unsupported_prefix = "The node does not support ";

  // Any node: the one the client bootstrapped from.
  static constexpr int32_t any_node = -1;

  // Sends `req` to `node` at the newest version both sides know (at most
  // max_version) and decodes the answer into *resp; *version says which.
  template <class Req, class Resp>
  bool call(int32_t node, const Req& req, Resp* resp, std::string* error, int16_t* version = nullptr,
            int16_t max_version = Req::schema.max_version) {
    std::vector<uint8_t> body;
    int16_t used = -1;
    auto encode = [&](protocol::writer& w, int16_t v) { req.encode(w, v); };
    if (!send(node, Req::schema.api_key, Req::schema.name, Req::schema.min_version, max_version, encode, &body,
              &used, error))
      return false;
    protocol::reader r(body);
    *resp = Resp{};
    resp->decode(r, used);
    if (!r.ok()) {
      *error = std::string("malformed ") + Resp::schema.name + " v" + std::to_string(used) + ": " + r.error();
      return false;
    }
    if (version) *version = used;
    return true;
  }

  // The connection to `node` (any_node: the bootstrap one), opened and
  // handshaken on first use.
  connection* connection_to(int32_t node, std::string* error);

 private:
  explicit admin_client(settings s);
  bool send(int32_t node, int16_t key, const char* name, int16_t min_version, int16_t max_version,
            const std::function<void(protocol::writer&, int16_t)>& encode, std::vector<uint8_t>* response,
            int16_t* version, std::string* error);
  bool read_nodes(connection& c, std::string* error);

  settings settings_;
  clock::time_point deadline_;
  std::unique_ptr<connection> bootstrap_;
  host_port bootstrap_address_;
  std::map<int32_t, std::unique_ptr<connection>> by_node_;
  std::vector<node_info> nodes_;
  int32_t controller_id_ = -1;
  std::optional<std::string> cluster_id_;
};

}  // namespace hw::tools
