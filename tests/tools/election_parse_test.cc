// kafka-leader-election.sh's command line: joptsimple's errors, help and
// version, LeaderElectionCommand's checks in its order, and each option's
// value read as Kafka reads it (conversion errors, one value only, the
// files), all failing before any connection with what Kafka 4.3.1's tool
// printed for the same arguments.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "tools/commands/tools.h"

namespace hw::tools {
namespace {

struct run_result {
  int status = -1;
  std::string out, err;
};

run_result run(std::vector<std::string> args) {
  std::ostringstream out, err;
  run_result r;
  r.status = kafka_leader_election(args, {out, err});
  r.out = out.str();
  r.err = err.str();
  return r;
}

// What Kafka's main prints for an exception, stack frames aside.
std::string thrown(const std::string& cls, const std::string& message) {
  return message + "\n" + cls + ": " + message + "\n\n";
}

const std::string k_failed = "org.apache.kafka.tools.AdminCommandFailedException";
const std::vector<std::string> k_bootstrap = {"--bootstrap-server", "127.0.0.1:1"};

std::vector<std::string> with_bootstrap(std::vector<std::string> args) {
  args.insert(args.begin(), k_bootstrap.begin(), k_bootstrap.end());
  return args;
}

TEST(ElectionParse, HelpAndVersion) {
  auto none = run({});
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(none.out.empty());
  EXPECT_NE(none.err.find("--election-type <[PREFERRED,UNCLEAN]: election type>"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("--path-to-json-file <String: Path to JSON file>"), std::string::npos);
  EXPECT_EQ(run({"--version", "--help"}).status, 1) << "help wins";
  auto version = run({"--version", "extra"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, "4.3.1\n");
}

TEST(ElectionParse, JoptsimpleErrors) {
  auto unknown = run({"--help", "--foo"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(unknown.err, thrown("joptsimple.UnrecognizedOptionException", "foo is not a recognized option"));
  EXPECT_EQ(run({"--topic"}).err,
            thrown("joptsimple.OptionMissingRequiredArgumentException", "Option topic requires an argument"));
  // A flag's =value is dropped, as joptsimple drops it: the checks go on.
  EXPECT_EQ(run({"--all-topic-partitions=yes"}).err,
            thrown(k_failed, "Missing required option(s): bootstrap-server, election-type"));
}

TEST(ElectionParse, ChecksInKafkasOrder) {
  EXPECT_EQ(run({"--topic", "t"}).err, thrown(k_failed, "Missing required option(s): bootstrap-server, election-type"));
  EXPECT_EQ(run(with_bootstrap({"--topic", "t"})).err, thrown(k_failed, "Missing required option(s): election-type"));
  auto both = run(with_bootstrap({"--election-type", "x", "--admin.config", "a", "--command-config", "b"}));
  EXPECT_EQ(both.status, 1);
  EXPECT_EQ(both.err.rfind("Option \"[admin.config]\" can't be used with option \"[command-config]\"\nOption", 0), 0u)
      << both.err;
  const std::string one_of =
      "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file";
  EXPECT_EQ(run(with_bootstrap({"--election-type", "x"})).err, thrown(k_failed, one_of));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "x", "--topic", "t", "--all-topic-partitions"})).err,
            thrown(k_failed, one_of));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "x", "--topic", "t"})).err,
            thrown(k_failed, "Missing required option(s): partition"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "x", "--all-topic-partitions", "--partition", "1"})).err,
            thrown(k_failed, "Option partition is only allowed if topic is used"));
}

TEST(ElectionParse, ValuesAsKafkaConvertsThem) {
  const std::string conversion = "joptsimple.OptionArgumentConversionException";
  const std::string multiple = "joptsimple.MultipleArgumentsForOptionException";
  EXPECT_EQ(run(with_bootstrap({"--election-type", "foo", "--all-topic-partitions"})).err,
            thrown(conversion, "Cannot parse argument 'foo' of option election-type"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "", "--all-topic-partitions"})).err,
            thrown(conversion, "Cannot parse argument '' of option election-type"));
  // The election type is read first, every value converted before the count is checked.
  EXPECT_EQ(run(with_bootstrap({"--election-type", "Preferred", "--topic", "t", "--partition", "1", "--partition",
                                "x", "--election-type", "y"}))
                .err,
            thrown(conversion, "Cannot parse argument 'y' of option election-type"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "preferred", "--election-type", "UNCLEAN", "--all-topic-partitions"}))
                .err,
            thrown(multiple, "Found multiple arguments for option election-type, but you asked for only one"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "unclean", "--topic", "t", "--partition", "abc"})).err,
            thrown(conversion, "Cannot parse argument 'abc' of option partition"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "unclean", "--topic", "t", "--partition", "1", "--partition", "2"}))
                .err,
            thrown(multiple, "Found multiple arguments for option partition, but you asked for only one"));
  EXPECT_EQ(run(with_bootstrap({"--election-type", "unclean", "--path-to-json-file", "a", "--path-to-json-file", "b"}))
                .err,
            thrown(multiple, "Found multiple arguments for option path-to-json-file, but you asked for only one"));
  // --bootstrap-server is read last, after the config file.
  EXPECT_EQ(run({"--bootstrap-server", "a:1", "--bootstrap-server", "b:1", "--election-type", "preferred",
                 "--all-topic-partitions"})
                .err,
            thrown(multiple, "Found multiple arguments for option bootstrap-server, but you asked for only one"));
}

TEST(ElectionParse, FilesAsKafkaReadsThem) {
  EXPECT_EQ(run(with_bootstrap({"--election-type", "preferred", "--path-to-json-file", "/nonexistent/e.json"})).err,
            thrown("java.lang.RuntimeException", "java.io.IOException: Unable to read file /nonexistent/e.json"));
  auto admin = run(with_bootstrap({"--election-type", "preferred", "--all-topic-partitions", "--admin.config",
                                   "/nonexistent/a.properties"}));
  EXPECT_EQ(admin.out,
            "Option --admin.config has been deprecated and will be removed in a future version. Use --command-config "
            "instead.\n");
  EXPECT_EQ(admin.err, thrown("java.nio.file.NoSuchFileException", "/nonexistent/a.properties"));

  // A config whose API timeout is below the request timeout (15 s unless
  // set) fails the admin client's creation, before any connection.
  const std::string config = std::filesystem::temp_directory_path() / ("election-parse-" + std::to_string(getpid()));
  std::ofstream(config) << "default.api.timeout.ms=4000\n";
  auto small = run(with_bootstrap({"--election-type", "preferred", "--all-topic-partitions", "--command-config", config}));
  EXPECT_EQ(small.err, thrown("org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient"));
  std::ofstream(config) << "default.api.timeout.ms = abc\n";
  auto bad = run(with_bootstrap({"--election-type", "preferred", "--all-topic-partitions", "--command-config", config}));
  EXPECT_EQ(bad.err, thrown("org.apache.kafka.common.config.ConfigException",
                            "Invalid value abc for configuration default.api.timeout.ms: Not a number of type INT"));
  std::filesystem::remove(config);

  for (const char* servers : {"localhost", "127.0.0.1:99999", ""}) {
    auto r = run({"--bootstrap-server", servers, "--election-type", "unclean", "--all-topic-partitions"});
    EXPECT_EQ(r.err, thrown("org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient"))
        << servers;
  }
}

}  // namespace
}  // namespace hw::tools
