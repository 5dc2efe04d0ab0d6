// The native tools with Kafka's client security keys against one highwater
// broker with every kind of listener (PLAINTEXT, SSL, SSL with client
// certificates required, SASL_PLAINTEXT and SASL_SSL with PLAIN and
// SCRAM-SHA-256), Kafka 4.3.1's Java tools run with the same arguments and
// the same properties files: kafka-topics.sh --command-config creates,
// lists and describes alike, the console producer and consumer
// (--producer.config / --consumer.config) carry records both ways, and the
// refusals (a wrong password, a CA the client does not trust, a host name
// the certificate does not name) print the Java tool's line and exit 1.
// SCRAM's user is made first with kafka-configs.sh over PLAINTEXT.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <tuple>

#include "broker_process.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_password = "store-secret";
const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";
const char* const k_plain_server_jaas =
    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"admin-secret\" "
    "user_admin=\"admin-secret\" user_alice=\"alice-secret\";";
const char* const k_scram_server_jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;";

std::string login(const std::string& module, const std::string& user, const std::string& password) {
  return "sasl.jaas.config=org.apache.kafka.common.security." + module + " required username=\"" + user +
         "\" password=\"" + password + "\";\n";
}

bool stack_frame(const std::string& line) { return line.starts_with("\tat ") || line.starts_with("\t... "); }

bool log_record(const std::string& line) {
  static const std::regex record(R"(^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] .*)");
  return std::regex_match(line, record);
}

// An admin tool's stderr as both tools print it: without the Java admin
// client's own log records (the failed login, the fatal metadata error and
// the exception logged with it), which are its logging rather than the
// tool's output, and without stack frames; the exception lines stay.
std::vector<std::string> admin_messages(const tool_result& r) {
  static const std::regex exception(R"(^[a-z][\w.$]*\.[A-Z][\w$]*(Exception|Error)(: .*)?$)");
  std::vector<std::string> out;
  bool after_record = false, in_logged_trace = false;
  for (const auto& line : lines_of(r.err)) {
    if (log_record(line)) {
      after_record = true;
      in_logged_trace = false;
      continue;
    }
    if (after_record && std::regex_match(line, exception)) {  // the record's exception
      after_record = false;
      in_logged_trace = true;
      continue;
    }
    after_record = false;
    if (stack_frame(line) || jvm_log_line(line) || (in_logged_trace && line.starts_with("Caused by: "))) continue;
    in_logged_trace = false;
    out.push_back(line);
  }
  return out;
}

// A console tool's stderr: log records without their timestamps, no stack
// frames, and without the network client's "Bootstrap broker ...
// disconnected" warning, which Java's network thread logs racing the
// tool's own error line (and the native tools never print).
std::vector<std::string> console_messages(const tool_result& r) {
  std::vector<std::string> out;
  for (auto line : lines_of(r.err)) {
    if (stack_frame(line) || jvm_log_line(line) || line.ends_with("disconnected (org.apache.kafka.clients.NetworkClient)"))
      continue;
    if (log_record(line)) line = line.substr(line.find("] ") + 2);
    out.push_back(line);
  }
  return out;
}

std::string both(const tool_result& java, const tool_result& native) {
  return "\njava (exit " + std::to_string(java.exit_code) + "):\n" + java.all() + "native (exit " +
         std::to_string(native.exit_code) + "):\n" + native.all();
}

