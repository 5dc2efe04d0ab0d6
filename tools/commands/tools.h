#pragma once
// Every native tool, by the name of Kafka's script it stands for. Adding a
// tool: its function here, its row in main.cc's table, its name in
// tools/tool_names.txt (the links the install makes).

#include "tools/commands/command.h"

namespace hw::tools {

int kafka_metadata_quorum(tool_args args, tool_io io);
int kafka_features(tool_args args, tool_io io);
int kafka_storage(tool_args args, tool_io io);
int kafka_consumer_groups(tool_args args, tool_io io);
int kafka_get_offsets(tool_args args, tool_io io);
int kafka_console_producer(tool_args args, tool_io io);
int kafka_console_consumer(tool_args args, tool_io io);
int kafka_topics(tool_args args, tool_io io);
int kafka_configs(tool_args args, tool_io io);
int kafka_leader_election(tool_args args, tool_io io);
int kafka_transactions(tool_args args, tool_io io);
int kafka_dump_log(tool_args args, tool_io io);
int kafka_acls(tool_args args, tool_io io);
int kafka_delegation_tokens(tool_args args, tool_io io);
int kafka_cluster(tool_args args, tool_io io);

}  // namespace hw::tools
