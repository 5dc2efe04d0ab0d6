// The JSON of --path-to-json-file as Kafka reads it: nlohmann/json's parser
// held to Jackson's rules where the two differ (readTree with its default
// features and StreamReadConstraints), and JsonNode.toString for the nodes
// Kafka names in its messages.

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "protocol/json/json_out.h"
#include "tools/commands/leader_election.h"

namespace hw::tools::election::json {
namespace {

// Jackson's StreamReadConstraints: nesting, and digits in a number.
constexpr int k_max_depth = 1000;
constexpr std::ptrdiff_t k_max_number_digits = 1000;
constexpr std::string_view k_space = " \t\n\r";

// nlohmann's own tree builder (detail::, the one json::parse uses), with
// Jackson's limits and number nodes.
class jackson_tree : public nlohmann::detail::json_sax_dom_parser<value> {
  using base = nlohmann::detail::json_sax_dom_parser<value>;

 public:
  explicit jackson_tree(value* root) : base(*root, /*allow_exceptions=*/false) {}

  bool start_object(size_t n) { return ++depth_ <= k_max_depth && base::start_object(n); }
  bool start_array(size_t n) { return ++depth_ <= k_max_depth && base::start_array(n); }
  bool end_object() {
    --depth_;
    return base::end_object();
  }
  bool end_array() {
    --depth_;
    return base::end_array();
  }

  // A fraction, an exponent, or an integer beyond 64 bits: Jackson's
  // DoubleNode holds the text read as a double (too large: Infinity), its
  // BigIntegerNode the digits, kept here as binary (no JSON text yields it).
  bool number_float(value::number_float_t, const std::string& token) {
    if (std::ranges::count_if(token, [](char c) { return c >= '0' && c <= '9'; }) > k_max_number_digits) return false;
    if (token.find_first_of(".eE") == std::string::npos) {
      value::binary_t digits{std::vector<uint8_t>(token.begin(), token.end())};
      return base::binary(digits);
    }
    return base::number_float(std::strtod(token.c_str(), nullptr), token);
  }

 private:
  int depth_ = 0;
};

// Jackson reads a number at the root up to whitespace (or the end), and a
// literal up to a character that cannot continue a name; nlohmann stops at
// the first character that does not fit.
bool root_token_complete(std::string_view text) {
  const char c = text.front();
  if (c == '-' || (c >= '0' && c <= '9')) return value::accept(text.substr(0, text.find_first_of(k_space)));
  for (std::string_view word : {"true", "false", "null"}) {
    if (!text.starts_with(word)) continue;
    if (text.size() == word.size()) return true;
    const auto next = static_cast<unsigned char>(text[word.size()]);
    const bool name_char = (next >= '0' && next <= '9') || ((next | 0x20) >= 'a' && (next | 0x20) <= 'z') ||
                           next == '_' || next == '$' || next >= 0x80;
    return !name_char;
  }
  return true;
}

void write(const value& v, protocol::json::json_out& out) {
  switch (v.type()) {
    case value::value_t::null: return out.null();
    case value::value_t::boolean: return out.boolean(v.get<bool>());
    case value::value_t::number_integer: return out.integer(v.get<int64_t>());
    case value::value_t::number_unsigned: return out.raw(std::to_string(v.get<uint64_t>()));
    case value::value_t::number_float: return out.float64(static_cast<double>(v.get<long double>()));
    case value::value_t::binary: return out.raw(std::string(v.get_binary().begin(), v.get_binary().end()));
    case value::value_t::string: return out.string(v.get_ref<const std::string&>());
    case value::value_t::array:
      out.begin_array();
      for (const auto& item : v) write(item, out);
      return out.end_array();
    case value::value_t::object:
      out.begin_object();
      for (const auto& [key, member] : v.get_ref<const value::object_t&>()) {
        out.key(key);
        write(member, out);
      }
      return out.end_object();
    case value::value_t::discarded: return;  // a missing node prints as nothing
  }
}

}  // namespace

bool read_tree(std::string_view utf8, value* out) {
  // nlohmann skips a byte order mark; Jackson, reading a String, does not.
  if (utf8.starts_with("\xEF\xBB\xBF")) return false;
  const size_t start = utf8.find_first_not_of(k_space);
  if (start == std::string_view::npos) {
    *out = value(value::value_t::discarded);
    return true;
  }
  jackson_tree tree(out);
  return value::sax_parse(utf8.begin(), utf8.end(), &tree, value::input_format_t::json, /*strict=*/false) &&
         root_token_complete(utf8.substr(start));
}

std::string to_string(const value& v) {
  protocol::json::json_out out;
  write(v, out);
  return out.text();
}

}  // namespace hw::tools::election::json
