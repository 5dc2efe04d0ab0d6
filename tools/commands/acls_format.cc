// kafka-acls.sh: the lines AclCommand prints (acls.h), and its question
// before a removal.

#include <unistd.h>

#include <istream>
#include <ostream>

#include "tools/commands/acls.h"
#include "tools/commands/java.h"

namespace hw::tools::acls {
namespace {

std::string pattern_text(const resource& r) {
  return protocol::pattern_text(binding(r, {}));
}

std::string entry_text(const entry& e) { return protocol::entry_text(binding({}, e)); }

// The entries one per line, each after a tab, the first after " " too
// where Kafka's text puts one.
std::string entry_lines(const std::vector<entry>& entries) {
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i) out += (i ? "\n\t" : "\t") + entry_text(entries[i]);
  return out;
}

// AclEntry.supportedOperations: what each resource type can be granted
// (ALL comes on top).
std::vector<acl_operation> supported(acl_resource_type type) {
  using op = acl_operation;
  switch (type) {
    case acl_resource_type::topic:
      return {op::read, op::write, op::create, op::describe, op::remove, op::alter, op::describe_configs,
              op::alter_configs};
    case acl_resource_type::group:
      return {op::read, op::describe, op::remove, op::describe_configs, op::alter_configs};
    case acl_resource_type::cluster:
      return {op::create, op::cluster_action, op::describe_configs, op::alter_configs, op::idempotent_write, op::alter,
              op::describe};
    case acl_resource_type::transactional_id:
      return {op::describe, op::write, op::two_phase_commit};
    case acl_resource_type::delegation_token:
      return {op::describe};
    case acl_resource_type::user:
      return {op::create_tokens, op::describe_tokens};
    default:
      return {};
  }
}

}  // namespace

std::string adding_text(const resource& r, const std::vector<entry>& entries) {
  return "Adding ACLs for resource `" + pattern_text(r) + "`: \n " + entry_lines(entries) + "\n";
}

std::string current_text(const resource& r, const std::vector<entry>& entries) {
  return "Current ACLs for resource `" + pattern_text(r) + "`:\n" + entry_lines(entries) + "\n";
}

std::string removal_question(const resource& filter, const std::vector<entry>& entries) {
  if (entries.empty())
    return "Are you sure you want to delete all ACLs for resource filter `" + pattern_text(filter) + "`? (y/n)";
  return "Are you sure you want to remove ACLs: \n " + entry_lines(entries) + "\n from resource filter `" +
         pattern_text(filter) + "`? (y/n)";
}

std::string exists_text(const acl_entry& b) {
  return "Acl (pattern=" + protocol::pattern_text(b) + ", entry=" + protocol::entry_text(b) + ") already exists.";
}

std::vector<std::string> principal_order(const std::vector<std::string>& principals) {
  // KafkaPrincipal.hashCode: 31 * type's hash + name's hash.
  java::hash_order set;
  for (size_t i = 0; i < principals.size(); ++i) {
    const auto& p = principals[i];
    const auto colon = p.find(':');
    const auto h = 31u * static_cast<uint32_t>(java::string_hash(p.substr(0, colon))) +
                   static_cast<uint32_t>(java::string_hash(p.substr(colon + 1)));
    set.put(static_cast<int32_t>(h), i);
  }
  std::vector<std::string> out;
  for (size_t i : set.order()) out.push_back(principals[i]);
  return out;
}

bool supports(acl_resource_type type, acl_operation op) {
  if (op == acl_operation::all) return true;
  for (auto s : supported(type))
    if (s == op) return true;
  return false;
}

std::string supported_operations_text(acl_resource_type type) {
  std::string list;
  for (auto op : supported(type)) list += std::string(to_string(op)) + ", ";
  return "ResourceType " + std::string(to_string(type)) + " only supports operations [" + list + "ALL]";
}

std::optional<failure> confirm(const std::string& question, std::istream& in, std::ostream& out, bool* yes) {
  out << question << '\n';
  out.flush();
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
    return thrown("java.lang.NullPointerException: Cannot invoke \"java.io.Console.readLine()\" because the return "
                  "value of \"java.lang.System.console()\" is null");
  std::string answer;
  if (!std::getline(in, answer))
    return thrown("java.lang.NullPointerException: Cannot invoke \"String.equalsIgnoreCase(String)\" because the "
                  "return value of \"java.io.Console.readLine()\" is null");
  *yes = answer == "y" || answer == "Y";
  return std::nullopt;
}

}  // namespace hw::tools::acls
