// The native kafka-delegation-tokens.sh against Kafka 4.3.1's
// DelegationTokenCommand: the same arguments against the same cluster exit
// the same way, print the same stdout (byte for byte, token ids, HMACs and
// dates masked where each tool made its own token; unmasked where both read
// the same tokens) and the same stderr (stack frames and the Java admin
// client's log records aside; for a usage error the message before the
// option table, whose help texts are our own words). Both run in a time
// zone with a 45-minute offset (TZ=Asia/Kathmandu), and the native tool's
// dates are checked against the ones Kafka's tool prints for the same
// stored token.
//
// The cluster: a PLAINTEXT listener (User:ANONYMOUS, a super user, sets up
// users and ACLs) and a SASL_PLAINTEXT listener with SCRAM-SHA-512; the
// StandardAuthorizer; User:admin a super user; SCRAM users alice, bob and
// carol; delegation.token.secret.key set (unset in the test of a cluster
// without tokens). The story: creating over PLAINTEXT (refused), creating
// one's own token with a renewer, describing it (the current user's, by
// owner, as its renewer, as a stranger, as a super user), creating for
// another owner (refused, then allowed by a CreateTokens ACL), renewing (by
// the renewer; by a stranger, refused), expiring (by a stranger, refused;
// soon, then renewing the expired token; at once, then the token is gone), a
// renewer that is no user, and a login with a token itself: Kafka's console
// producer writes with it (SCRAM with tokenauth=true), and a token's login
// may neither create nor describe tokens (both tools log in with it).
//
// Against Apache Kafka 4.3.1 and against Highwater, configured identically
// (broker_process); the Java tool runs against both, so that what both
// tools print of Highwater's answers is compared too.

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include "broker_process.h"
#include "kafka_server.h"
#include "kafka_tool.h"
#include "native_tool.h"

namespace hw::testing {
namespace {

const char* const k_command = "org.apache.kafka.tools.DelegationTokenCommand";
const char* const k_zone = "Asia/Kathmandu";
const char* const k_secret = "dtoken-compat-secret";
const char* const k_scram_server_jaas = "org.apache.kafka.common.security.scram.ScramLoginModule required;";
const char* const k_refused_on_plaintext =
    "org.apache.kafka.common.errors.UnsupportedByAuthenticationException: Delegation Token requests are not allowed "
    "on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.";

enum class target { kafka, highwater };

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += " " + a;
  return s;
}

std::string both_text(const tool_result& java, const tool_result& native) {
  return "\njava (exit " + std::to_string(java.exit_code) + "):\n" + java.all() + "native (exit " +
         std::to_string(native.exit_code) + "):\n" + native.all();
}

// ---- what is compared ----

std::vector<std::string> split_keep(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) return lines;
    start = nl + 1;
  }
}

// stdout as printed, the JVM's own log lines aside (the last line may lack
// its line break: a renew's or expire's).
std::string tool_stdout(const tool_result& r) {
  std::string out;
  const auto lines = split_keep(r.out);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (jvm_log_line(lines[i])) continue;
    out += lines[i];
    if (i + 1 < lines.size()) out += "\n";
  }
  return out;
}

bool log_record(const std::string& line) {
  static const std::regex record(R"(^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] .*)");
  return std::regex_match(line, record);
}

// stderr: without stack frames, the JVM's lines, the admin client's log
// records and the exception each record logs; a usage error's option table
// cut off after its first line ("Option  Description", kept to show there
// was one).
std::vector<std::string> tool_stderr(const tool_result& r) {
  static const std::regex exception(R"(^[a-z][\w.$]*\.[A-Z][\w$]*(Exception|Error)(: .*)?$)");
  std::vector<std::string> out;
  bool after_record = false;
  for (const auto& line : split_keep(r.err)) {
    if (log_record(line)) {
      after_record = true;
      continue;
    }
    if (after_record && std::regex_match(line, exception)) {
      after_record = false;
      continue;
    }
    after_record = false;
    if (line.starts_with("\tat ") || line.starts_with("\t... ") || jvm_log_line(line)) continue;
    if (line.starts_with("Option ") && line.find("Description") != std::string::npos) {
      out.push_back("Option ... Description");
      break;
    }
    out.push_back(line);
  }
  return out;
}