class NativeSecurityIT : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new broker_process();
    certs_ = broker_->dir() + "/certs";
    for (const auto& [dir, client] : {std::pair{certs_, "alice"}, std::pair{certs_ + "/other", "mallory"}}) {
      const std::string cmd = std::string(HW_SOURCE_DIR) + "/scripts/make-certs.sh " + dir + " --password " +
                              k_password + " --hosts localhost --clients " + client + " >/dev/null 2>&1";
      if (std::system(cmd.c_str()) != 0) {
        start_error_ = "scripts/make-certs.sh failed";
        return;
      }
    }
    const bool up = broker_->start({
        "--override",
        "listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,"
        "SASL_SSL://127.0.0.1:0",
        "--override",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,"
        "SASL_SSL:SASL_SSL",
        "--override", "inter.broker.listener.name=PLAINTEXT",
        "--override", "ssl.keystore.type=PKCS12",
        "--override", "ssl.keystore.location=" + certs_ + "/localhost.keystore.p12",
        "--override", std::string("ssl.keystore.password=") + k_password,
        "--override", "listener.name.mtls.ssl.client.auth=required",
        "--override", "listener.name.mtls.ssl.truststore.type=PKCS12",
        "--override", "listener.name.mtls.ssl.truststore.location=" + certs_ + "/truststore.p12",
        "--override", std::string("listener.name.mtls.ssl.truststore.password=") + k_password,
        "--override", "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
        "--override", std::string("listener.name.sasl_plaintext.plain.sasl.jaas.config=") + k_plain_server_jaas,
        "--override", std::string("listener.name.sasl_ssl.plain.sasl.jaas.config=") + k_plain_server_jaas,
        "--override", std::string("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=") + k_scram_server_jaas,
        "--override", std::string("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=") + k_scram_server_jaas,
        "--override", "group.initial.rebalance.delay.ms=0",
    });
    if (!up) start_error_ = broker_->log();
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(start_error_.empty()) << start_error_; }
  void TearDown() override {
    if (HasFailure() && broker_) ADD_FAILURE() << "broker log:\n" << tail(broker_->log(), 4000);
  }

  // A properties file in the broker's directory.
  static std::string properties(const std::string& name, const std::string& text) {
    const std::string path = broker_->dir() + "/" + name + ".properties";
    std::ofstream(path) << text;
    return path;
  }
  static std::string trust_p12(const std::string& dir) {
    return "ssl.truststore.location=" + dir + "/truststore.p12\nssl.truststore.password=" + k_password +
           "\nssl.truststore.type=PKCS12\n";
  }
  static std::string address(const std::string& listener, const std::string& host = "localhost") {
    return host + ":" + std::to_string(broker_->port(listener));
  }

  static tool_result java_topics(const std::string& bootstrap, const std::string& config, std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap, "--command-config", config});
    return run_kafka_tool(broker_->dir(), k_topic_command, args);
  }
  static tool_result native_topics(const std::string& bootstrap, const std::string& config,
                                   std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap, "--command-config", config});
    return run_native_tool(broker_->dir(), "kafka-topics.sh", args);
  }

  // Both tools over one listener: each creates a topic of its own, then
  // both list and describe, and print the same.
  static void same_topics(const std::string& listener, const std::string& config, const std::string& tag) {
    const std::string at = address(listener);
    auto jc = java_topics(at, config, {"--create", "--topic", tag + "-java", "--partitions", "2"});
    auto nc = native_topics(at, config, {"--create", "--topic", tag + "-native", "--partitions", "2"});
    ASSERT_EQ(jc.exit_code, 0) << jc.all();
    ASSERT_EQ(nc.exit_code, 0) << nc.all();
    EXPECT_EQ(tool_lines(nc), std::vector<std::string>{"Created topic " + tag + "-native."}) << nc.all();
    EXPECT_EQ(tool_lines(jc), std::vector<std::string>{"Created topic " + tag + "-java."}) << jc.all();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--list"}, {"--describe", "--topic", tag + "-.*"}}) {
      auto java = java_topics(at, config, args);
      auto native = native_topics(at, config, args);
      EXPECT_EQ(native.exit_code, 0) << native.all();
      EXPECT_EQ(java.exit_code, 0) << java.all();
      EXPECT_EQ(tool_lines(native), tool_lines(java)) << listener << " " << args[0] << "\njava:\n"
                                                      << java.all() << "native:\n" << native.all();
    }
  }

  // The same refusal from both tools: Kafka's line on stdout, exit 1.
  static void same_refusal(const std::string& bootstrap, const std::string& config, const std::string& line) {
    auto java = java_topics(bootstrap, config, {"--list"});
    auto native = native_topics(bootstrap, config, {"--list"});
    EXPECT_EQ(java.exit_code, 1) << java.all();
    EXPECT_EQ(native.exit_code, 1) << native.all();
    EXPECT_EQ(tool_lines(java), std::vector<std::string>{line}) << java.all();
    EXPECT_EQ(tool_lines(native), tool_lines(java)) << "java:\n" << java.all() << "native:\n" << native.all();
    EXPECT_EQ(native.err.find(k_password), std::string::npos);
    EXPECT_EQ(native.out.find("secret"), std::string::npos);
  }

  static broker_process* broker_;
  static std::string certs_;
  static std::string start_error_;
};

