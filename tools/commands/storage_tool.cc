// kafka-storage.sh: the sub-commands' flow (storage_tool.h).

#include "tools/commands/storage_tool.h"

#include <filesystem>
#include <ostream>
#include <random>

#include "config/broker_config.h"
#include "tools/commands/argparse_tool.h"
#include "tools/commands/feature_levels.h"
#include "tools/commands/storage_scram.h"
#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

constexpr int16_t scram_metadata_level = 11;  // 3.5-IV2: UserScramCredentialRecord

// The broker configuration as the broker itself reads it (its defaults,
// its checks), from the file alone: Kafka's tool reads no environment.
std::optional<config::broker_config> load_config(const std::string& path, tool_io io) {
  if (!std::filesystem::exists(path)) {
    io.err << "Exception in thread \"main\" java.nio.file.NoSuchFileException: " << path << '\n';
    return std::nullopt;
  }
  config::config_sources sources;
  sources.properties_path = path;
  config::load_result loaded = config::load_broker_config(sources);
  if (!loaded.config) {
    for (const auto& e : loaded.errors) io.err << "Invalid configuration: " << e << '\n';
    return std::nullopt;
  }
  return std::move(loaded.config);
}

std::vector<std::string> directories_of(const config::broker_config& cfg) {
  std::vector<std::string> dirs = cfg.log_dirs;
  if (std::find(dirs.begin(), dirs.end(), cfg.metadata_log_dir) == dirs.end()) dirs.push_back(cfg.metadata_log_dir);
  return dirs;
}

const config::listener_endpoint* first_controller_listener(const config::broker_config& cfg) {
  for (const auto& l : cfg.listeners)
    if (std::find(cfg.controller_listener_names.begin(), cfg.controller_listener_names.end(), l.name) !=
        cfg.controller_listener_names.end())
      return &l;
  return nullptr;
}

bool has_controller_listener(const config::broker_config& cfg) { return first_controller_listener(cfg) != nullptr; }

// StorageTool.runFormatCommand's checks, in its order; false with the
// message to print.
bool format_request_from(const cli::arg_values& v, const config::broker_config& cfg, format_request* req,
                         std::string* error) {
  if (cfg.process_roles.empty()) {
    *error = "The kafka configuration file appears to be for a legacy cluster. Formatting is only supported for "
             "clusters in KRaft mode.";
    return false;
  }
  if (auto release = v.value("release_version")) {
    const metadata_version_info* mv = metadata_version_from_string(*release, false);
    if (!mv) {
      *error = unknown_metadata_version_message(*release, false);
      return false;
    }
    if (mv->level < scram_metadata_level && v.has("add_scram")) {
      *error = "SCRAM is only supported in metadata.version 3.5-IV2 or later.";
      return false;
    }
    req->metadata_level = mv->level;
  }
  const bool static_voters = !cfg.controller_quorum_voters.empty();
  const bool standalone = v.has("standalone");
  const bool listed = v.has("initial_controllers");
  if (static_voters && (standalone || listed)) {
    *error = "You cannot specify controller.quorum.voters and format the node with --initial-controllers or "
             "--standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and specify "
             "controller.quorum.bootstrap.servers instead.";
    return false;
  }
  const bool controller = cfg.has_role("controller");
  if (!cfg.controller_listener_names.empty()) req->controller_listener = cfg.controller_listener_names.front();
  if (auto listed = v.value("initial_controllers")) {
    // DynamicVoters.parse throws: the JVM prints the exception.
    std::vector<dynamic_voter> voters;
    std::string why;
    if (!parse_dynamic_voters(*listed, &voters, &why)) {
      *error = "Exception in thread \"main\" java.lang.IllegalArgumentException: " + why;
      return false;
    }
    for (const auto& dv : voters)
      if (dv.id == cfg.node_id) req->voter_directory_id = dv.directory_id;
    req->initial_voters = std::move(voters);
  }
  if (standalone) {
    if (!controller) {
      *error = "You can only use --standalone on a controller.";
      return false;
    }
    if (!has_controller_listener(cfg)) {
      *error = "Exception in thread \"main\" java.lang.RuntimeException: No controller listeners found.";
      return false;
    }
    std::mt19937_64 rng = seeded_rng();
    req->voter_directory_id = protocol::uuid::random(rng);
    // This node alone, on its first advertised controller listener.
    const config::listener_endpoint* endpoint = nullptr;
    for (const auto* list : {&cfg.advertised_listeners, &cfg.listeners}) {
      for (const auto& l : *list)
        if (!endpoint && l.name == req->controller_listener) endpoint = &l;
    }
    if (!endpoint) endpoint = first_controller_listener(cfg);
    dynamic_voter self;
    self.id = cfg.node_id;
    self.host = endpoint->host.empty() ? "localhost" : endpoint->host;
    self.port = static_cast<uint16_t>(endpoint->port);
    self.directory_id = *req->voter_directory_id;
    req->initial_voters = std::vector<dynamic_voter>{self};
  }
  if (!v.has("no_initial_controllers") && controller && !static_voters && !standalone && !listed) {
    *error = "Because controller.quorum.voters is not set on this controller, you must specify one of the following: "
             "--standalone, --initial-controllers, or --no-initial-controllers.";
    return false;
  }
  req->node_id = cfg.node_id;
  req->cluster_id = v.value("cluster_id").value_or("");
  req->directories = directories_of(cfg);
  req->metadata_directory = cfg.metadata_log_dir;
  req->ignore_formatted = v.has("ignore_formatted");
  // Each feature at its default for the release (Kafka's Formatter), less
  // share.version, which Highwater does not support; kraft.version follows
  // the quorum's kind.
  for (const feature_info& f : production_features()) {
    if (f.name == "share.version") continue;
    req->features[std::string(f.name)] =
        f.name == "kraft.version" ? (static_voters ? 0 : 1) : f.default_level(req->metadata_level);
  }
  return scram_records(v.values("add_scram"), &req->scram, error);
}

