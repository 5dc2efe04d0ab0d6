// The argparse4j command line of kafka-metadata-quorum.sh and
// kafka-storage.sh: values, abbreviations, and the error text Kafka 4.3.1's
// Java tools printed for the same arguments (captured from their runs).

#include <gtest/gtest.h>

#include "tools/cli/argparse.h"
#include "tools/commands/metadata_quorum.h"
#include "tools/commands/storage_tool.h"

namespace hw::tools {
namespace {

struct error_case {
  const char* name;
  cli::arg_parser (*parser)();
  std::vector<std::string> args;
  const char* java_stderr;
};

const error_case k_cases[] = {
  {"q_nobootstrap", metadata_quorum_parser, {"describe", "--status"},
   R"(usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]
                             (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             {describe,add-controller,remove-controller}
                             ...
kafka-metadata-quorum: error: one  of  the  arguments --bootstrap-server --
bootstrap-controller is required
)"},
  {"q_both", metadata_quorum_parser, {"--bootstrap-server", "b:1", "--bootstrap-controller", "b:1", "describe", "--status"},
   R"(usage: kafka-metadata-quorum [-h] [--command-config COMMAND_CONFIG]
                             (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             {describe,add-controller,remove-controller}
                             ...
kafka-metadata-quorum: error: argument  --bootstrap-controller: not allowed
with argument --bootstrap-server
)"},
  {"q_unknown_did", metadata_quorum_parser, {"--bootstrap-server", "b:1", "describe", "--replicatoin"},
   R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             describe [-h] [--status] [--replication]
                             [--human-readable]
kafka-metadata-quorum: error: unrecognized arguments: '--replicatoin'

Did you mean:
	--replication
)"},
  {"q_rm_badid", metadata_quorum_parser, {"--bootstrap-server", "b:1", "remove-controller", "-i", "x", "-d", "y"},
   R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             remove-controller [-h]
                             --controller-id CONTROLLER_ID
                             --controller-directory-id CONTROLLER_DIRECTORY_ID
                             [--dry-run]
kafka-metadata-quorum:  error:  argument   --controller-id/-i:   could  not
convert 'x' to Integer (For input string: "x")
)"},
  {"q_ambig_cmd", metadata_quorum_parser, {"--bootstrap-server", "b:1", "re"},
   R"(usage: kafka-metadata-quorum (--bootstrap-server BOOTSTRAP_SERVER |
                             --bootstrap-controller BOOTSTRAP_CONTROLLER)
                             remove-controller [-h]
                             --controller-id CONTROLLER_ID
                             --controller-directory-id CONTROLLER_DIRECTORY_ID
                             [--dry-run]
kafka-metadata-quorum:  error:  argument   --controller-directory-id/-d  is
required
)"},
  {"s_badcmd", storage_parser, {"frob"},
   R"(usage: kafka-storage [-h]
                     {info,format,version-mapping,feature-dependencies,random-uuid}
                     ...
kafka-storage:  error:  invalid   choice:   'frob'   (choose  from  'info',
'format', 'version-mapping', 'feature-dependencies', 'random-uuid')

Did you mean:
	format
)"},
  {"s_format_none", storage_parser, {"format"},
   R"(usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID
                     [--add-scram ADD_SCRAM] [--ignore-formatted]
                     [--release-version RELEASE_VERSION]
                     [--feature FEATURE] [--standalone |
                     --no-initial-controllers |
                     --initial-controllers INITIAL_CONTROLLERS]
kafka-storage: error: argument --cluster-id/-t is required
)"},
  {"s_format_g_eq", storage_parser, {"format", "-c", "x", "-t", "y", "-g=1"},
   R"(usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID
                     [--add-scram ADD_SCRAM] [--ignore-formatted]
                     [--release-version RELEASE_VERSION]
                     [--feature FEATURE] [--standalone |
                     --no-initial-controllers |
                     --initial-controllers INITIAL_CONTROLLERS]
kafka-storage:  error:  argument   --ignore-formatted/-g:  ignore  implicit
argument '1'
)"},
  {"s_mutex", storage_parser, {"format", "-c", "x", "-t", "y", "-s", "-N"},
   R"(usage: kafka-storage format [-h] --config CONFIG --cluster-id CLUSTER_ID
                     [--add-scram ADD_SCRAM] [--ignore-formatted]
                     [--release-version RELEASE_VERSION]
                     [--feature FEATURE] [--standalone |
                     --no-initial-controllers |
                     --initial-controllers INITIAL_CONTROLLERS]
kafka-storage: error:  argument  --no-initial-controllers/-N:  not  allowed
with argument --standalone/-s
)"},
  {"s_ru_extra", storage_parser, {"random-uuid", "foo"},
   R"(usage: kafka-storage random-uuid [-h]
kafka-storage: error: unrecognized arguments: 'foo'
)"},
};

TEST(QuorumArgparse, ErrorsAsKafkasJavaToolPrintsThem) {
  for (const auto& c : k_cases) {
    SCOPED_TRACE(c.name);
    const cli::arg_parser p = c.parser();
    cli::arg_values v;
    cli::arg_error e;
    ASSERT_FALSE(p.parse(c.args, &v, &e));
    ASSERT_EQ(e.what, cli::arg_error::kind::usage);
    EXPECT_EQ(cli::format_arg_error(e), c.java_stderr);
  }
}

TEST(QuorumArgparse, ValuesAbbreviationsAndShortForms) {
  const cli::arg_parser q = metadata_quorum_parser();
  cli::arg_values v;
  cli::arg_error e;
  std::vector<std::string> args{"--bootstrap-s=h:1", "desc", "--repl", "--human"};
  ASSERT_TRUE(q.parse(args, &v, &e)) << e.message;
  EXPECT_EQ(v.command(), "describe");
  EXPECT_EQ(v.value("bootstrap_server"), "h:1");
  EXPECT_TRUE(v.has("replication") && v.has("human_readable") && !v.has("status"));

  const cli::arg_parser s = storage_parser();
  args = {"format", "-cFILE", "-t", "id", "-gN"};
  ASSERT_TRUE(s.parse(args, &v, &e)) << e.message;
  EXPECT_EQ(v.value("config"), "FILE");
  EXPECT_EQ(v.value("cluster_id"), "id");
  EXPECT_TRUE(v.has("ignore_formatted") && v.has("no_initial_controllers"));
}

TEST(QuorumArgparse, HelpAndUnsupportedAreNotParseErrors) {  // and the voter commands parse
  const cli::arg_parser q = metadata_quorum_parser();
  cli::arg_values v;
  cli::arg_error e;
  std::vector<std::string> args{"describe", "-h"};
  ASSERT_FALSE(q.parse(args, &v, &e));
  EXPECT_EQ(e.what, cli::arg_error::kind::help);
  EXPECT_EQ(e.parser->help().rfind("usage: kafka-metadata-quorum (--bootstrap-server", 0), 0u);
  args = {"--bootstrap-server", "h:1", "remove-controller", "-i", "1", "-d", "x"};
  ASSERT_TRUE(q.parse(args, &v, &e)) << e.message;
  EXPECT_EQ(v.command(), "remove-controller");
  EXPECT_EQ(v.value("controller_id"), "1");
  EXPECT_EQ(v.value("controller_directory_id"), "x");

  const cli::arg_parser s = storage_parser();
  args = {"format", "-c", "f", "-t", "i", "--feature", "kraft.version=1"};
  ASSERT_FALSE(s.parse(args, &v, &e));
  EXPECT_EQ(e.what, cli::arg_error::kind::unsupported);
  EXPECT_EQ(e.message, "Option --feature is not supported by this native tool");
}

TEST(QuorumArgparse, JavaWrapJustifiesLikeArgparse4j) {
  EXPECT_EQ(cli::java_wrap("kafka-storage: error: argument --cluster-id/-t is required\n", 75),
            "kafka-storage: error: argument --cluster-id/-t is required\n");
  EXPECT_EQ(cli::java_wrap("aaaa bbbb cccc\n", 10), "aaaa  bbbb\ncccc\n");
}

}  // namespace
}  // namespace hw::tools
