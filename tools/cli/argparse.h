#pragma once
// The command line as the Kafka tools built on argparse4j 0.7 read it
// (kafka-metadata-quorum.sh, kafka-features.sh, kafka-storage.sh), unlike
// the joptsimple ones in options.h: sub-commands, options with short
// aliases ("--config", "-c"), unique prefixes of long options and of
// sub-command names accepted, "--name=value" and "-cVALUE", mutually
// exclusive groups, required options, and argparse4j's messages ("argument
// --config/-c is required", "invalid choice: ..."), with its "Did you mean"
// hints.
//
// The help screens are Kafka's own text (as argparse4j lays it out 75
// columns wide when not on a terminal), given to each parser whole: the
// usage printed before an error is the screen's first paragraph.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::tools::cli {

struct arg_option {
  enum class kind { store_true, store, append, help, version };
  std::vector<std::string> flags;  // "--config", "-c"
  kind action = kind::store;
  bool required = false;
  bool integer = false;    // argparse4j's type(Integer.class)
  bool supported = true;   // false: Kafka's tool has it, this one refuses it by name
  int group = -1;          // mutually exclusive group, -1 for none
  // With `integer`: the Java type's width, 16 Short, 32 Integer, 64 Long
  // (what the value must fit, and what the conversion error names).
  int bits = 32;
  // What argparse4j calls the option in messages: its flags joined by '/'.
  std::string textual_name() const;
  // The key values are kept under: the first long flag without dashes,
  // '-' as '_' (argparse4j's dest: "cluster_id").
  std::string dest() const;
};

class arg_parser;

// What a command line said: option values by dest (a flag's value is
// "true"), and the sub-command chosen.
class arg_values {
 public:
  bool has(std::string_view dest) const { return values_.count(std::string(dest)) > 0; }
  std::optional<std::string> value(std::string_view dest) const;
  std::vector<std::string> values(std::string_view dest) const;
  const std::string& command() const { return command_; }

 private:
  friend class arg_parser;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::string command_;
};

// Why parsing stopped.
struct arg_error {
  enum class kind {
    help,         // -h/--help: print parser->help() to stdout, exit 0
    usage,        // argparse4j's error: message (and candidates) with parser's usage
    unsupported,  // an option or command Kafka has and this tool refuses
    version,      // an option of kind version (Kafka's PrintVersionAndExitAction): print the version, exit 0
  };
  kind what = kind::usage;
  const arg_parser* parser = nullptr;
  std::string message;
  std::string candidates;  // "\nDid you mean:\n\t--replication\n", or empty
};

class arg_parser {
 public:
  // prog: "kafka-storage"; help: Kafka's help screen for this parser.
  arg_parser(std::string prog, std::string help);

  arg_parser& add(arg_option option);
  arg_parser& store_true(std::vector<std::string> flags, int group = -1);
  arg_parser& store(std::vector<std::string> flags, bool required = false, int group = -1);
  arg_parser& append(std::vector<std::string> flags, bool required = false);
  arg_parser& unsupported(std::vector<std::string> flags, arg_option::kind action);
  // A new mutually exclusive group; its index for the options' group.
  int mutex_group(bool required);
  // Sub-commands, in Kafka's order (the order of "choose from").
  arg_parser& command(std::string name, arg_parser sub, bool supported = true);
  // kafka-storage.sh reads further arguments from "@file", one per line.
  arg_parser& from_file_prefix(char prefix);

  bool parse(std::span<const std::string> args, arg_values* out, arg_error* error) const;

  const std::string& prog() const { return prog_; }
  const std::string& help() const { return help_; }
  // The help screen's first paragraph: "usage: ...\n".
  std::string usage() const;

 private:
  struct state;
  bool parse_level(state& st, arg_values* out, arg_error* error) const;
  bool take_option(state& st, const std::string& term, arg_values* out, std::vector<bool>& used,
                   std::vector<int>& group_used, arg_error* error) const;
  bool run_option(state& st, size_t index, const std::string& flag, std::optional<std::string> embedded,
                  arg_values* out, std::vector<bool>& used, std::vector<int>& group_used, arg_error* error) const;
  bool take_command(state& st, arg_values* out, arg_error* error) const;
  // The option a flag (or a unique prefix of one) names: index, -1 for none,
  // -2 (with *error) when ambiguous.
  int resolve(const std::string& flag, arg_error* error) const;
  void check_required(state& st, const std::vector<bool>& used, const std::vector<int>& group_used) const;
  bool fail(arg_error* error, std::string message) const;
  std::string flag_candidates(const std::string& body) const;

  std::string prog_;
  std::string help_;
  std::vector<arg_option> options_;
  std::vector<bool> group_required_;
  std::vector<std::pair<std::string, arg_parser>> commands_;
  std::vector<bool> command_supported_;
  char from_file_ = 0;
};

// argparse4j's handleError: the usage, then "prog: error: message" wrapped
// (and space-justified) to 75 columns, then the candidates.
std::string format_arg_error(const arg_error& error);

// argparse4j's TextHelper.wrap with its space justification, at `width`
// columns, over the break points Java's line BreakIterator gives ASCII text
// (after spaces, after dashes and after '.' or quotes that end a word).
std::string java_wrap(std::string_view text, size_t width);

// argparse4j's "Did you mean" list for `body` among `subjects`: the closest
// by git's weighted Damerau-Levenshtein distance, empty when none is close.
std::string did_you_mean(const std::string& body, const std::vector<std::pair<std::string, std::string>>& subjects);

}  // namespace hw::tools::cli