// The token ids, HMACs and dates of a create's (or describe's) output made
// placeholders, for outputs about tokens each tool made for itself.
std::string masked(const std::string& text) {
  static const std::regex date(R"(\b\d{4,}-\d\d-\d\dT\d\d:\d\d\b)");
  static const std::regex created(R"(tokenId : \S+)");
  static const std::regex hmac_arg(R"(hmac :\S+ ,)");
  std::string out;
  bool rows = false;
  for (auto line : split_keep(text)) {
    if (line.starts_with("TOKENID ")) {
      rows = true;
    } else if (rows && !line.empty()) {
      // A row: its token id, then its HMAC, each followed by padding.
      const size_t id_end = line.find(' ');
      const size_t hmac_start = line.find_first_not_of(' ', id_end);
      const size_t hmac_end = line.find(' ', hmac_start);
      if (hmac_end != std::string::npos) line = "<id>" + line.substr(id_end, hmac_start - id_end) + "<hmac>" + line.substr(hmac_end);
    }
    line = std::regex_replace(line, created, "tokenId : <id>");
    line = std::regex_replace(line, hmac_arg, "hmac :<hmac> ,");
    out += std::regex_replace(line, date, "<date>") + "\n";
  }
  out.pop_back();
  return out;
}

// A token a create printed: its id, HMAC and table row.
struct created_token {
  std::string id, hmac, row;
};

std::optional<created_token> created_by(const tool_result& r) {
  static const std::regex id_line(R"(Created delegation token with tokenId : (\S+))");
  std::smatch m;
  if (!std::regex_search(r.out, m, id_line)) return std::nullopt;
  created_token t{m[1].str(), "", ""};
  for (const auto& line : split_keep(r.out))
    if (line.starts_with(t.id + " ")) {
      t.row = line;
      std::istringstream words(line);
      words >> t.hmac >> t.hmac;
    }
  if (t.row.empty()) return std::nullopt;
  return t;
}

// The row of a token in a describe's table.
std::string row_of(const tool_result& r, const std::string& id) {
  for (const auto& line : split_keep(r.out))
    if (line.starts_with(id + " ")) return line;
  return "";
}

// The first line of what tool_stderr keeps (empty if none).
std::string first_message(const tool_result& r) {
  const auto lines = tool_stderr(r);
  return lines.empty() ? std::string() : lines.front();
}

// ---- running the tools ----

struct token_tools {
  std::string dir;

  static std::vector<std::string> with(const std::string& bootstrap, const std::string& config,
                                       const std::vector<std::string>& args) {
    std::vector<std::string> all{"--bootstrap-server", bootstrap, "--command-config", config};
    all.insert(all.end(), args.begin(), args.end());
    return all;
  }
  // Kafka's tool, in the test's time zone, with a JVM that starts in half
  // the time (C1 only, the serial collector: nothing printed depends on them).
  tool_result java(const std::vector<std::string>& args) const {
    std::string cmd = std::string("env TZ=") + k_zone +
                      " KAFKA_JVM_PERFORMANCE_OPTS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' " +
                      shell_quote(HW_SOURCE_DIR "/scripts/kafka-run-class.sh") + " " + k_command;
    for (const auto& a : args) cmd += " " + shell_quote(a);
    return run_captured(dir, "tool", cmd, "", 180);
  }
  tool_result native(const std::vector<std::string>& args) const {
    std::string cmd = std::string("env TZ=") + k_zone + " " + shell_quote(HW_TOOLS_BINARY) + " kafka-delegation-tokens.sh";
    for (const auto& a : args) cmd += " " + shell_quote(a);
    return run_captured(dir, "native", cmd, "", 120);
  }
  // Another native tool (setup: users, ACLs, topics).
  tool_result other(const std::string& tool, const std::vector<std::string>& args, const std::string& input = "") const {
    return run_native_tool(dir, tool, args, input);
  }
};

struct pair_result {
  tool_result java, native;
};

