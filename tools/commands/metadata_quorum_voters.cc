// kafka-metadata-quorum.sh add-controller and remove-controller (KIP-853):
// MetadataQuorumCommand's reading of the new controller's own configuration
// (its node.id, roles, metadata directory and that directory's id in
// meta.properties, its controller listeners' advertised endpoints), its
// messages, and AddRaftVoter / RemoveRaftVoter as Kafka's admin client sends
// them (to the active controller with --bootstrap-controller, else to any
// broker, which forwards them; NOT_CONTROLLER tried again).

#include <algorithm>
#include <map>
#include <ostream>

#include "config/listeners.h"
#include "protocol/messages/add_raft_voter.h"
#include "protocol/messages/remove_raft_voter.h"
#include "storage/io/file_system.h"
#include "storage/meta_properties.h"
#include "tools/commands/argparse_tool.h"
#include "tools/commands/kafka_topics.h"
#include "tools/commands/metadata_quorum.h"

namespace hw::tools {
namespace {

using property_list = std::vector<std::pair<std::string, std::string>>;

// Kafka's TerseException: the message alone.
struct terse {
  std::string message;
};

std::optional<std::string> property(const property_list& props, const std::string& key) {
  std::optional<std::string> out;
  for (const auto& [k, v] : props)
    if (k == key) out = v;  // the last one wins, as in java.util.Properties
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    out.push_back(trim(std::string_view(s).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

struct new_controller {
  int32_t id = -1;
  protocol::uuid directory_id;
  std::vector<config::listener_endpoint> endpoints;
};

// What MetadataQuorumCommand reads from the new controller's configuration,
// in its order; a terse failure otherwise.
std::optional<terse> read_new_controller(const property_list& props, new_controller* out) {
  const std::string invalid = " Is this a valid controller configuration file?";
  auto id_text = property(props, "node.id");
  if (!id_text) return terse{"node.id not found in configuration file." + invalid};
  auto id = topics::java_parse_int(trim(*id_text));
  if (!id) return terse{"For input string: \"" + trim(*id_text) + "\""};
  if (*id < 0) return terse{"node.id was negative in configuration file." + invalid};
  // (A plain substring test, as Kafka's tool makes it.)
  if (property(props, "process.roles").value_or("").find("controller") == std::string::npos)
    return terse{"process.roles did not contain 'controller' in configuration file." + invalid};
  std::string metadata_dir;
  if (auto m = property(props, "metadata.log.dir")) {
    metadata_dir = trim(*m);
  } else if (auto dirs = property(props, "log.dirs")) {
    auto list = split_commas(*dirs);
    if (!list.empty()) metadata_dir = list.front();
  }
  if (metadata_dir.empty()) return terse{"Neither metadata.log.dir nor log.dirs were found." + invalid};
  auto fs = storage::make_posix_file_system();
  storage::meta_properties meta;
  if (storage::read_meta_properties(*fs, std::filesystem::path(metadata_dir) / storage::meta_properties_name, &meta))
    return terse{"Unable to read meta.properties from " + metadata_dir};
  if (!meta.directory_id) return terse{"No directory id found in " + metadata_dir};
  // The controller listeners' endpoints: advertised.listeners over listeners.
  std::map<std::string, config::listener_endpoint> by_name;
  for (const char* key : {"listeners", "advertised.listeners"}) {
    // Every listener read as PLAINTEXT, as the tool reads them: the
    // protocol does not matter here, only the name and address.
    const std::string text = property(props, key).value_or("");
    config::protocol_map any_plaintext;
    for (const auto& entry : split_commas(text))
      if (auto scheme = entry.find("://"); scheme != std::string::npos)
        any_plaintext.emplace_back(entry.substr(0, scheme), "PLAINTEXT");
    auto parsed = config::parse_listeners(text, any_plaintext);
    if (auto* list = std::get_if<std::vector<config::listener_endpoint>>(&parsed))
      for (const auto& l : *list) by_name[l.name] = l;
  }
  auto names = property(props, "controller.listener.names");
  if (!names) return terse{"controller.listener.names was not found." + invalid};
  out->id = *id;
  out->directory_id = *meta.directory_id;
  for (const auto& raw : split_commas(*names)) {
    std::string name = raw;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    auto it = by_name.find(name);
    if (it == by_name.end()) return terse{"Cannot find information about controller listener name: " + name};
    config::listener_endpoint e = it->second;
    if (e.host.empty()) e.host = "localhost";
    out->endpoints.push_back(e);
  }
  return std::nullopt;
}

std::string endpoints_text(const std::vector<config::listener_endpoint>& endpoints) {
  std::string out;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    const auto& e = endpoints[i];
    const bool v6 = e.host.find(':') != std::string::npos;
    out += (i ? ", " : "") + e.name + "://" + (v6 ? "[" : "") + e.host + (v6 ? "]" : "") + ":" + std::to_string(e.port);
  }
  return out;
}

// A failed admin future, as MetadataQuorumCommand's main prints it.
int fail_future(int16_t code, const std::optional<std::string>& message, tool_io io) {
  const std::string cause = java_exception_class(code) + ": " + error_message(code, message);
  io.err << cause << "\njava.util.concurrent.ExecutionException: " << cause << "\n\n";
  return 1;
}

// Sends a voter change until it is answered other than NOT_CONTROLLER.
template <class Req, class Resp>
int send_change(admin_client& admin, const Req& req, tool_io io, bool* done) {
  for (;;) {
    const int32_t node =
        admin.bootstrap_controllers() && admin.controller_id() >= 0 ? admin.controller_id() : admin_client::any_node;
    Resp resp;
    std::string error;
    if (!admin.call(node, req, &resp, &error)) {
      if (admin_client::unsupported(error))
        return fail_future(35, node_does_not_support(Req::schema.name), io);
      io.err << error << "\njava.util.concurrent.ExecutionException: " << error << "\n\n";
      return 1;
    }
    if (resp.error_code == 41 && admin.back_off()) continue;
    if (resp.error_code != 0) return fail_future(resp.error_code, resp.error_message, io);
    *done = true;
    return 0;
  }
}

std::unique_ptr<admin_client> connect_or_report(const admin_connector& connect, tool_io io) {
  std::string error;
  auto admin = connect(&error);
  if (!admin) io.err << error << '\n';
  return admin;
}

}  // namespace

int add_controller(const admin_connector& connect, const property_list& props, bool dry_run, bool has_config,
                   tool_io io) {
  if (!has_config) {
    io.err << "You must supply the configuration file of the controller you are adding when using add-controller.\n";
    return 1;
  }
  new_controller c;
  if (auto failure = read_new_controller(props, &c)) {
    io.err << failure->message << '\n';
    return 1;
  }
  if (!dry_run) {
    auto admin = connect_or_report(connect, io);
    if (!admin) return 1;
    protocol::msg::add_raft_voter_request req;
    req.cluster_id.reset();  // as Kafka's admin client: the controller does not check it
    req.timeout_ms = static_cast<int32_t>(std::max<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(admin->deadline() - clock::now()).count(), 1));
    req.voter_id = c.id;
    req.voter_directory_id = c.directory_id;
    for (const auto& e : c.endpoints) req.listeners.push_back({e.name, e.host, e.port, {}});
    bool done = false;
    if (int status = send_change<protocol::msg::add_raft_voter_request, protocol::msg::add_raft_voter_response>(
            *admin, req, io, &done);
        !done)
      return status;
  }
  io.out << (dry_run ? "DRY RUN of adding" : "Added") << " controller " << c.id << " with directory id "
         << c.directory_id.to_string() << " and endpoints: " << endpoints_text(c.endpoints) << '\n';
  return 0;
}

int remove_controller(const admin_connector& connect, const cli::arg_values& v, tool_io io) {
  const int32_t id = std::stoi(*v.value("controller_id"));
  if (id < 0) {
    io.err << "Invalid negative --controller-id: " << id << '\n';
    return 1;
  }
  protocol::uuid directory;
  std::string why;
  if (!topics::java_uuid_from_string(*v.value("controller_directory_id"), &directory, &why)) {
    io.err << "Failed to parse --controller-directory-id: " << why << '\n';
    return 1;
  }
  const bool dry_run = v.has("dry_run");
  if (!dry_run) {
    auto admin = connect_or_report(connect, io);
    if (!admin) return 1;
    protocol::msg::remove_raft_voter_request req;
    req.cluster_id.reset();
    req.voter_id = id;
    req.voter_directory_id = directory;
    bool done = false;
    if (int status = send_change<protocol::msg::remove_raft_voter_request, protocol::msg::remove_raft_voter_response>(
            *admin, req, io, &done);
        !done)
      return status;
  }
  io.out << (dry_run ? "DRY RUN of removing " : "Removed ") << " KRaft controller " << id << " with directory id "
         << directory.to_string() << '\n';
  return 0;
}

}  // namespace hw::tools