broker_process* NativeSecurityIT::broker_ = nullptr;
std::string NativeSecurityIT::certs_;
std::string NativeSecurityIT::start_error_;

TEST_F(NativeSecurityIT, TopicsOverEveryKindOfListener) {
  same_topics("SSL", properties("ssl", "security.protocol=SSL\n" + trust_p12(certs_)), "ssl");
  // Mutual TLS: a PKCS12 key store and a PEM trust store.
  same_topics("MTLS",
              properties("mtls", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=" + certs_ +
                                     "/ca.crt\nssl.keystore.type=PKCS12\nssl.keystore.location=" + certs_ +
                                     "/alice.keystore.p12\nssl.keystore.password=" + k_password + "\n"),
              "mtls");
  // A PEM key store with its PBES2-encrypted key, which Java 17's PEM
  // reader cannot decrypt: the native tool alone.
  auto pem = native_topics(address("MTLS"),
                           properties("mtls-pem", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=" +
                                                      certs_ + "/ca.crt\nssl.keystore.type=PEM\nssl.keystore.location=" +
                                                      certs_ + "/alice.pem\nssl.key.password=" + k_password + "\n"),
                           {"--list"});
  EXPECT_EQ(pem.exit_code, 0) << pem.all();
  EXPECT_TRUE(printed_line(pem, "mtls-native")) << pem.all();
  // Without a client certificate the MTLS listener refuses: with TLS 1.3
  // its alert comes after the client's side of the handshake.
  same_refusal(address("MTLS"), properties("mtls-none", "security.protocol=SSL\n" + trust_p12(certs_)),
               "Error while executing topic command : Failed to process post-handshake messages");
  same_topics("SASL_PLAINTEXT",
              properties("plain", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
                                      login("plain.PlainLoginModule", "alice", "alice-secret")),
              "plain");
  same_topics("SASL_SSL",
              properties("sasl-ssl", "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
                                         login("plain.PlainLoginModule", "alice", "alice-secret") + trust_p12(certs_)),
              "saslssl");
}

