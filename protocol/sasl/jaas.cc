// jaas: sasl.jaas.config values (Kafka's JaasConfig) and JAAS files (the
// JDK's ConfigFile), tokenized as Java's StreamTokenizer does under each
// one's settings.
#include "protocol/sasl/jaas.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hw::protocol {

namespace {

struct token {
  enum kind { end, word, quoted, number, symbol } type = end;
  std::string text;  // word, quoted string or number text
  char symbol_char = 0;
  char quote = 0;  // the quote of a quoted string
  int line = 1;    // the line it starts on, as a JAAS file counts them
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
  // file_syntax: the JDK's reader of JAAS files, which also takes '*' in words.
  explicit tokenizer(std::string_view s, bool file_syntax = false) : s_(s), file_syntax_(file_syntax) {}

  token next() {
    skip_space_and_comments();
    token t;
    t.line = line_;
    if (i_ >= s_.size()) return t;
    const unsigned char c = static_cast<unsigned char>(s_[i_]);
    auto in_word = [&](unsigned char x) { return continues_word(x) || (file_syntax_ && x == '*'); };
    if (starts_word(c) || (file_syntax_ && c == '*')) {
      t.type = token::word;
      while (i_ < s_.size() && in_word(static_cast<unsigned char>(s_[i_]))) t.text += s_[i_++];
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
      t.quote = static_cast<char>(c);
      t.text = quoted(t.quote);
      return t;
    }
    t.type = token::symbol;
    t.symbol_char = static_cast<char>(c);
    ++i_;
    return t;
  }

 private:
  // Line ends are counted outside /* */ comments only, as the JDK's reader
  // counts them (the end-of-line tokens its tokenizer returns).
  void skip_space_and_comments() {
    for (;;) {
      for (; i_ < s_.size() && static_cast<unsigned char>(s_[i_]) <= ' '; ++i_)
        if (s_[i_] == '\n' || (s_[i_] == '\r' && (i_ + 1 == s_.size() || s_[i_ + 1] != '\n'))) ++line_;
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
  bool file_syntax_;
  size_t i_ = 0;
  int line_ = 1;
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

// A JAAS file as the JDK's login configuration (ConfigFile) reads it:
// "Name { <module> <flag> (key=value)* ; ... };", names and values words or
// double-quoted strings, and its errors ("Configuration Error:" then the
// line and what was expected).
class file_parser {
 public:
  explicit file_parser(std::string_view text) : in_(text, true) { advance(); }

  jaas_file parse() {
    while (look_.type != token::end && section()) {
    }
    out_.error = error_;
    if (!out_.ok()) out_.sections.clear();
    return std::move(out_);
  }

 private:
  void advance() { look_ = in_.next(); }
  bool symbol(char c) const { return look_.type == token::symbol && look_.symbol_char == c; }
  bool fail(const std::string& what) {
    error_ = "Configuration Error:\n\t" + what;
    return false;
  }
  // What the JDK quotes of the token found: not where an option's value
  // stands (after a key, where '=' or the value was expected), which may be
  // a password.
  static std::string shown(const std::string& expect, const std::string& text) {
    return expect == "=" || expect == "option value" ? "(hidden)" : text;
  }
  bool fail_at(const std::string& what) { return fail("Line " + std::to_string(look_.line) + ": " + what); }

  // The token expected next: a name or value (into *value), or one of { } ; =.
  bool match(const std::string& expect, std::string* value = nullptr) {
    const bool text = look_.type == token::word || (look_.type == token::quoted && look_.quote == '"');
    if (look_.type == token::end) return fail("expected [" + expect + "], read [end of file]");
    if (text && value) {
      *value = look_.text;
    } else if (text) {
      return fail_at("expected [" + expect + "], found [" + shown(expect, look_.text) + "]");
    } else if (look_.type == token::symbol && std::string("{};=").find(look_.symbol_char) != std::string::npos) {
      if (expect != std::string(1, look_.symbol_char)) return fail_at("expected [" + expect + "]");
    } else {
      // A number, another character or a single-quoted string: its string value.
      return fail_at("expected [" + expect + "], found [" +
                     (look_.type == token::quoted ? shown(expect, look_.text) : std::string("null")) + "]");
    }
    advance();
    return true;
  }

  bool section() {
    const std::string name = look_.type == token::word || look_.type == token::quoted ? look_.text : "null";
    advance();
    if (!match("{")) return false;
    std::vector<jaas_entry> entries;
    while (!symbol('}')) {
      jaas_entry e;
      std::string flag;
      if (!match("module class name", &e.login_module) || !match("controlFlag", &flag)) return false;
      for (char& c : flag) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (flag != "REQUIRED" && flag != "REQUISITE" && flag != "SUFFICIENT" && flag != "OPTIONAL")
        return fail("Invalid control flag, " + flag);
      for (char& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      e.flag = flag;
      while (!symbol(';')) {
        std::string key, value;
        if (!match("option key", &key) || !match("=") || !match("option value", &value)) return false;
        e.options[key] = value;
      }
      advance();
      entries.push_back(std::move(e));
    }
    if (!match("}") || !match(";")) return false;
    if (out_.sections.count(name)) return fail("Can not specify multiple entries for " + name);
    out_.sections[name] = std::move(entries);
    return true;
  }

  tokenizer in_;
  token look_;
  jaas_file out_;
  std::string error_;
};

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

jaas_file parse_jaas_file(std::string_view text) { return file_parser(text).parse(); }

jaas_file read_jaas_file(const std::string& property) {
  // A value starting with '=' replaces the JVM's other login files: the path follows it.
  const std::string path = property.starts_with("=") ? property.substr(1) : property;
  std::ifstream in(path, std::ios::binary);
  jaas_file out;
  if (!in) {
    out.error = path + " (" + std::strerror(errno) + ")";
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    out.error = path + " (" + std::strerror(errno) + ")";
    return out;
  }
  return parse_jaas_file(text.str());
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
