// jaas: sasl.jaas.config values and JAAS files, tokenized as Java's
// StreamTokenizer does under Kafka's settings.
#include "protocol/sasl/jaas.h"

#include <cctype>

namespace hw::protocol {

namespace {

struct token {
  enum kind { end, word, quoted, number, symbol } type = end;
  std::string text;  // word, quoted string or number text
  char symbol_char = 0;
};

// Word characters: letters and any non-ASCII character (StreamTokenizer's
// defaults; UTF-8 bytes stand for the characters), '_' and '$' (Kafka's
// additions); digits, '.' and '-' continue a word. A '-' or a digit first
// starts a number (or, '-' alone, is a symbol), as in Java.
bool starts_word(unsigned char c) { return std::isalpha(c) || c >= 0x80 || c == '_' || c == '$'; }
bool continues_word(unsigned char c) { return starts_word(c) || std::isdigit(c) || c == '.' || c == '-'; }
bool numeric(unsigned char c) { return std::isdigit(c) || c == '.'; }

class tokenizer {
 public:
  explicit tokenizer(std::string_view s) : s_(s) {}

  token next() {
    skip_space_and_comments();
    token t;
    if (i_ >= s_.size()) return t;
    const unsigned char c = static_cast<unsigned char>(s_[i_]);
    if (starts_word(c)) {
      t.type = token::word;
      while (i_ < s_.size() && continues_word(static_cast<unsigned char>(s_[i_]))) t.text += s_[i_++];
      return t;
    }
    const bool negative = c == '-' && i_ + 1 < s_.size() && numeric(static_cast<unsigned char>(s_[i_ + 1]));
    if (numeric(c) || negative) {
      // StreamTokenizer reads a number; its string value is null, so Kafka
      // refuses it as an option value.
      t.type = token::number;
      t.text += s_[i_++];
      while (i_ < s_.size() && numeric(static_cast<unsigned char>(s_[i_]))) t.text += s_[i_++];
      return t;
    }
    if (c == '"' || c == '\'') {
      t.type = token::quoted;
      t.text = quoted(static_cast<char>(c));
      return t;
    }
    t.type = token::symbol;
    t.symbol_char = static_cast<char>(c);
    ++i_;
    return t;
  }

 private:
  void skip_space_and_comments() {
    for (;;) {
      while (i_ < s_.size() && static_cast<unsigned char>(s_[i_]) <= ' ') ++i_;
      if (s_.substr(i_, 2) == "//") {
        while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') ++i_;
      } else if (s_.substr(i_, 2) == "/*") {
        size_t close = s_.find("*/", i_ + 2);
        i_ = close == std::string_view::npos ? s_.size() : close + 2;
      } else if (i_ < s_.size() && s_[i_] == '/') {
        // '/' alone is StreamTokenizer's comment character: the rest of the line.
        while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') ++i_;
      } else {
        return;
      }
    }
  }

  // A quoted string up to the same quote or the end of the line, with
  // Java's escapes (\n \t \b \f \r \a \v, octal, and any other char as itself).
  std::string quoted(char q) {
    std::string out;
    ++i_;
    while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n' && s_[i_] != '\r') {
      char c = s_[i_++];
      if (c != '\\' || i_ >= s_.size()) {
        out += c;
        continue;
      }
      char e = s_[i_++];
      switch (e) {
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            int digits = e <= '3' ? 3 : 2;
            while (--digits > 0 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7') v = v * 8 + (s_[i_++] - '0');
            out += static_cast<char>(v);
          } else {
            out += e;
          }
      }
    }
    if (i_ < s_.size() && s_[i_] == q) ++i_;
    return out;
  }

  std::string_view s_;
  size_t i_ = 0;
};

std::optional<std::string> control_flag(const token& t) {
  if (t.type != token::word && t.type != token::quoted) return std::nullopt;
  std::string f;
  for (char c : t.text) f += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (f == "required" || f == "requisite" || f == "sufficient" || f == "optional") return f;
  return std::nullopt;
}

bool has_text(const token& t) { return t.type == token::word || t.type == token::quoted; }

// One "<module> <flag> (key=value)* ;" entry whose module token was read.
std::optional<jaas_entry> entry(tokenizer& in, const token& module, std::string* error) {
  jaas_entry e;
  e.login_module = module.text;
  token flag = in.next();
  if (flag.type == token::end) {
    *error = "Login module control flag not specified in JAAS config";
    return std::nullopt;
  }
  auto f = control_flag(flag);
  if (!f) {
    *error = "Invalid login module control flag '" + (has_text(flag) ? flag.text : std::string()) + "' in JAAS config";
    return std::nullopt;
  }
  e.flag = *f;
  token t = in.next();
  while (t.type != token::end && !(t.type == token::symbol && t.symbol_char == ';')) {
    const std::string key = has_text(t) ? t.text : std::string("null");
    token eq = in.next();
    token value = eq.type == token::symbol && eq.symbol_char == '=' ? in.next() : token{};
    if (!(eq.type == token::symbol && eq.symbol_char == '=') || !has_text(value)) {
      *error = "Value not specified for key '" + key + "' in JAAS config";
      return std::nullopt;
    }
    e.options[key] = value.text;
    t = in.next();
  }
  if (t.type == token::end) {
    *error = "JAAS config entry not terminated by semi-colon";
    return std::nullopt;
  }
  return e;
}

}  // namespace

jaas_parse_result parse_jaas_config(std::string_view text) {
  jaas_parse_result out;
  tokenizer in(text);
  for (token t = in.next(); t.type != token::end; t = in.next()) {
    auto e = entry(in, t, &out.error);
    if (!e) return out;
    out.entries.push_back(std::move(*e));
  }
  if (out.entries.empty()) out.error = "Login module not specified in JAAS config";
  return out;
}

jaas_file parse_jaas_file(std::string_view text) {
  jaas_file out;
  tokenizer in(text);
  for (token name = in.next(); name.type != token::end; name = in.next()) {
    token open = in.next();
    if (!has_text(name) || !(open.type == token::symbol && open.symbol_char == '{')) {
      out.error = "a JAAS file section must be: Name { entries };";
      return out;
    }
    std::vector<jaas_entry> entries;
    token t = in.next();
    while (!(t.type == token::symbol && t.symbol_char == '}')) {
      if (t.type == token::end || !has_text(t)) {
        out.error = "the JAAS file section " + name.text + " is not closed by };";
        return out;
      }
      auto e = entry(in, t, &out.error);
      if (!e) return out;
      entries.push_back(std::move(*e));
      t = in.next();
    }
    token semi = in.next();
    if (!(semi.type == token::symbol && semi.symbol_char == ';')) {
      out.error = "the JAAS file section " + name.text + " is not closed by };";
      return out;
    }
    out.sections[name.text] = std::move(entries);
  }
  return out;
}

std::map<std::string, std::string> plain_users(const std::vector<jaas_entry>& entries) {
  std::map<std::string, std::string> users;
  for (const auto& e : entries) {
    if (e.login_module != "org.apache.kafka.common.security.plain.PlainLoginModule") continue;
    for (const auto& [k, v] : e.options) {
      if (k.rfind("user_", 0) == 0 && k.size() > 5) users[k.substr(5)] = v;
    }
  }
  return users;
}

}  // namespace hw::protocol