int format(const cli::arg_values& v, tool_io io) {
  auto cfg = load_config(*v.value("config"), io);
  if (!cfg) return 1;
  format_request req;
  std::string out, error;
  const bool ok = format_request_from(v, *cfg, &req, &error) && format_directories(req, &out, &error);
  io.out << out;
  if (ok) return 0;
  io.err << error << '\n';
  return 1;
}

int info(const cli::arg_values& v, tool_io io) {
  auto cfg = load_config(*v.value("config"), io);
  if (!cfg) return 1;
  std::string out;
  const int status = storage_info(!cfg->process_roles.empty(), directories_of(*cfg), &out);
  io.out << out;
  return status;
}

}  // namespace

std::mt19937_64 seeded_rng() {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device(), device(), device(), device(), device()};
  return std::mt19937_64(seed);
}

int kafka_storage(tool_args args, tool_io io) {
  cli::arg_values v;
  cli::arg_error parse_error;
  const cli::arg_parser parser = storage_parser();  // outlives parse_error, which points into it
  if (!parser.parse(args, &v, &parse_error)) return report_parse_failure(parse_error, io);
  const std::string& command = v.command();
  if (command == "info") return info(v, io);
  if (command == "format") return format(v, io);
  if (command == "random-uuid") {
    std::mt19937_64 rng = seeded_rng();
    io.out << protocol::uuid::random(rng).to_string() << '\n';
    return 0;
  }
  std::string out, error;
  bool ok = true;
  if (command == "version-mapping") {
    const std::string release = v.value("release_version").value_or("4.3-IV0");
    const metadata_version_info* mv = metadata_version_from_string(release, true);
    if (mv) out = version_mapping_text(*mv, release);
    else error = unknown_metadata_version_message(release, true), ok = false;
  } else {
    ok = storage_feature_dependencies(v.values("feature"), &out, &error);
  }
  io.out << out;
  if (ok) return 0;
  io.err << error << '\n';
  return 1;
}

}  // namespace hw::tools
