// kafka-delegation-tokens.sh's command line: joptsimple's errors, the help
// and version, DelegationTokenCommand's checks in its order, the admin
// client's settings as Admin.create checks them, and each option's value
// read where the command first asks for it (some after the "Calling ..."
// line), all failing before any connection with what Kafka 4.3.1's tool
// printed for the same arguments (stack frames aside).

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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
  r.status = kafka_delegation_tokens(args, {out, err});
  r.out = out.str();
  r.err = err.str();
  return r;
}

// What the command's mainNoExit prints for a Throwable: its message, then
// its trace's exception lines (frames aside) and the empty line println adds.
std::string thrown(const std::string& cls, const std::string& message, const std::vector<std::string>& causes = {}) {
  std::string text = message + "\n" + cls + ": " + message + "\n";
  for (const auto& c : causes) text += "Caused by: " + c + "\n";
  return text + "\n";
}

// printUsageAndExit: the message, then the option table; exit status 1.
void expect_usage(const run_result& r, const std::string& message) {
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with(message + "\nOption ")) << r.err;
  EXPECT_NE(r.err.find("--max-life-time-period [Long]"), std::string::npos) << r.err;
}

const char* const k_npe_unboxing =
    "Cannot invoke \"java.lang.Long.longValue()\" because the return value of "
    "\"joptsimple.OptionSet.valueOf(joptsimple.OptionSpec)\" is null";

class DelegationTokensCommandLine : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hw-dtokens-parse-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    config_ = file("client.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
                                        "required username=\"alice\" password=\"alice-secret\";\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
  // The arguments after a bootstrap address nothing listens on and the config.
  std::vector<std::string> with(std::vector<std::string> args, const std::string& config = "") const {
    args.insert(args.begin(), {"--bootstrap-server", "127.0.0.1:1", "--command-config", config.empty() ? config_ : config});
    return args;
  }

  std::string dir_, config_;
};

TEST_F(DelegationTokensCommandLine, HelpVersionAndJoptsimpleErrors) {
  for (const auto& args : {std::vector<std::string>{}, {"--help"}, {"--describe", "--help"}}) {
    auto r = run(args);
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.err.starts_with("This tool helps to create, renew, expire, or describe delegation tokens.\nOption"))
        << r.err;
  }
  auto v = run({"--version", "--create"});
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out, "4.3.1\n");

  auto bogus = run({"--describe", "--bogus"});
  EXPECT_EQ(bogus.status, 1);
  EXPECT_EQ(bogus.err, thrown("joptsimple.UnrecognizedOptionException", "bogus is not a recognized option"));
  auto missing = run({"--describe", "--bootstrap-server"});
  EXPECT_EQ(missing.err,
            thrown("joptsimple.OptionMissingRequiredArgumentException", "Option bootstrap-server requires an argument"));
  // A parse error wins over --help, as joptsimple parses first.
  EXPECT_EQ(run({"--help", "--bogus"}).err, bogus.err);
}

