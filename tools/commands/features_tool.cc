// kafka-features.sh: the command's flow and its requests (features.h).

#include <chrono>
#include <filesystem>
#include <ostream>

#include "protocol/messages/api_versions.h"
#include "protocol/messages/update_features.h"
#include "tools/commands/argparse_tool.h"
#include "tools/commands/feature_levels.h"
#include "tools/commands/features.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

using property_list = std::vector<std::pair<std::string, std::string>>;

// FeatureCommand reports every command-line error on one line, without
// the usage and without a line end.
int command_line_error(const std::string& message, tool_io io) {
  io.err << "Command line error: " << message << ". Type --help for help.";
  return 1;
}

int describe(admin_client& admin, const cli::arg_values& v, tool_io io) {
  int32_t node = admin.bootstrap_controllers() && admin.controller_id() >= 0 ? admin.controller_id()
                                                                             : admin_client::any_node;
  if (auto id = v.value("node_id")) node = std::stoi(*id);
  protocol::msg::api_versions_request req;
  req.client_software_name = "highwater-tools";
  req.client_software_version = kafka_tools_version;
  protocol::msg::api_versions_response resp;
  std::string error;
  if (!admin.call(node, req, &resp, &error)) {
    io.err << error << '\n';
    return 1;
  }
  if (resp.error_code != 0) {
    io.err << error_message(resp.error_code) << '\n';
    return 1;
  }
  io.out << format_feature_describe(resp);
  return 0;
}

// UpdateFeatures to the controller; the failures by feature (every feature
// fails alike when the request as a whole does).
std::map<std::string, std::string> send_updates(admin_client& admin, const std::map<std::string, int16_t>& updates,
                                                update_kind kind, bool dry_run) {
  std::map<std::string, std::string> failures;
  auto fail_all = [&](const std::string& why) {
    for (const auto& u : updates) failures[u.first] = why;
    return failures;
  };
  for (;;) {
    const int32_t node = admin.controller_id() >= 0 ? admin.controller_id() : admin_client::any_node;
    std::string error;
    connection* c = admin.connection_to(node, &error);
    if (!c) return fail_all(error);
    if (!c->version_for(protocol::msg::update_features_request::schema.api_key, 0, 2))
      return fail_all(node_does_not_support(protocol::msg::update_features_request::schema.name));
    protocol::msg::update_features_request req;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(admin.deadline() - clock::now());
    req.timeout_ms = static_cast<int32_t>(std::max<int64_t>(left.count(), 1));
    req.validate_only = dry_run;
    for (const auto& [name, level] : updates) {
      protocol::msg::update_features_request::feature_update_key k;
      k.feature = name;
      k.max_version_level = level;
      k.upgrade_type = static_cast<int8_t>(kind);
      k.allow_downgrade = kind != update_kind::upgrade;
      req.feature_updates.push_back(k);
    }
    protocol::msg::update_features_response resp;
    if (!admin.call(node, req, &resp, &error)) return fail_all(error);
    if (resp.error_code == 41 && admin.back_off()) continue;  // NOT_CONTROLLER: find it again
    if (resp.error_code != 0) return fail_all(error_message(resp.error_code, resp.error_message));
    if (resp.results.empty()) return failures;
    for (const auto& u : updates) failures[u.first] = "The controller response did not contain a result for feature " + u.first;
    for (const auto& r : resp.results) {
      if (!updates.count(r.feature)) continue;
      if (r.error_code == 0) failures.erase(r.feature);
      else failures[r.feature] = error_message(r.error_code, r.error_message);
    }
    return failures;
  }
}

int update(const std::string& op, const std::map<std::string, int16_t>& updates, update_kind kind, bool dry_run,
           const std::unique_ptr<admin_client>& admin, const std::string& connect_error, tool_io io) {
  if (updates.empty()) {
    io.err << "You must specify at least one feature to " << op << '\n';
    return 1;
  }
  std::map<std::string, std::string> failures;
  if (!admin) {
    for (const auto& u : updates) failures[u.first] = connect_error;
  } else {
    failures = send_updates(*admin, updates, kind, dry_run);
  }
  io.out << format_update_results(op, updates, failures, dry_run);
  if (failures.empty()) return 0;
  io.err << failures.size() << " out of " << updates.size() << " operation(s) failed.\n";
  return 1;
}

int change(const std::string& op, const cli::arg_values& v, const std::unique_ptr<admin_client>& admin,
           const std::string& connect_error, tool_io io) {
  std::map<std::string, int16_t> updates;
  std::string notice, error;
  const update_kind kind = op == "upgrade" ? update_kind::upgrade
                                           : (v.has("unsafe") ? update_kind::unsafe_downgrade : update_kind::safe_downgrade);
  if (op == "disable") {
    for (const auto& f : v.values("feature"))
      if (!updates.emplace(f, 0).second) {
        io.err << "Feature " << f << " was specified more than once.\n";
        return 1;
      }
  } else if (!feature_updates_from(op, v, &updates, &notice, &error)) {
    io.out << notice;
    io.err << error << '\n';
    return 1;
  }
  io.out << notice;
  return update(op, updates, kind, v.has("dry_run"), admin, connect_error, io);
}

int offline_command(const cli::arg_values& v, tool_io io) {
  std::string out, error;
  bool ok = true;
  if (v.command() == "version-mapping") {
    const std::string release = v.value("release_version").value_or("4.3-IV0");
    const metadata_version_info* mv = metadata_version_from_string(release, true);
    if (mv) out = version_mapping_text(*mv, release);
    else error = unknown_metadata_version_message(release, true), ok = false;
  } else {
    ok = feature_dependencies_text(v.values("feature"), &out, &error);
  }
  io.out << out;
  if (ok) return 0;
  io.err << error << '\n';
  return 1;
}

}  // namespace

int kafka_features(tool_args args, tool_io io) {
  cli::arg_values v;
  cli::arg_error parse_error;
  const cli::arg_parser parser = features_parser();  // outlives parse_error, which points into it
  if (!parser.parse(args, &v, &parse_error)) {
    if (parse_error.what == cli::arg_error::kind::usage) return command_line_error(parse_error.message, io);
    return report_parse_failure(parse_error, io);
  }
  const std::string& command = v.command();
  if (command == "version-mapping" || command == "feature-dependencies") return offline_command(v, io);

  property_list props;
  std::string error;
  if (auto path = v.value("command_config")) {
    // Kafka's Utils.loadProps fails with NoSuchFileException, whose message is the path.
    if (!std::filesystem::exists(*path)) error = *path;
    if (!error.empty() || !load_properties_file(*path, &props, &error)) {
      io.err << error << '\n';
      return 1;
    }
  }
  const bool controllers = v.has("bootstrap_controller");
  if (!controllers && !v.has("bootstrap_server"))
    return command_line_error("You must specify either --bootstrap-controller or --bootstrap-server.", io);
  const auto bootstrap = v.value(controllers ? "bootstrap_controller" : "bootstrap_server");
  if (auto id = v.value("node_id"); command == "describe" && id && std::stoi(*id) < 0) {
    io.err << "Invalid node id " << *id << ": must be non-negative.\n";
    return 1;
  }
  auto admin = connect_admin(bootstrap, controllers, props, &error);
  if (command == "describe") {
    if (!admin) {
      io.err << error << '\n';
      return 1;
    }
    return describe(*admin, v, io);
  }
  return change(command, v, admin, error, io);
}

}  // namespace hw::tools