// Both tools with the same arguments; `mask` for outputs about tokens each
// made for itself.
pair_result same(const token_tools& t, const std::vector<std::string>& args, bool mask = false) {
  pair_result p{t.java(args), t.native(args)};
  const std::string what = joined(args) + both_text(p.java, p.native);
  EXPECT_EQ(p.native.exit_code, p.java.exit_code) << what;
  if (mask)
    EXPECT_EQ(masked(tool_stdout(p.native)), masked(tool_stdout(p.java))) << what;
  else
    EXPECT_EQ(tool_stdout(p.native), tool_stdout(p.java)) << what;
  EXPECT_EQ(tool_stderr(p.native), tool_stderr(p.java)) << what;
  return p;
}

// ---- the clusters ----

std::string properties(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name + ".properties";
  std::ofstream(path) << text;
  return path;
}

std::string scram_login(const std::string& user, const std::string& password, const std::string& extra = "") {
  return "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
         "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" +
         user + "\" password=\"" + password + "\"" + extra + ";\n";
}

// Kafka or Highwater, configured alike: PLAINTEXT for the setup, SCRAM on
// SASL_PLAINTEXT, ACLs enforced, admin and ANONYMOUS super users, the
// users' SCRAM credentials made (kafka-configs.sh over PLAINTEXT) and one
// login checked.
class token_cluster {
 public:
  token_cluster(target t, bool tokens_enabled) {
    std::vector<std::pair<std::string, std::string>> props{
        {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
        {"super.users", "User:admin;User:ANONYMOUS"},
        {"sasl.enabled.mechanisms", "SCRAM-SHA-512"},
        {"listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", k_scram_server_jaas},
        {"delegation.token.expiry.check.interval.ms", "3600000"},
        {"group.initial.rebalance.delay.ms", "0"},
    };
    if (tokens_enabled) props.emplace_back("delegation.token.secret.key", k_secret);
    if (t == target::kafka) {
      kafka_ = std::make_unique<differential::kafka_server>();
      std::string text;
      for (const auto& [k, v] : props) text += k + "=" + v + "\n";
      if (!kafka_->start(text, {"SASL_PLAINTEXT:SASL_PLAINTEXT"})) {
        error_ = kafka_->error();
        return;
      }
      dir_ = kafka_->dir();
      plaintext_ = "127.0.0.1:" + std::to_string(kafka_->port());
      sasl_ = "127.0.0.1:" + std::to_string(kafka_->extra_port(0));
    } else {
      highwater_ = std::make_unique<broker_process>();
      std::vector<std::string> args{
          "--override", "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
          "--override", "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
          "--override", "inter.broker.listener.name=PLAINTEXT"};
      for (const auto& [k, v] : props) args.insert(args.end(), {"--override", k + "=" + v});
      if (!highwater_->start(args)) {
        error_ = highwater_->log();
        return;
      }
      dir_ = highwater_->dir();
      plaintext_ = "127.0.0.1:" + std::to_string(highwater_->port("PLAINTEXT"));
      sasl_ = "127.0.0.1:" + std::to_string(highwater_->port("SASL_PLAINTEXT"));
    }
    const token_tools tools{dir_};
    for (const char* user : {"admin", "alice", "bob", "carol"}) {
      auto made = tools.other("kafka-configs.sh", {"--bootstrap-server", plaintext_, "--alter", "--entity-type", "users",
                                                   "--entity-name", user, "--add-config",
                                                   "SCRAM-SHA-512=[iterations=4096,password=" + std::string(user) +
                                                       "-secret]"});
      if (made.exit_code != 0) {
        error_ = "kafka-configs.sh failed for " + std::string(user) + ":\n" + made.all();
        return;
      }
      config_[user] = properties(dir_, user, scram_login(user, std::string(user) + "-secret"));
    }
    config_["plaintext"] = properties(dir_, "plaintext", "");
    // The credentials reach the SASL listener through the metadata log.
    tool_result login;
    const bool logged_in = wait_until(
        [&] {
          login = tools.native(token_tools::with(sasl_, config_["carol"], {"--describe"}));
          return login.err.find("Authentication failed") == std::string::npos;
        },
        60s);
    if (!logged_in) error_ = "carol's SCRAM login never worked:\n" + login.all();
  }

  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }
  const std::string& plaintext() const { return plaintext_; }
  const std::string& sasl() const { return sasl_; }
  const std::string& config(const std::string& user) { return config_[user]; }
  std::string log() const {
    if (highwater_) return tail(highwater_->log(), 4000);
    return kafka_ ? tail(read_whole(kafka_->dir() + "/kafka.log"), 4000) : "";
  }

