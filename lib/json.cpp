#include "json.h"

#include <cerrno>
#include <cstdlib>

namespace ttemu {

namespace {

const char* kind_name(Json::Kind kind) {
  switch (kind) {
    case Json::Kind::Null: return "null";
    case Json::Kind::Bool: return "a boolean";
    case Json::Kind::Number: return "a number";
    case Json::Kind::String: return "a string";
    case Json::Kind::Array: return "an array";
    case Json::Kind::Object: return "an object";
  }
  return "?";
}

void append_utf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

}  // namespace

// Recursive descent over the text; `position_` only moves forward.
class JsonParser {
 public:
  JsonParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  Json document() {
    Json root = value("", 0);
    skip_space();
    if (position_ != text_.size()) fail("unexpected text after the JSON value");
    return root;
  }

 private:
  // Deep enough for any program; bounds the recursion on hostile input.
  static constexpr int kMaxDepth = 64;

  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < position_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw JsonError(source_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }

  void skip_space() {
    while (position_ < text_.size() &&
           (text_[position_] == ' ' || text_[position_] == '\t' || text_[position_] == '\n' || text_[position_] == '\r'))
      ++position_;
  }

  bool at_end() const { return position_ >= text_.size(); }

  void expect_word(const char* word) {
    for (const char* c = word; *c; ++c, ++position_)
      if (at_end() || text_[position_] != *c) fail(std::string("expected '") + word + "'");
  }

  Json value(const std::string& path, int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    skip_space();
    if (at_end()) fail("expected a value, found the end of the text");
    Json result;
    result.source_ = source_;
    result.path_ = path;
    char c = text_[position_];
    if (c == '{') {
      result.kind_ = Json::Kind::Object;
      ++position_;
      skip_space();
      if (!at_end() && text_[position_] == '}') {
        ++position_;
        return result;
      }
      for (;;) {
        skip_space();
        if (at_end() || text_[position_] != '"') fail("expected a field name in quotes");
        std::string key = string_body();
        for (const auto& member : result.members_)
          if (member.first == key) fail("field '" + key + "' appears twice");
        skip_space();
        if (at_end() || text_[position_] != ':') fail("expected ':' after field name '" + key + "'");
        ++position_;
        result.members_.emplace_back(key, value(path.empty() ? key : path + "." + key, depth + 1));
        skip_space();
        if (!at_end() && text_[position_] == ',') {
          ++position_;
        } else if (!at_end() && text_[position_] == '}') {
          ++position_;
          return result;
        } else {
          fail("expected ',' or '}' in an object");
        }
      }
    }
    if (c == '[') {
      result.kind_ = Json::Kind::Array;
      ++position_;
      skip_space();
      if (!at_end() && text_[position_] == ']') {
        ++position_;
        return result;
      }
      for (;;) {
        result.items_.push_back(value(path + "[" + std::to_string(result.items_.size()) + "]", depth + 1));
        skip_space();
        if (!at_end() && text_[position_] == ',') {
          ++position_;
        } else if (!at_end() && text_[position_] == ']') {
          ++position_;
          return result;
        } else {
          fail("expected ',' or ']' in an array");
        }
      }
    }
    if (c == '"') {
      result.kind_ = Json::Kind::String;
      result.text_ = string_body();
    } else if (c == 't') {
      expect_word("true");
      result.kind_ = Json::Kind::Bool;
      result.bool_ = true;
    } else if (c == 'f') {
      expect_word("false");
      result.kind_ = Json::Kind::Bool;
    } else if (c == 'n') {
      expect_word("null");
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      result.kind_ = Json::Kind::Number;
      result.text_ = number();
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    return result;
  }

  // The grammar of RFC 8259 section 6; the text is kept as written.
  std::string number() {
    size_t start = position_;
    auto digits = [&] {
      size_t first = position_;
      while (!at_end() && text_[position_] >= '0' && text_[position_] <= '9') ++position_;
      if (position_ == first) fail("malformed number: expected a digit");
    };
    if (text_[position_] == '-') ++position_;
    if (!at_end() && text_[position_] == '0') {
      ++position_;
    } else {
      digits();
    }
    if (!at_end() && text_[position_] == '.') {
      ++position_;
      digits();
    }
    if (!at_end() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (!at_end() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      digits();
    }
    return text_.substr(start, position_ - start);
  }

  uint32_t hex4() {
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i, ++position_) {
      if (at_end()) fail("unterminated \\u escape");
      char h = text_[position_];
      code <<= 4;
      if (h >= '0' && h <= '9') code |= h - '0';
      else if (h >= 'a' && h <= 'f') code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') code |= h - 'A' + 10;
      else fail("malformed \\u escape");
    }
    return code;
  }

  // At an opening quote: the decoded string, after its closing quote.
  std::string string_body() {
    ++position_;
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      char c = text_[position_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string (escape it)");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) fail("unterminated string");
      char escape = text_[position_++];
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t code = hex4();
          if (code >= 0xD800 && code < 0xDC00) {  // a surrogate pair: \uD8xx\uDCxx
            if (text_.compare(position_, 2, "\\u") != 0) fail("unpaired surrogate in \\u escape");
            position_ += 2;
            uint32_t low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate in \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            fail("unpaired surrogate in \\u escape");
          }
          append_utf8(out, code);
          break;
        }
        default: fail(std::string("unknown escape '\\") + escape + "'");
      }
    }
  }

  const std::string& text_;
  const std::string& source_;
  size_t position_ = 0;
};

Json Json::parse(const std::string& text, const std::string& source) {
  return JsonParser(text, source).document();
}

std::string Json::where() const { return path_.empty() ? source_ : source_ + ": " + path_; }

void Json::wrong_kind(const char* expected) const {
  throw JsonError(where() + ": expected " + expected + ", found " + kind_name(kind_));
}

bool Json::as_bool() const {
  if (kind_ != Kind::Bool) wrong_kind("a boolean");
  return bool_;
}

int64_t Json::as_int(int64_t min, int64_t max) const {
  if (kind_ != Kind::Number) wrong_kind("an integer");
  if (text_.find_first_of(".eE") != std::string::npos)
    throw JsonError(where() + ": expected an integer, found " + text_);
  errno = 0;
  long long value = std::strtoll(text_.c_str(), nullptr, 10);
  if (errno == ERANGE || value < min || value > max)
    throw JsonError(where() + ": " + text_ + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

const std::string& Json::as_string() const {
  if (kind_ != Kind::String) wrong_kind("a string");
  return text_;
}

const std::vector<Json>& Json::items() const {
  if (kind_ != Kind::Array) wrong_kind("an array");
  return items_;
}

const std::vector<std::pair<std::string, Json>>& Json::members() const {
  if (kind_ != Kind::Object) wrong_kind("an object");
  return members_;
}

const Json* Json::find(const std::string& key) const {
  for (const auto& [name, value] : members())
    if (name == key) return &value;
  return nullptr;
}

const Json& Json::at(const std::string& key) const {
  if (const Json* found = find(key)) return *found;
  throw JsonError(source_ + ": missing field '" + (path_.empty() ? key : path_ + "." + key) + "'");
}

}  // namespace ttemu
