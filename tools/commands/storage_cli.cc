// kafka-storage.sh's command line: StorageTool's argparse4j parsers, with
// our own help screens in argparse4j's layout at 75 columns.

#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

constexpr const char* k_main_help =
    R"(usage: kafka-storage [-h]
                     {info,format,version-mapping,feature-dependencies,random-uuid}
                     ...

Prepare and inspect Kafka log directories.

positional arguments:
  {info,format,version-mapping,feature-dependencies,random-uuid}
    info                 Report on the log directories of this node.
    format               Initialise the log directories of this node.
    version-mapping      Show which feature levels a metadata version
                         implies. Without --release-version, the newest
                         stable metadata version is shown
    feature-dependencies
                         Show what a feature level depends on. Unknown
                         features or undefined levels produce an error.
                         More than one feature may be given.
    random-uuid          Generate and print a new random UUID.

optional arguments:
  -h, --help             Print this help screen and exit.
)";

constexpr const char* k_info_help =
    R"(usage: kafka-storage info [-h] --config CONFIG

optional arguments:
  -h, --help             Print this help screen and exit.
  --config CONFIG, -c CONFIG
                         Kafka server properties file.
)";

constexpr const char* k_format_help =
    R"(usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID
                     [--add-scram ADD_SCRAM] [--ignore-formatted]
                     [--release-version RELEASE_VERSION]
                     [--feature FEATURE] [--standalone |
                     --no-initial-controllers |
                     --initial-controllers INITIAL_CONTROLLERS]

optional arguments:
  -h, --help             Print this help screen and exit.
  --config CONFIG, -c CONFIG
                         Kafka server properties file.
  --cluster-id CLUSTER_ID, -t CLUSTER_ID
                         Cluster id to write.
  --add-scram ADD_SCRAM, -S ADD_SCRAM
                         SCRAM credential to store in the
                         __cluster_metadata log, for example
                         'SCRAM-SHA-256=[name=alice,password=alice-
                         secret]'
                         'SCRAM-SHA-512=[name=alice,iterations=8192,salt="
                         N3E=",saltedpassword="YCE="]'
  --ignore-formatted, -g
                         Leave directories that are already formatted alone
                         instead of failing.
  --release-version RELEASE_VERSION, -r RELEASE_VERSION
                         Release whose feature levels are written
                         initially. Lowest accepted: 3.3-IV3; default:
                         4.3-IV0
  --feature FEATURE, -f FEATURE
                         Level of one feature, written as feature=level,
                         e.g. `kraft.version=1`.
  --standalone, -s       Set up this controller as the only member of a
                         dynamic quorum. controller.quorum.voters must be
                         unset; use controller.quorum.bootstrap.servers.
  --no-initial-controllers, -N
                         Set up a server for a dynamic quorum without
                         naming its members. controller.quorum.voters
                         should be unset; use
                         controller.quorum.bootstrap.servers.
  --initial-controllers INITIAL_CONTROLLERS, -I INITIAL_CONTROLLERS
                         Set up a server with the given dynamic quorum: a
                         comma-separated list of
                         id@hostname:port:directory, identical on every
                         node, e.g.
                         0@example.com:8082:JEXY6aqzQY-32P5TStzaFg,
                         1@example.com:8083:MvDxzVmcRsaTz33bUuRU6A,
                         2@example.com:8084:07R5amHmR32VDA6jHkGbTA
                         . controller.quorum.voters must be unset; use
                         controller.quorum.bootstrap.servers.
)";

constexpr const char* k_version_mapping_help =
    R"(usage: kafka-storage version-mapping [-h]
                     [--release-version RELEASE_VERSION]

optional arguments:
  -h, --help             Print this help screen and exit.
  --release-version RELEASE_VERSION, -r RELEASE_VERSION
                         Release whose feature levels are shown. Lowest
                         accepted: 3.3-IV3; default: 4.3-IV0
)";

constexpr const char* k_feature_dependencies_help =
    R"(usage: kafka-storage feature-dependencies [-h] --feature FEATURE

optional arguments:
  -h, --help             Print this help screen and exit.
  --feature FEATURE, -f FEATURE
                         Feature levels whose dependencies are shown,
                         written as feature=version, e.g.
                         `metadata.version=5`.
)";

constexpr const char* k_random_uuid_help =
    R"(usage: kafka-storage random-uuid [-h]

optional arguments:
  -h, --help             Print this help screen and exit.
)";

}  // namespace

cli::arg_parser storage_parser() {
  const std::string prog = "kafka-storage";
  cli::arg_parser info(prog, k_info_help);
  info.store({"--config", "-c"}, true);

  cli::arg_parser format(prog, k_format_help);
  format.store({"--config", "-c"}, true).store({"--cluster-id", "-t"}, true);
  format.append({"--add-scram", "-S"});
  format.store_true({"--ignore-formatted", "-g"}).store({"--release-version", "-r"});
  // Per-feature levels go into the bootstrap metadata, whose feature levels
  // the Highwater broker does not read (it finalizes its own).
  format.unsupported({"--feature", "-f"}, cli::arg_option::kind::append);
  const int quorum = format.mutex_group(false);
  format.store_true({"--standalone", "-s"}, quorum).store_true({"--no-initial-controllers", "-N"}, quorum);
  format.store({"--initial-controllers", "-I"}, false, quorum);

  cli::arg_parser version_mapping(prog, k_version_mapping_help);
  version_mapping.store({"--release-version", "-r"});

  cli::arg_parser feature_dependencies(prog, k_feature_dependencies_help);
  feature_dependencies.append({"--feature", "-f"}, true);

  cli::arg_parser random_uuid(prog, k_random_uuid_help);

  cli::arg_parser main(prog, k_main_help);
  main.from_file_prefix('@');
  main.command("info", info).command("format", format).command("version-mapping", version_mapping);
  main.command("feature-dependencies", feature_dependencies).command("random-uuid", random_uuid);
  return main;
}

}  // namespace hw::tools