 private:
  std::unique_ptr<differential::kafka_server> kafka_;
  std::unique_ptr<broker_process> highwater_;
  std::string error_, dir_, plaintext_, sasl_;
  std::map<std::string, std::string> config_;
};

class NativeDelegationTokensIT : public ::testing::TestWithParam<target> {
 protected:
  void start(bool tokens_enabled) {
    cluster_ = std::make_unique<token_cluster>(GetParam(), tokens_enabled);
    ASSERT_TRUE(cluster_->error().empty()) << cluster_->error();
    tools_ = {cluster_->dir()};
  }
  void TearDown() override {
    if (HasFailure() && cluster_) ADD_FAILURE() << "broker log (end):\n" << cluster_->log();
    cluster_.reset();
  }
  // The arguments as `user` on the SASL listener.
  std::vector<std::string> as(const std::string& user, const std::vector<std::string>& args) {
    return token_tools::with(cluster_->sasl(), cluster_->config(user), args);
  }
  // An ACL through the PLAINTEXT listener, waited for until it is listed.
  void allow(const std::vector<std::string>& acl, const std::vector<std::string>& resource, const std::string& principal) {
    std::vector<std::string> add{"--bootstrap-server", cluster_->plaintext(), "--add"};
    add.insert(add.end(), acl.begin(), acl.end());
    add.insert(add.end(), resource.begin(), resource.end());
    auto added = tools_.other("kafka-acls.sh", add);
    ASSERT_EQ(added.exit_code, 0) << added.all();
    std::vector<std::string> list{"--bootstrap-server", cluster_->plaintext(), "--list"};
    list.insert(list.end(), resource.begin(), resource.end());
    tool_result listed;
    ASSERT_TRUE(wait_until(
        [&] {
          listed = tools_.other("kafka-acls.sh", list);
          return listed.out.find("principal=" + principal) != std::string::npos;
        },
        30s))
        << listed.all();
  }

  std::unique_ptr<token_cluster> cluster_;
  token_tools tools_;
};

// Command lines refused before anything is sent: no cluster needed (a
// bootstrap address nothing listens on).
TEST(NativeDelegationTokensCommandLine, RefusedAsKafkaRefusesThem) {
  char dir_template[] = "/tmp/hw-dtokens-cli-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const token_tools t{dir};
  const std::string config = properties(dir, "client", scram_login("alice", "alice-secret"));
  const std::string bad_protocol = properties(dir, "bad-protocol", "security.protocol=FOO\n");
  const std::string bad_jaas =
      properties(dir, "bad-jaas", "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=foo\n");
  auto with = [&](std::vector<std::string> args, const std::string& file = "") {
    return token_tools::with("127.0.0.1:1", file.empty() ? config : file, args);
  };
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {"--version"},
           {"--describe", "--bogus"},
           {"--describe", "--bootstrap-server"},
           {"--create"},
           {"--create", "--describe"},
           {"--bootstrap-server", "x", "--renew"},
           with({"--create"}),
           with({"--renew"}),
           with({"--renew", "--hmac"}),
           with({"--expire", "--hmac"}),
           with({"--create", "--max-life-time-period", "--hmac", "x"}),
           with({"--renew", "--hmac", "x", "--renew-time-period", "1", "--owner-principal", "User:a"}),
           with({"--expire", "--hmac", "x", "--expiry-time-period", "1", "--max-life-time-period", "1"}),
           with({"--describe", "--expiry-time-period", "1"}),
           with({"--describe"}, dir + "/missing.properties"),
           with({"--describe"}, dir),
           with({"--describe"}, bad_protocol),
           with({"--describe"}, bad_jaas),
           {"--bootstrap-server", "nowhere", "--command-config", config, "--describe"},
           {"--bootstrap-server", "a:1", "--bootstrap-server", "b:1", "--command-config", config, "--describe"},
           with({"--create", "--max-life-time-period"}),
           with({"--create", "--max-life-time-period", "abc"}),
           with({"--create", "--max-life-time-period", "99999999999999999999"}),
           with({"--create", "--max-life-time-period=abc"}),
           with({"--create", "--max-life-time-period", ""}),
           with({"--create", "--max-life-time-period", "1", "--max-life-time-period", "2"}),
           with({"--create", "--max-life-time-period", "-1", "--renewer-principal", "bob"}),
           with({"--create", "--max-life-time-period", "-1", "--renewer-principal", "User:x", "--owner-principal", "bob"}),
           with({"--describe", "--owner-principal", "User:a", "--owner-principal", " "}),
           with({"--renew", "--hmac", "!!!", "--renew-time-period", "1"}),
           with({"--renew", "--hmac", "AAAAA", "--renew-time-period", "-1"}),
           with({"--renew", "--hmac", "AB==C", "--renew-time-period", "-1"}),
           with({"--renew", "--hmac", "--renew-time-period", "1"}),
           with({"--expire", "--hmac", "a", "--hmac", "b", "--expiry-time-period", "1"}),
           with({"--expire", "--hmac", "AAAA", "--expiry-time-period", "--", "5"}),
       })
    same(t, args);
  std::filesystem::remove_all(dir);
}