TEST_F(NativeSecurityIT, ScramUserMadeOverPlaintextThenUsed) {
  auto made = run_native_tool(broker_->dir(), "kafka-configs.sh",
                              {"--bootstrap-server", address("PLAINTEXT"), "--alter", "--entity-type", "users",
                               "--entity-name", "bob", "--add-config", "SCRAM-SHA-256=[iterations=8192,password=bob-secret]"});
  ASSERT_EQ(made.exit_code, 0) << made.all();
  const std::string scram = "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\n";
  const std::string config = properties("scram", scram + login("scram.ScramLoginModule", "bob", "bob-secret"));
  // The credential reaches the broker through the metadata log: wait for it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  tool_result listed;
  do listed = native_topics(address("SASL_PLAINTEXT"), config, {"--list"});
  while (listed.exit_code != 0 && std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  same_topics("SASL_PLAINTEXT", config, "scram");
  same_refusal(address("SASL_PLAINTEXT"), properties("scram-wrong", scram + login("scram.ScramLoginModule", "bob", "nope")),
               "Error while executing topic command : Authentication failed during authentication due to invalid "
               "credentials with SASL mechanism SCRAM-SHA-256");
}

TEST_F(NativeSecurityIT, ConsoleProducerAndConsumerBothWays) {
  const std::string config =
      properties("console", "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n" +
                                login("plain.PlainLoginModule", "alice", "alice-secret") + trust_p12(certs_));
  const std::string at = address("SASL_SSL");
  auto created = native_topics(at, config, {"--create", "--topic", "lines", "--partitions", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  auto produced = run_native_tool(broker_->dir(), "kafka-console-producer.sh",
                                  {"--bootstrap-server", at, "--producer.config", config, "--topic", "lines"}, "n1\nn2\n");
  ASSERT_EQ(produced.exit_code, 0) << produced.all();
  auto jproduced = run_kafka_tool(broker_->dir(), "org.apache.kafka.tools.ConsoleProducer",
                                  {"--bootstrap-server", at, "--producer.config", config, "--topic", "lines"}, "j1\nj2\n");
  ASSERT_EQ(jproduced.exit_code, 0) << jproduced.all();
  const std::vector<std::string> consume{"--bootstrap-server", at,     "--consumer.config", config, "--topic",
                                         "lines",              "--from-beginning", "--max-messages", "4"};
  auto native = run_native_tool(broker_->dir(), "kafka-console-consumer.sh", consume);
  auto java = run_kafka_tool(broker_->dir(), "org.apache.kafka.tools.consumer.ConsoleConsumer", consume);
  ASSERT_EQ(native.exit_code, 0) << native.all();
  ASSERT_EQ(java.exit_code, 0) << java.all();
  EXPECT_EQ(tool_lines(native),
            (std::vector<std::string>{"Option --consumer.config is deprecated and will be removed in a future version. "
                                      "Use --command-config instead.",
                                      "n1", "n2", "j1", "j2"}))
      << native.all();
  EXPECT_EQ(tool_lines(native), tool_lines(java)) << java.all();
}

TEST_F(NativeSecurityIT, RefusalsAsKafkasToolPrintsThem) {
  const std::string plain = "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n";
  same_refusal(address("SASL_SSL"),
               properties("wrong-password", plain + login("plain.PlainLoginModule", "alice", "wrong") + trust_p12(certs_)),
               "Error while executing topic command : Authentication failed: Invalid username or password");
  same_refusal(address("SASL_SSL"),
               properties("untrusted", plain + login("plain.PlainLoginModule", "alice", "alice-secret") +
                                           trust_p12(certs_ + "/other")),
               "Error while executing topic command : SSL handshake failed");
  // The other admin tools a wrong password fails: the same exit code, stdout
  // and stderr (admin_messages) as Kafka's.
  const std::string wrong = properties("wrong-password-plaintext", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
                                                                      login("plain.PlainLoginModule", "alice", "guess-7341"));
  for (const auto& [tool, java_class, args] :
       std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
           {"kafka-configs.sh", "kafka.admin.ConfigCommand", {"--describe", "--entity-type", "brokers", "--entity-name", "1"}},
           {"kafka-consumer-groups.sh", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", {"--list"}},
           {"kafka-get-offsets.sh", "org.apache.kafka.tools.GetOffsetShell", {}},
           {"kafka-transactions.sh", "org.apache.kafka.tools.TransactionsCommand", {"list"}},
           {"kafka-leader-election.sh", "org.apache.kafka.tools.LeaderElectionCommand",
            {"--election-type", "preferred", "--all-topic-partitions"}},
           {"kafka-metadata-quorum.sh", "org.apache.kafka.tools.MetadataQuorumCommand", {"describe", "--status"}},
           {"kafka-features.sh", "org.apache.kafka.tools.FeatureCommand", {"describe"}},
       }) {
    std::vector<std::string> all{"--bootstrap-server", address("SASL_PLAINTEXT"), "--command-config", wrong};
    all.insert(all.end(), args.begin(), args.end());
    auto java = run_kafka_tool(broker_->dir(), java_class, all);
    auto native = run_native_tool(broker_->dir(), tool, all);
    EXPECT_EQ(native.exit_code, java.exit_code) << tool << both(java, native);
    EXPECT_EQ(tool_lines(native), tool_lines(java)) << tool << both(java, native);
    // kafka-consumer-groups.sh prints its error on stdout; the stack trace
    // Kafka's tool prints after it, for any failure, the native one leaves out.
    if (tool != "kafka-consumer-groups.sh") {
      EXPECT_FALSE(admin_messages(java).empty()) << tool << both(java, native);
      EXPECT_EQ(admin_messages(native), admin_messages(java)) << tool << both(java, native);
    }
    EXPECT_EQ(native.all().find("guess-7341"), std::string::npos) << native.all();
  }
  // A name of this machine that the certificate (localhost, 127.0.0.1) does not carry.
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  if (std::string(host) == "localhost") GTEST_SKIP() << "this machine is called localhost";
  const std::string ssl = properties("ssl-host", "security.protocol=SSL\n" + trust_p12(certs_));
  same_refusal(address("SSL", host), ssl, "Error while executing topic command : SSL handshake failed");
  // Without endpoint identification the same name is accepted.
  const std::string unchecked =
      properties("ssl-nohost", "security.protocol=SSL\nssl.endpoint.identification.algorithm=\n" + trust_p12(certs_));
  auto listed = native_topics(address("SSL", host), unchecked, {"--list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.all();
}

// Without sasl.jaas.config both tools log in with the KafkaClient section
// of the JAAS file -Djava.security.auth.login.config names in KAFKA_OPTS;
// a file without that section, a missing file and one that does not parse
// fail the admin client's creation with the same lines; sasl.jaas.config
// wins over the file.
TEST_F(NativeSecurityIT, JaasFileNamedInKafkaOpts) {
  auto created = native_topics(address("PLAINTEXT"), properties("none", ""), {"--create", "--topic", "jaas-file"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  auto jaas = [](const std::string& name, const std::string& text) {
    const std::string path = broker_->dir() + "/" + name + ".jaas";
    std::ofstream(path) << text;
    return "-Xss1m -Djava.security.auth.login.config=" + path;
  };
  const std::string module = "  org.apache.kafka.common.security.plain.PlainLoginModule required\n";
  const std::string good = jaas("client", "KafkaClient {\n" + module + "  username=\"alice\"\n  password=\"alice-secret\";\n};\n");
  const std::string config = properties("sasl-file", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n");
  const std::vector<std::string> list{"--bootstrap-server", address("SASL_PLAINTEXT"), "--command-config", config, "--list"};
  auto java = run_kafka_tool_with_opts(broker_->dir(), good, k_topic_command, list);
  auto native = run_native_tool_with_opts(broker_->dir(), good, "kafka-topics.sh", list);
  ASSERT_EQ(java.exit_code, 0) << java.all();
  ASSERT_EQ(native.exit_code, 0) << native.all();
  EXPECT_TRUE(printed_line(native, "jaas-file")) << native.all();
  EXPECT_EQ(tool_lines(native), tool_lines(java)) << both(java, native);

  for (const std::string& opts :
       {jaas("server", "KafkaServer {\n" + module + "  username=\"alice\" password=\"alice-secret\";\n};\n"),
        "-Djava.security.auth.login.config=" + broker_->dir() + "/missing.jaas",
        jaas("unterminated", "KafkaClient {\n" + module + "  username=\"alice\" password=\"alice-secret\"\n};\n"),
        jaas("single-quoted", "KafkaClient {\n" + module + "  username='alice' password='alice-secret';\n};\n"),
        std::string("-Xss1m")}) {
    auto j = run_kafka_tool_with_opts(broker_->dir(), opts, k_topic_command, list);
    auto n = run_native_tool_with_opts(broker_->dir(), opts, "kafka-topics.sh", list);
    EXPECT_EQ(j.exit_code, 1) << opts << j.all();
    EXPECT_EQ(n.exit_code, j.exit_code) << opts << both(j, n);
    EXPECT_EQ(tool_lines(n), tool_lines(j)) << opts << both(j, n);
    // Where the JDK's parse error quotes what stands in an option value's
    // place (a single-quoted value), the native tool does not: it may be a
    // password.
    static const std::regex value_found(R"((expected \[(option value|=)\], found \[).*\]$)");
    auto java_lines = admin_messages(j);
    for (auto& line : java_lines) line = std::regex_replace(line, value_found, "$1(hidden)]");
    EXPECT_EQ(admin_messages(n), java_lines) << opts << both(j, n);
    EXPECT_EQ(n.all().find("alice-secret"), std::string::npos) << n.all();
  }

  // sasl.jaas.config wins: the file named is not even read.
  const std::string missing = "-Djava.security.auth.login.config=" + broker_->dir() + "/missing.jaas";
  const std::string with_login =
      properties("sasl-property", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
                                      login("plain.PlainLoginModule", "alice", "alice-secret"));
  const std::vector<std::string> list_with{"--bootstrap-server", address("SASL_PLAINTEXT"), "--command-config",
                                           with_login, "--list"};
  auto jp = run_kafka_tool_with_opts(broker_->dir(), missing, k_topic_command, list_with);
  auto np = run_native_tool_with_opts(broker_->dir(), missing, "kafka-topics.sh", list_with);
  EXPECT_EQ(jp.exit_code, 0) << jp.all();
  EXPECT_EQ(np.exit_code, 0) << np.all();
  EXPECT_EQ(tool_lines(np), tool_lines(jp)) << both(jp, np);
}

// The console producer and consumer with a wrong password: Kafka's tools
// log the failed login and the record's (or the poll's) error, then end
// with status 0. Their stack frames and the network thread's racing
// warning aside (console_messages), both tools print the same lines.
TEST_F(NativeSecurityIT, ConsoleToolsRefusedAsKafkasAre) {
  const std::string at = address("SASL_PLAINTEXT");
  auto created = native_topics(address("PLAINTEXT"), properties("none", ""),
                               {"--create", "--topic", "refused", "--partitions", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  const std::string wrong = properties("console-wrong", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" +
                                                            login("plain.PlainLoginModule", "alice", "guess-5519"));
  const std::vector<std::string> produce{"--bootstrap-server", at, "--producer.config", wrong, "--topic", "refused"};
  auto jp = run_kafka_tool(broker_->dir(), "org.apache.kafka.tools.ConsoleProducer", produce, "r1\n");
  auto np = run_native_tool(broker_->dir(), "kafka-console-producer.sh", produce, "r1\n");
  // The consumer's group id is random (console-consumer-NNNNN): one is given.
  const std::vector<std::string> consume{"--bootstrap-server", at,        "--consumer.config", wrong, "--topic", "refused",
                                         "--group",            "refused", "--timeout-ms",      "10000"};
  auto jc = run_kafka_tool(broker_->dir(), "org.apache.kafka.tools.consumer.ConsoleConsumer", consume);
  auto nc = run_native_tool(broker_->dir(), "kafka-console-consumer.sh", consume);
  for (const auto& [java, native] : {std::pair{jp, np}, std::pair{jc, nc}}) {
    EXPECT_EQ(native.exit_code, java.exit_code) << both(java, native);
    EXPECT_EQ(tool_lines(native), tool_lines(java)) << both(java, native);
    EXPECT_EQ(console_messages(native), console_messages(java)) << both(java, native);
    EXPECT_NE(java.err.find("SaslAuthenticationException: Authentication failed: Invalid username or password"),
              std::string::npos)
        << java.all();
    EXPECT_EQ(native.all().find("guess-5519"), std::string::npos) << native.all();
  }
}

}  // namespace
}  // namespace hw::testing
