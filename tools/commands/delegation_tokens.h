#pragma once
// kafka-delegation-tokens.sh (Kafka 4.3's
// org.apache.kafka.tools.DelegationTokenCommand), split by concern:
//   delegation_tokens.cc         options, the checks in Kafka's order, the
//                                four actions, how a failure ends
//   delegation_tokens_format.cc  pure parts: principals as SecurityUtils
//                                reads them, the HMAC as Java's Base64
//                                decoder reads it, dates as SimpleDateFormat
//                                writes them, the lines and the token table
//   delegation_tokens_client.cc  CreateDelegationToken, RenewDelegationToken,
//                                ExpireDelegationToken and
//                                DescribeDelegationToken as Kafka's admin
//                                client sends them, failing as its futures fail
// Declarations here are internal to the tool (and its tests).
//
// Every failure ends as the command's mainNoExit ends a Throwable: its
// message on stderr, then its stack trace (here its exception lines, without
// frames) and an empty line; exit status 1. Usage errors print the message
// and the option table instead, as CommandLineUtils.printUsageAndExit.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/commands/command.h"

namespace hw::tools::dtokens {

struct failure {
  bool usage = false;                // printUsageAndExit: the message, then the option table
  std::string message;               // Throwable.getMessage(), the first line on stderr
  std::vector<std::string> trace;    // the stack trace's exception lines ("x.Y: m", "Caused by: ...")
};
failure usage(std::string message);
// A Throwable of `exception` (a fully qualified class) with `message`, and
// its causes' lines ("Caused by: ..."), as printed.
failure thrown(const std::string& exception, const std::string& message, std::vector<std::string> causes = {});
// A failed future: ExecutionException whose message is the cause's
// "class: message" and whose trace ends "Caused by: <cause>".
failure execution(const std::string& cause);

// What stderr shows of a failure (stdout has what was printed before it).
std::string failure_text(const failure& f);

// ---- joptsimple's answers to the values the command asks for ----

// OptionSet.valueOf on a withOptionalArg().ofType(Long.class) option: every
// value converted (OptionArgumentConversionException on the first that does
// not), then at most one (MultipleArgumentsForOptionException); the tool
// unboxes the result, so an option given without a value ends in Java's
// NullPointerException.
std::optional<failure> long_value(const std::vector<std::string>& values, const std::string& option, int64_t* out);
// OptionSet.valueOf on a String option: nullopt in *out for no value.
std::optional<failure> string_value(const std::vector<std::string>& values, const std::string& option,
                                    std::optional<std::string>* out);

// ---- principals ----

struct principal {
  std::string type, name;
  // KafkaPrincipal.toString.
  std::string str() const { return type + ":" + name; }
  bool operator==(const principal&) const = default;
};
// getPrincipals: each value trimmed as String.trim does, then read as
// SecurityUtils.parseKafkaPrincipal ("Type:name", split at the first ':').
std::optional<failure> principals(const std::vector<std::string>& values, std::vector<principal>* out);
// List.toString of principals: "[User:a, User:b]".
std::string principal_list(const std::vector<principal>& ps);

// ---- the HMAC ----

// Base64.getDecoder().decode(String): Java's basic decoder, its checks and
// messages ("Illegal base64 character 21", "Last unit does not have enough
// valid bits", ...); the text's characters as ISO-8859-1 bytes ('?' beyond).
std::optional<failure> decode_hmac(const std::optional<std::string>& text, std::vector<uint8_t>* out);
// Base64.getEncoder().encodeToString.
std::string hmac_text(const std::vector<uint8_t>& hmac);

// ---- output ----

// new SimpleDateFormat("yyyy-MM-dd'T'HH:mm").format(ms): the local time zone
// (TZ, else the system's), as the JVM takes it.
std::string date_text(int64_t ms);

struct token {
  std::string token_id;
  std::vector<uint8_t> hmac;
  principal owner, requester;
  std::vector<principal> renewers;
  int64_t issue = 0, expiry = 0, max = 0;
};
// printToken: the header and a row per token, each after an empty line,
// every column padded as Java's %-Ns pads (UTF-16 units).
std::string token_table(const std::vector<token>& tokens);

std::string create_calling_line(const std::vector<principal>& renewers, int64_t max_life_ms);
std::string renew_calling_line(const std::optional<std::string>& hmac, int64_t period_ms);
std::string expire_calling_line(const std::optional<std::string>& hmac, int64_t period_ms);
std::string describe_calling_line(const std::vector<principal>& owners);

// ---- the requests (delegation_tokens_client.cc) ----

// Kafka's admin client calls as DelegationTokenCommand makes them, each to
// the least loaded node (here the one bootstrapped from); connects on first
// use, so that what fails before a call never waits for a cluster.
class token_admin {
 public:
  using connector = std::function<std::unique_ptr<admin_client>(std::string* error)>;
  explicit token_admin(connector connect) : connect_(std::move(connect)) {}

  // createDelegationToken: the token as the admin client builds it (its
  // renewers the options', not the answer's).
  std::optional<failure> create(const std::vector<principal>& renewers, const std::optional<principal>& owner,
                                int64_t max_life_ms, token* out);
  // renewDelegationToken / expireDelegationToken: the new expiry timestamp.
  std::optional<failure> renew(const std::vector<uint8_t>& hmac, int64_t period_ms, int64_t* expiry);
  std::optional<failure> expire(const std::vector<uint8_t>& hmac, int64_t period_ms, int64_t* expiry);
  // describeDelegationToken with these owners (an empty list, as the
  // command sends without --owner-principal, is not null).
  std::optional<failure> describe(const std::vector<principal>& owners, std::vector<token>* out);

 private:
  template <class Req, class Resp>
  std::optional<failure> call(const char* call_name, const char* api, const Req& req, Resp* resp);
  connector connect_;
  std::unique_ptr<admin_client> admin_;
};

}  // namespace hw::tools::dtokens