// One test, so that the cluster starts once: the story of the file's comment.
TEST_P(NativeDelegationTokensIT, CreateDescribeRenewExpireAndLogIn) {
  start(true);
  if (HasFatalFailure()) return;
  const auto& t = tools_;
  const std::string sasl = cluster_->sasl();

  // Over PLAINTEXT the broker refuses every token request.
  for (const auto& args : {std::vector<std::string>{"--create", "--max-life-time-period", "-1"}, {"--describe"}}) {
    auto refused = same(t, token_tools::with(cluster_->plaintext(), cluster_->config("plaintext"), args));
    EXPECT_EQ(refused.java.exit_code, 1);
    EXPECT_EQ(first_message(refused.java), k_refused_on_plaintext) << refused.java.all();
  }

  // alice's own tokens, bob their renewer.
  auto mine = same(t, as("alice", {"--create", "--max-life-time-period", "-1", "--renewer-principal", " User:bob "}), true);
  ASSERT_EQ(mine.java.exit_code, 0) << mine.java.all();
  const auto java_token = created_by(mine.java), native_token = created_by(mine.native);
  ASSERT_TRUE(java_token && native_token) << both_text(mine.java, mine.native);
  EXPECT_TRUE(mine.native.out.starts_with(
      "Calling create token operation with renewers :[User:bob] , max-life-time-period :-1\n"))
      << mine.native.out;

  // The native tool's row, dates and all, is the one Kafka's tool shows for
  // the same stored token.
  const std::vector<std::string> alices{"--describe", "--owner-principal", "User:alice"};
  auto described = same(t, as("alice", alices));
  EXPECT_EQ(row_of(described.java, native_token->id), native_token->row) << described.java.out;
  EXPECT_EQ(row_of(described.java, java_token->id), java_token->row) << described.java.out;
  EXPECT_TRUE(described.java.out.find("Total number of tokens : 2\n") != std::string::npos) << described.java.out;

  // Without --owner-principal Kafka's tool sends an empty owner list.
  auto current = same(t, as("alice", {"--describe"}));
  EXPECT_EQ(current.java.exit_code, 0);
  same(t, as("bob", alices));  // the renewer sees them
  auto stranger = same(t, as("carol", {"--describe", "--owner-principal", "User:alice", "--owner-principal", "User:bob"}));
  EXPECT_NE(stranger.java.out.find("Total number of tokens : 0"), std::string::npos) << stranger.java.out;
  same(t, as("admin", alices));  // a super user sees every token

  // For another owner: refused, then allowed by CreateTokens on that user.
  const std::vector<std::string> for_alice{"--create", "--max-life-time-period", "3600000", "--owner-principal",
                                           "User:alice", "--owner-principal", "User:zed"};
  auto unauthorized = same(t, as("carol", for_alice));
  EXPECT_EQ(unauthorized.java.exit_code, 1);
  allow({"--allow-principal", "User:carol", "--operation", "CreateTokens"}, {"--user-principal", "User:alice"},
        "User:carol");
  if (HasFatalFailure()) return;
  auto delegated = same(t, as("carol", for_alice), true);
  ASSERT_EQ(delegated.java.exit_code, 0) << delegated.java.all();
  const auto java_delegated = created_by(delegated.java), native_delegated = created_by(delegated.native);
  ASSERT_TRUE(java_delegated && native_delegated) << both_text(delegated.java, delegated.native);
  EXPECT_NE(native_delegated->row.find(" User:alice      User:carol      [] "), std::string::npos) << native_delegated->row;
  // DescribeTokens on alice lets carol see alice's tokens.
  allow({"--allow-principal", "User:carol", "--operation", "DescribeTokens"}, {"--user-principal", "User:alice"},
        "User:carol");
  if (HasFatalFailure()) return;
  same(t, as("carol", alices));

  // Renewed by the renewer: the new expiry date is the stored one.
  auto renewed = same(t, as("bob", {"--renew", "--hmac", java_token->hmac, "--renew-time-period", "3600000"}), true);
  ASSERT_EQ(renewed.native.exit_code, 0) << renewed.native.all();
  EXPECT_FALSE(renewed.native.out.ends_with("\n")) << "no line break after the date";
  auto after_renew = t.java(as("alice", alices));
  const std::string expiry_date = renewed.native.out.substr(renewed.native.out.rfind(" : ") + 3);
  std::vector<std::string> row_words;
  {
    std::istringstream words(row_of(after_renew, java_token->id));
    for (std::string w; words >> w;) row_words.push_back(w);
  }
  ASSERT_GE(row_words.size(), 3u) << after_renew.out;
  EXPECT_EQ(row_words[row_words.size() - 2], expiry_date) << after_renew.out;

  // A stranger may neither renew nor expire.
  same(t, as("carol", {"--renew", "--hmac", java_token->hmac, "--renew-time-period", "-1"}));
  auto mismatch = same(t, as("carol", {"--expire", "--hmac", java_token->hmac, "--expiry-time-period", "1000"}));
  EXPECT_NE(mismatch.java.err.find("DelegationTokenOwnerMismatchException"), std::string::npos) << mismatch.java.all();

  // Expired soon, then renewed once it has: refused as expired.
  same(t, as("alice", {"--expire", "--hmac", java_token->hmac, "--expiry-time-period", "1000"}), true);
  const std::vector<std::string> renew_expired{"--renew", "--hmac", java_token->hmac, "--renew-time-period", "-1"};
  // Kafka checks a renewal's expiry before its renewer: a stranger's attempt
  // changes nothing and says when the token has expired.
  tool_result probe;
  ASSERT_TRUE(wait_until(
      [&] {
        probe = t.native(as("carol", renew_expired));
        return probe.err.find("DelegationTokenExpiredException") != std::string::npos;
      },
      30s))
      << probe.all();
  same(t, as("bob", renew_expired));

  // Expired at once: each tool its own token, then both find it gone.
  const auto java_expired = t.java(as("alice", {"--expire", "--hmac", native_token->hmac, "--expiry-time-period", "-1"}));
  const auto native_expired =
      t.native(as("alice", {"--expire", "--hmac", native_delegated->hmac, "--expiry-time-period", "-1"}));
  EXPECT_EQ(native_expired.exit_code, 0) << native_expired.all();
  EXPECT_EQ(java_expired.exit_code, 0) << java_expired.all();
  EXPECT_EQ(masked(tool_stdout(native_expired)), masked(tool_stdout(java_expired))) << both_text(java_expired, native_expired);
  same(t, as("alice", {"--expire", "--hmac", native_token->hmac, "--expiry-time-period", "-1"}));
  auto gone = same(t, as("bob", {"--renew", "--hmac", native_token->hmac, "--renew-time-period", "-1"}));
  EXPECT_NE(gone.java.err.find("DelegationTokenNotFoundException"), std::string::npos) << gone.java.all();
  same(t, as("alice", alices));

  // Renewers are users.
  same(t, as("alice", {"--create", "--max-life-time-period", "-1", "--renewer-principal", "Group:ops"}));
  // A wrong password: the login's error, the admin client's log records aside.
  const std::string wrong = properties(cluster_->dir(), "wrong", scram_login("alice", "guess-4417"));
  auto refused_login = same(t, token_tools::with(sasl, wrong, {"--describe"}));
  EXPECT_NE(refused_login.java.err.find("SaslAuthenticationException"), std::string::npos) << refused_login.java.all();
  EXPECT_EQ(refused_login.native.all().find("guess-4417"), std::string::npos);

  // A login with carol's token for alice (Kafka's delegated token): Kafka's
  // console producer writes as alice with it.
  const auto token_login = properties(cluster_->dir(), "token",
                                      scram_login(java_delegated->id, java_delegated->hmac, " tokenauth=true"));
  auto topic = t.other("kafka-topics.sh", {"--bootstrap-server", cluster_->plaintext(), "--create", "--topic",
                                           "dtokens", "--partitions", "1"});
  ASSERT_EQ(topic.exit_code, 0) << topic.all();
  allow({"--producer", "--allow-principal", "User:alice"}, {"--topic", "dtokens"}, "User:alice");
  if (HasFatalFailure()) return;
  auto produced = run_kafka_tool(cluster_->dir(), "org.apache.kafka.tools.ConsoleProducer",
                                 {"--bootstrap-server", sasl, "--producer.config", token_login, "--topic", "dtokens"},
                                 "written-with-a-token\n");
  EXPECT_EQ(produced.exit_code, 0) << produced.all();
  EXPECT_EQ(produced.err.find("Exception"), std::string::npos) << produced.all();
  auto consumed = t.other("kafka-console-consumer.sh", {"--bootstrap-server", cluster_->plaintext(), "--topic", "dtokens",
                                                        "--from-beginning", "--max-messages", "1", "--timeout-ms", "30000"});
  EXPECT_EQ(tool_lines(consumed), std::vector<std::string>{"written-with-a-token"}) << consumed.all() << produced.all();
  // Both tools log in with the token, whose login may not manage tokens.
  for (const auto& args : {std::vector<std::string>{"--create", "--max-life-time-period", "-1"},
                           {"--describe", "--owner-principal", "User:alice"}}) {
    auto with_token = same(t, token_tools::with(sasl, token_login, args));
    EXPECT_EQ(with_token.java.exit_code, 1);
    EXPECT_EQ(first_message(with_token.java), k_refused_on_plaintext) << with_token.java.all();
  }
  // A token that is gone logs in no more.
  const auto gone_login =
      properties(cluster_->dir(), "gone-token", scram_login(native_token->id, native_token->hmac, " tokenauth=true"));
  auto gone_token = same(t, token_tools::with(sasl, gone_login, {"--describe"}));
  EXPECT_NE(gone_token.java.err.find("SaslAuthenticationException"), std::string::npos) << gone_token.java.all();
}

// Without delegation.token.secret.key the cluster has no tokens to give.
TEST_P(NativeDelegationTokensIT, WithoutASecretKeyTokensAreDisabled) {
  start(false);
  if (HasFatalFailure()) return;
  const auto& t = tools_;
  auto created = same(t, as("admin", {"--create", "--max-life-time-period", "-1"}));
  EXPECT_NE(created.java.err.find("DelegationTokenDisabledException: Delegation Token feature is not enabled."),
            std::string::npos)
      << created.java.all();
  same(t, as("alice", {"--describe", "--owner-principal", "User:alice"}));
  same(t, as("bob", {"--renew", "--hmac", "AAAA", "--renew-time-period", "-1"}));
  same(t, as("bob", {"--expire", "--hmac", "AAAA", "--expiry-time-period", "-1"}));
}

INSTANTIATE_TEST_SUITE_P(Clusters, NativeDelegationTokensIT, ::testing::Values(target::kafka, target::highwater),
                         [](const auto& info) { return info.param == target::kafka ? "Kafka" : "Highwater"; });

}  // namespace
}  // namespace hw::testing