TEST_F(DelegationTokensCommandLine, ChecksInKafkasOrder) {
  expect_usage(run({"--create"}), "Missing required argument \"[bootstrap-server]\"");
  expect_usage(run({"--create", "--describe"}),
               "Command must include exactly one action: --create, --renew, --expire or --describe");
  expect_usage(run({"--bootstrap-server", "x"}),
               "Command must include exactly one action: --create, --renew, --expire or --describe");
  expect_usage(run({"--bootstrap-server", "x", "--create"}), "Missing required argument \"[command-config]\"");
  const std::vector<std::string> base{"--bootstrap-server", "x", "--command-config", "x"};
  auto plus = [&](std::vector<std::string> more) {
    auto all = base;
    all.insert(all.end(), more.begin(), more.end());
    return run(all);
  };
  expect_usage(plus({"--create"}), "Missing required argument \"[max-life-time-period]\"");
  expect_usage(plus({"--renew"}), "Missing required argument \"[hmac]\"");
  expect_usage(plus({"--renew", "--hmac"}), "Missing required argument \"[renew-time-period]\"");
  expect_usage(plus({"--expire", "--hmac"}), "Missing required argument \"[expiry-time-period]\"");
  expect_usage(plus({"--create", "--max-life-time-period", "--hmac", "x"}),
               "Option \"[create]\" can't be used with option \"[hmac]\"");
  expect_usage(plus({"--create", "--max-life-time-period", "1", "--expiry-time-period", "1"}),
               "Option \"[create]\" can't be used with option \"[expiry-time-period]\"");
  expect_usage(plus({"--renew", "--hmac", "x", "--renew-time-period", "1", "--owner-principal", "User:a"}),
               "Option \"[renew]\" can't be used with option \"[owner-principal]\"");
  expect_usage(plus({"--renew", "--hmac", "x", "--renew-time-period", "1", "--renewer-principal"}),
               "Option \"[renew]\" can't be used with option \"[renewer-principal]\"");
  expect_usage(plus({"--expire", "--hmac", "x", "--expiry-time-period", "1", "--max-life-time-period", "1"}),
               "Option \"[expire]\" can't be used with option \"[max-life-time-period]\"");
  expect_usage(plus({"--describe", "--hmac", "x"}), "Option \"[describe]\" can't be used with option \"[hmac]\"");
  expect_usage(plus({"--describe", "--renew-time-period", "5"}),
               "Option \"[describe]\" can't be used with option \"[renew-time-period]\"");
}

