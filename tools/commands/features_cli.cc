// kafka-features.sh's command line: FeatureCommand's argparse4j parsers,
// with our own help screens in argparse4j's layout at 75 columns.

#include "tools/commands/features.h"

namespace hw::tools {
namespace {

constexpr const char* k_main_help =
    R"(usage: kafka-features [-h] [--command-config COMMAND_CONFIG]
                      [--bootstrap-server BOOTSTRAP_SERVER |
                      --bootstrap-controller BOOTSTRAP_CONTROLLER]
                      {describe,upgrade,downgrade,disable,version-mapping,feature-dependencies}
                      ...

Inspect and change Kafka feature flags.

positional arguments:
  {describe,upgrade,downgrade,disable,version-mapping,feature-dependencies}
    describe             List the feature flags currently in effect.
    upgrade              Raise the level of one or more feature flags.
    downgrade            Lower the level of one or more feature flags.
    disable              Turn off one or more feature flags, i.e. set their
                         level to zero.
    version-mapping      Show which feature levels a metadata version
                         implies. Without --release-version, the newest
                         stable metadata version is shown
    feature-dependencies
                         Show what a feature level depends on. Unknown
                         features or undefined levels produce an error.
                         More than one feature may be given.

optional arguments:
  -h, --help             Print this help screen and exit.
  --bootstrap-server BOOTSTRAP_SERVER
                         Broker addresses (host:port, comma separated) used
                         to reach the cluster.
  --bootstrap-controller BOOTSTRAP_CONTROLLER
                         Controller addresses (host:port, comma separated)
                         used to reach the KRaft quorum.
  --command-config COMMAND_CONFIG
                         Properties file with settings for the admin
                         client.
)";

constexpr const char* k_describe_help =
    R"(usage: kafka-features describe [-h] [--node-id NODE_ID]

optional arguments:
  -h, --help             Print this help screen and exit.
  --node-id NODE_ID      Send the request to this node. By default any
                         broker or controller may answer.
)";

constexpr const char* k_upgrade_help =
    R"(usage: kafka-features upgrade [-h] [--metadata METADATA]
                      [--release-version RELEASE_VERSION]
                      [--feature FEATURE] [--dry-run]

optional arguments:
  -h, --help             Print this help screen and exit.
  --metadata METADATA    Deprecated: metadata version to raise to, e.g.
                         3.3-IV3.
  --release-version RELEASE_VERSION
                         Raise every feature to the levels of this release,
                         e.g. 3.9-IV0 gives metadata.version=21 and
                         kraft.version=1. Run version-mapping to see what
                         each version sets.
  --feature FEATURE      Feature level to raise, written as feature=level,
                         e.g. `metadata.version=5`.
  --dry-run              Check the upgrade without applying it.
)";

constexpr const char* k_downgrade_help =
    R"(usage: kafka-features downgrade [-h] [--metadata METADATA]
                      [--release-version RELEASE_VERSION]
                      [--feature FEATURE] [--unsafe] [--dry-run]

optional arguments:
  -h, --help             Print this help screen and exit.
  --metadata METADATA    Deprecated: metadata version to lower to, e.g.
                         3.3-IV0.
  --release-version RELEASE_VERSION
                         Lower every feature to the levels of this release,
                         e.g. 3.9-IV0 gives metadata.version=21 and
                         kraft.version=1. Run version-mapping to see what
                         each version sets.
  --feature FEATURE      Feature level to lower, written as feature=level,
                         e.g. `metadata.version=5`.
  --unsafe               Go ahead with the downgrade even when metadata
                         could be lost for good.
  --dry-run              Check the downgrade without applying it.
)";

constexpr const char* k_disable_help =
    R"(usage: kafka-features disable [-h] [--feature FEATURE] [--unsafe]
                      [--dry-run]

optional arguments:
  -h, --help             Print this help screen and exit.
  --feature FEATURE      Feature flag to turn off.
  --unsafe               Turn the flag off even when metadata could be lost
                         for good.
  --dry-run              Check the disable without applying it.
)";

constexpr const char* k_version_mapping_help =
    R"(usage: kafka-features version-mapping [-h]
                      [--release-version RELEASE_VERSION]

optional arguments:
  -h, --help             Print this help screen and exit.
  --release-version RELEASE_VERSION
                         Release whose feature levels are shown. Lowest
                         accepted: 3.3-IV3; default: 4.3-IV0
)";

constexpr const char* k_feature_dependencies_help =
    R"(usage: kafka-features feature-dependencies [-h] --feature FEATURE

optional arguments:
  -h, --help             Print this help screen and exit.
  --feature FEATURE      Feature level whose dependencies are shown,
                         written as feature=version, e.g.
                         `metadata.version=5`.
)";

}  // namespace

cli::arg_parser features_parser() {
  const std::string prog = "kafka-features";
  cli::arg_parser describe(prog, k_describe_help);
  describe.add({{"--node-id"}, cli::arg_option::kind::store, false, true});

  cli::arg_parser upgrade(prog, k_upgrade_help);
  upgrade.store({"--metadata"}).store({"--release-version"}).append({"--feature"}).store_true({"--dry-run"});

  cli::arg_parser downgrade(prog, k_downgrade_help);
  downgrade.store({"--metadata"}).store({"--release-version"}).append({"--feature"});
  downgrade.store_true({"--unsafe"}).store_true({"--dry-run"});

  cli::arg_parser disable(prog, k_disable_help);
  disable.append({"--feature"}).store_true({"--unsafe"}).store_true({"--dry-run"});

  cli::arg_parser version_mapping(prog, k_version_mapping_help);
  version_mapping.store({"--release-version"});

  cli::arg_parser feature_dependencies(prog, k_feature_dependencies_help);
  feature_dependencies.append({"--feature"}, true);

  cli::arg_parser main(prog, k_main_help);
  const int bootstrap = main.mutex_group(false);
  main.store({"--bootstrap-server"}, false, bootstrap).store({"--bootstrap-controller"}, false, bootstrap);
  main.store({"--command-config"});
  main.command("describe", describe).command("upgrade", upgrade).command("downgrade", downgrade);
  main.command("disable", disable).command("version-mapping", version_mapping);
  main.command("feature-dependencies", feature_dependencies);
  return main;
}

}  // namespace hw::tools
