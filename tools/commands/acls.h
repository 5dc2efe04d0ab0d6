#pragma once
// kafka-acls.sh (Kafka 4.3's org.apache.kafka.tools.AclCommand), split by
// concern:
//   acls.cc          options, the command line's checks, the three actions,
//                    how a failure ends
//   acls_parse.cc    pure parts: operation names as Kafka's SecurityUtils
//                    reads them, principals, the resource filters, the
//                    entries --producer and --consumer stand for, the
//                    operations each resource type supports
//   acls_client.cc   DescribeAcls, CreateAcls and DeleteAcls as Kafka's
//                    admin client sends them, failing as its futures fail
//   acls_format.cc   the lines printed, the confirmation prompt
// Declarations here are internal to the tool (and its tests).
//
// Kafka's tool keeps resources and entries in hash sets whose hashes mix in
// enum identity hashes: the order it prints them in changes from one run to
// the next. This one prints resources in the order it meets them (its
// command line's, or the broker's answer's) and entries likewise.

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/acl_types.h"
#include "tools/commands/command.h"

namespace hw::tools::acls {

using protocol::acl_entry;
using protocol::acl_operation;
using protocol::acl_pattern_type;
using protocol::acl_permission;
using protocol::acl_resource_type;

// How a command ends early, as AclCommand ends it (exit status 1 either way).
struct failure {
  enum class kind {
    usage,      // CommandLineUtils.printUsageAndExit: the message, the option table (stderr)
    executing,  // thrown inside main: "Error while executing ACL command: <message>" and the trace (stdout)
  };
  kind how = kind::usage;
  std::string message;
  std::vector<std::string> trace;  // executing: the exception lines, without frames
};
failure usage(std::string message);
// An exception thrown directly: "<class>: <message>" (and its causes).
failure thrown(const std::string& exception, std::vector<std::string> causes = {});
// An exception a future failed with: ExecutionException wrapping `cause`
// ("org.apache...SomeException: message").
failure execution(const std::string& cause);

// A resource pattern filter (ResourcePatternFilter): a specific pattern
// when the pattern type is LITERAL or PREFIXED.
struct resource {
  acl_resource_type type = acl_resource_type::topic;
  std::string name;
  acl_pattern_type pattern = acl_pattern_type::literal;
  bool operator==(const resource&) const = default;
};
// An access control entry.
struct entry {
  std::string principal;
  std::string host;
  acl_operation operation = acl_operation::all;
  acl_permission permission = acl_permission::allow;
  bool operator==(const entry&) const = default;
};
acl_entry binding(const resource& r, const entry& e);
resource resource_of(const acl_entry& b);
entry entry_of(const acl_entry& b);

// Resources with their entries, in the order first met; entries distinct.
struct resource_acls {
  resource pattern;
  std::vector<entry> entries;
};
using resource_map = std::vector<resource_acls>;
// The resource's entries, added when new.
std::vector<entry>& entries_of(resource_map& m, const resource& r);
void add_distinct(std::vector<entry>& to, const entry& e);

// ---- the command line (acls_parse.cc) ----

struct command_line {
  bool add = false, remove = false, list = false;
  bool producer = false, consumer = false, idempotent = false, cluster = false, force = false;
  std::vector<std::string> topics, groups, transactional_ids, delegation_tokens, user_principals;
  std::vector<std::string> operations;  // "All" when none is given
  std::vector<std::string> allow_principals, deny_principals, allow_hosts, deny_hosts;
  bool has_allow_principal = false, has_deny_principal = false, has_allow_host = false, has_deny_host = false;
  bool has_list_principal = false;
  std::vector<std::string> list_principals;
  std::vector<std::string> pattern_type_values;  // --resource-pattern-type as given
};

// SecurityUtils.operation: Kafka's PascalCase names in any case
// ("IdempotentWrite", "idempotentwrite"); UNKNOWN for anything else.
acl_operation operation_named(const std::string& text);
// SecurityUtils.parseKafkaPrincipal: "Type:name"; the failure otherwise.
std::optional<failure> parse_principal(const std::string& text, std::string* out);
// The --resource-pattern-type value as its converter reads it (LITERAL
// when absent), or the exception valueOf throws.
std::optional<failure> pattern_type(const command_line& c, acl_pattern_type* out);
// The resource filters the options name (getResourceFilter); a usage
// failure when none and `need_one`.
std::optional<failure> resource_filters(const command_line& c, bool need_one, std::vector<resource>* out);
// The principals of --allow-principal, --deny-principal or --principal, distinct.
std::optional<failure> principals(const std::vector<std::string>& values, std::vector<std::string>* out);
// What the command adds or removes: each resource filter with its entries
// (getResourceFilterToAcls: the options' own, or --producer's and
// --consumer's), checked against the operations each type supports.
std::optional<failure> filters_to_entries(const command_line& c, resource_map* out);
// Java's String.trim().
std::string java_trim(const std::string& s);

// ---- the requests (acls_client.cc) ----

// Kafka's admin client calls as AclCommand makes them; connects on first
// use, so that a command failing its own checks never waits for a cluster.
class acl_admin {
 public:
  using connector = std::function<std::unique_ptr<admin_client>(std::string* error)>;
  explicit acl_admin(connector connect) : connect_(std::move(connect)) {}

  // describeAcls(filter with every entry): the bindings in the answer's order.
  std::optional<failure> describe(const std::optional<resource>& filter, std::vector<acl_entry>* out);
  // createAcls(bindings).all().get().
  std::optional<failure> create(const std::vector<acl_entry>& bindings);
  // deleteAcls(filters).all().get(): each filter a resource filter with an
  // exact entry, or every entry (nullopt).
  std::optional<failure> remove(const resource& filter, const std::vector<std::optional<entry>>& entries);

 private:
  admin_client* client(const std::string& call, std::optional<failure>* f);
  template <class Req, class Resp>
  std::optional<failure> call(const std::string& call, const char* api, const Req& req, Resp* resp);
  connector connect_;
  std::unique_ptr<admin_client> admin_;
};

// ---- output (acls_format.cc) ----

// "Adding ACLs for resource `...`: " and its entries.
std::string adding_text(const resource& r, const std::vector<entry>& entries);
// "Current ACLs for resource `...`:" and its entries.
std::string current_text(const resource& r, const std::vector<entry>& entries);
// The question --remove asks before deleting (without --force).
std::string removal_question(const resource& filter, const std::vector<entry>& entries);
// "Acl (pattern=..., entry=...) already exists."
std::string exists_text(const acl_entry& b);
// --list --principal: the principals in the order Kafka's HashSet of
// KafkaPrincipal iterates them.
std::vector<std::string> principal_order(const std::vector<std::string>& principals);
// ResourceType X only supports operations [...].
std::string supported_operations_text(acl_resource_type type);
// AclEntry.supportedOperations(type) and ALL.
bool supports(acl_resource_type type, acl_operation op);

// confirmAction without --force: prints the question and reads the answer
// from the terminal, as Java's System.console() does (which is null, and
// the tool fails, when stdin or stdout is not a terminal); true on "y".
std::optional<failure> confirm(const std::string& question, std::istream& in, std::ostream& out, bool* yes);

}  // namespace hw::tools::acls