TEST_F(DelegationTokensCommandLine, AdminClientSettingsAsAdminCreateChecksThem) {
  const std::string missing = dir_ + "/missing.properties";
  EXPECT_EQ(run(with({"--describe"}, missing)).err, thrown("java.nio.file.NoSuchFileException", missing));
  EXPECT_EQ(run(with({"--describe"}, dir_)).err, thrown("java.io.IOException", "Is a directory"));
  auto r = run({"--bootstrap-server", "nowhere", "--command-config", config_, "--describe"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, thrown("org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient",
                          {"org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: nowhere"}));
  EXPECT_EQ(run({"--bootstrap-server", "a:1", "--bootstrap-server", "b:1", "--command-config", config_, "--describe"}).err,
            thrown("joptsimple.MultipleArgumentsForOptionException",
                   "Found multiple arguments for option bootstrap-server, but you asked for only one"));
  // The config's values are checked before the bootstrap address.
  const std::string bad_protocol = file("bad-protocol.properties", "security.protocol=FOO\n");
  const std::string invalid =
      "Invalid value FOO for configuration security.protocol: String must be one of (case insensitive): SASL_SSL, "
      "PLAINTEXT, SSL, SASL_PLAINTEXT";
  EXPECT_EQ(run({"--bootstrap-server", "nowhere", "--command-config", bad_protocol, "--describe"}).err,
            thrown("org.apache.kafka.common.config.ConfigException", invalid));
  const std::string bad_jaas =
      file("bad-jaas.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=foo\n");
  EXPECT_EQ(run(with({"--describe"}, bad_jaas)).err,
            thrown("org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient",
                   {"org.apache.kafka.common.KafkaException: Failed to create new NetworkClient",
                    "java.lang.IllegalArgumentException: Login module control flag not specified in JAAS config"}));
  const std::string no_jaas = file("no-jaas.properties", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n");
  const char* kafka_opts = getenv("KAFKA_OPTS");
  const std::string saved = kafka_opts ? kafka_opts : "";
  unsetenv("KAFKA_OPTS");
  EXPECT_EQ(run(with({"--describe"}, no_jaas)).err,
            thrown("org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient",
                   {"org.apache.kafka.common.KafkaException: Failed to create new NetworkClient",
                    "java.lang.IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS "
                    "configuration. System property 'java.security.auth.login.config' is not set"}));
  if (kafka_opts) setenv("KAFKA_OPTS", saved.c_str(), 1);
}

TEST_F(DelegationTokensCommandLine, ValuesReadWhereTheCommandAsksForThem) {
  for (const auto& args : {std::vector<std::string>{"--create", "--max-life-time-period"},
                           {"--create", "--max-life-time-period", "abc"},
                           {"--create", "--max-life-time-period", "99999999999999999999"},
                           {"--renew", "--hmac", "AAAA", "--renew-time-period"},
                           {"--expire", "--hmac", "AAAA", "--expiry-time-period", "--", "5"}}) {
    auto r = run(with(args));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, thrown("java.lang.NullPointerException", k_npe_unboxing));
  }
  auto unparsable = run(with({"--create", "--max-life-time-period=abc"}));
  EXPECT_EQ(unparsable.err,
            thrown("joptsimple.OptionArgumentConversionException", "Cannot parse argument 'abc' of option max-life-time-period",
                   {"joptsimple.internal.ReflectionException: java.lang.NumberFormatException: For input string: \"abc\"",
                    "java.lang.NumberFormatException: For input string: \"abc\""}));
  EXPECT_EQ(run(with({"--create", "--max-life-time-period", "1", "--max-life-time-period", "2"})).err,
            thrown("joptsimple.MultipleArgumentsForOptionException",
                   "Found multiple arguments for option max-life-time-period, but you asked for only one"));
  EXPECT_EQ(run(with({"--renew", "--hmac", "a", "--hmac", "b", "--renew-time-period", "1"})).err,
            thrown("joptsimple.MultipleArgumentsForOptionException",
                   "Found multiple arguments for option hmac, but you asked for only one"));

  const std::string bad_principal = "expected a string in format principalType:principalName but got bob";
  auto renewer = run(with({"--create", "--max-life-time-period", "-1", "--renewer-principal", " bob "}));
  EXPECT_EQ(renewer.out, "");
  EXPECT_EQ(renewer.err, thrown("java.lang.IllegalArgumentException", bad_principal));
  // The owner is read after the first line is printed.
  auto owner = run(with({"--create", "--max-life-time-period", "-1", "--renewer-principal", "User:x", "--owner-principal", "bob"}));
  EXPECT_EQ(owner.status, 1);
  EXPECT_EQ(owner.out, "Calling create token operation with renewers :[User:x] , max-life-time-period :-1\n");
  EXPECT_EQ(owner.err, thrown("java.lang.IllegalArgumentException", bad_principal));
  auto described = run(with({"--describe", "--owner-principal", "User:a", "--owner-principal", "bob"}));
  EXPECT_EQ(described.out, "");
  EXPECT_EQ(described.err, thrown("java.lang.IllegalArgumentException", bad_principal));
  EXPECT_EQ(run(with({"--describe", "--owner-principal="})).err,
            thrown("java.lang.IllegalArgumentException",
                   "expected a string in format principalType:principalName but got "));

  // The HMAC is decoded after the first line.
  auto bad_hmac = run(with({"--renew", "--hmac", "!!!", "--renew-time-period", "1"}));
  EXPECT_EQ(bad_hmac.out, "Calling renew token operation with hmac :!!! , renew-time-period :1\n");
  EXPECT_EQ(bad_hmac.err, thrown("java.lang.IllegalArgumentException", "Illegal base64 character 21"));
  auto no_hmac = run(with({"--expire", "--hmac", "--expiry-time-period", "-1"}));
  EXPECT_EQ(no_hmac.out, "Calling expire token operation with hmac :null , expire-time-period :-1\n");
  EXPECT_EQ(no_hmac.err,
            thrown("java.lang.NullPointerException",
                   "Cannot invoke \"String.getBytes(java.nio.charset.Charset)\" because \"src\" is null"));
}

}  // namespace
}  // namespace hw::tools
