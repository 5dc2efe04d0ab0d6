#pragma once
// kafka-metadata-quorum.sh (Kafka's MetadataQuorumCommand): describe
// --status and describe --replication through DescribeQuorum, sent to any
// broker (--bootstrap-server) or to the active controller
// (--bootstrap-controller), as Kafka's admin client routes it.
// add-controller and remove-controller are refused by name.

#include "tools/cli/argparse.h"
#include "tools/commands/command.h"
#include "tools/commands/metadata_quorum_format.h"

namespace hw::tools {

// The command line with Kafka's options, sub-commands and help screens.
cli::arg_parser metadata_quorum_parser();

}  // namespace hw::tools
