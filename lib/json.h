// A small JSON reader for the files the Python launcher writes (program.json,
// launch.json; see program_loader.h). It reads RFC 8259 JSON (\uXXXX escapes outside
// ASCII become UTF-8) into a tree in which every value knows where it came from: its
// file and its field path (`program.json: cbs[2].page_size`), so a malformed or
// mistyped field is reported by name. Errors are thrown as JsonError; the caller
// decides how to report them.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ttemu {

struct JsonError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  // Parses `text`; `source` names it in error messages (a file name). A syntax error
  // says the line and column and what was expected.
  static Json parse(const std::string& text, const std::string& source);

  Kind kind() const { return kind_; }
  // "<source>: <field path>" (the path is empty for the document itself).
  std::string where() const;

  // Typed access: each throws JsonError naming this value's field when the kind differs.
  bool as_bool() const;
  // An integer within [min, max]; a fraction or exponent form is not an integer.
  int64_t as_int(int64_t min, int64_t max) const;
  const std::string& as_string() const;
  const std::vector<Json>& items() const;                            // an array's
  const std::vector<std::pair<std::string, Json>>& members() const;  // an object's, in order

  // An object's member: `at` throws JsonError naming the missing field, `find` returns null.
  const Json& at(const std::string& key) const;
  const Json* find(const std::string& key) const;

 private:
  friend class JsonParser;
  [[noreturn]] void wrong_kind(const char* expected) const;

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  std::string text_;  // a string's value, or a number's digits as written
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
  std::string source_;
  std::string path_;
};

}  // namespace ttemu
