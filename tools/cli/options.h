#pragma once
// The command line as Kafka's tools read it (they use joptsimple, built
// without abbreviations): long options only, "--name value" or
// "--name=value", an option given twice collects both values, anything not
// an option is a non-option argument. A tool declares every option Kafka's
// tool has; the ones the native tool does not implement are declared
// unsupported, so that using one fails with a message naming it instead of
// being ignored.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hw::tools::cli {

class option_set {
 public:
  bool has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  // The option's value; the first one when it was given more than once.
  std::optional<std::string> value(std::string_view name) const;
  std::string value_or(std::string_view name, std::string fallback) const;
  // Every value given, in order (empty for a flag or an absent option).
  std::vector<std::string> values(std::string_view name) const;
  const std::vector<std::string>& non_options() const { return non_options_; }

 private:
  friend class option_parser;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> non_options_;
};

class option_parser {
 public:
  // A flag takes no value; an option requires one.
  option_parser& flag(std::string name, std::string help);
  option_parser& option(std::string name, std::string value_name, std::string help);
  // joptsimple's withOptionalArg: takes the next word as its value unless
  // that looks like an option; given without one, it is there with no value.
  option_parser& optional(std::string name, std::string value_name, std::string help);
  // withOptionalArg().ofType(Long.class): joptsimple takes the next word as
  // the value when it converts to a Java long (a negative number too, which
  // would otherwise look like an option; an empty word as well, which it
  // converts later and fails on), else the option stands without one.
  option_parser& optional_long(std::string name, std::string value_name, std::string help);
  // Kafka's tool has it; this one refuses it by name.
  option_parser& unsupported(std::string name, bool takes_value);

  // False with joptsimple's message ("foo is not a recognized option",
  // "Option topic requires an argument") or the unsupported one in *error.
  bool parse(std::span<const std::string> args, option_set* out, std::string* error) const;

  // The option table joptsimple prints ("Option  Description" columns),
  // sorted by name as joptsimple sorts it.
  std::string usage() const;

 private:
  struct spec {
    std::string name;
    bool takes_value = false;
    bool supported = true;
    bool value_optional = false;
    bool value_long = false;  // optional_long
    std::string value_name;
    std::string help;
  };
  const spec* find(std::string_view name) const;
  std::vector<spec> specs_;
};

// "a=1,b=2" style lists are not parsed here: Kafka splits --config and
// --property values one per option. This splits one "key=value" (the value
// may contain '='); false if there is no '='.
bool split_key_value(std::string_view text, std::string* key, std::string* value);

}  // namespace hw::tools::cli
