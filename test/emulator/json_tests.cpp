// C++ tests of the JSON reader (lib/json.h) the program loader reads program.json and
// launch.json with: values of every kind, escapes, and malformed or mistyped input,
// whose errors must name the line and column or the field.
#include <cstdio>
#include <string>

#include "check.h"
#include "json.h"

using namespace ttemu;

namespace {

// `body` must throw a JsonError whose message is exactly `expected`.
template <typename Body>
void check_error(Body body, const std::string& expected, int line) {
  try {
    body();
    std::fprintf(stderr, "%s:%d: no error; expected: %s\n", __FILE__, line, expected.c_str());
    ++g_failures;
  } catch (const JsonError& error) {
    if (error.what() != expected) {
      std::fprintf(stderr, "%s:%d: error\n  %s\nexpected\n  %s\n", __FILE__, line, error.what(), expected.c_str());
      ++g_failures;
    }
  }
}
#define CHECK_ERROR(body, expected) check_error([&] { body; }, expected, __LINE__)

void test_values_of_every_kind() {
  Json doc = Json::parse(R"( {"a": [1, -2, 4294967295, 0.5, 1e3], "b": {"c": true, "d": false, "e": null},
                             "s": "x\"\\\/\n\t\u00e9\ud83d\ude00", "empty": [], "none": {}} )",
                         "t.json");
  CHECK(doc.kind() == Json::Kind::Object);
  CHECK(doc.members().size() == 5);
  CHECK(doc.members()[0].first == "a" && doc.members()[4].first == "none");  // order kept
  const auto& a = doc.at("a").items();
  CHECK(a.size() == 5);
  CHECK(a[0].as_int(0, 10) == 1);
  CHECK(a[1].as_int(-10, 10) == -2);
  CHECK(a[2].as_int(0, 4294967295LL) == 4294967295LL);
  CHECK(doc.at("b").at("c").as_bool());
  CHECK(!doc.at("b").at("d").as_bool());
  CHECK(doc.at("b").at("e").kind() == Json::Kind::Null);
  CHECK(doc.at("s").as_string() == "x\"\\/\n\t\xC3\xA9\xF0\x9F\x98\x80");  // é and U+1F600 in UTF-8
  CHECK(doc.at("empty").items().empty());
  CHECK(doc.at("none").members().empty());
  CHECK(doc.find("missing") == nullptr);
  CHECK(a[3].where() == "t.json: a[3]");
  CHECK(doc.at("b").at("c").where() == "t.json: b.c");
}

void test_syntax_errors_name_line_and_column() {
  CHECK_ERROR(Json::parse("{\"a\": 1,\n \"b\" 2}", "p.json"), "p.json:2:6: expected ':' after field name 'b'");
  CHECK_ERROR(Json::parse("[1, 2", "p.json"), "p.json:1:6: expected ',' or ']' in an array");
  CHECK_ERROR(Json::parse("{\"a\": 1,}", "p.json"), "p.json:1:9: expected a field name in quotes");
  CHECK_ERROR(Json::parse("", "p.json"), "p.json:1:1: expected a value, found the end of the text");
  CHECK_ERROR(Json::parse("[1] 2", "p.json"), "p.json:1:5: unexpected text after the JSON value");
  CHECK_ERROR(Json::parse("\"abc", "p.json"), "p.json:1:5: unterminated string");
  CHECK_ERROR(Json::parse("\"a\\qb\"", "p.json"), "p.json:1:5: unknown escape '\\q'");
  CHECK_ERROR(Json::parse("\"\\ud800x\"", "p.json"), "p.json:1:8: unpaired surrogate in \\u escape");
  CHECK_ERROR(Json::parse("\"a\nb\"", "p.json"), "p.json:2:1: control character in a string (escape it)");
  CHECK_ERROR(Json::parse("01", "p.json"), "p.json:1:2: unexpected text after the JSON value");
  CHECK_ERROR(Json::parse("-", "p.json"), "p.json:1:2: malformed number: expected a digit");
  CHECK_ERROR(Json::parse("1.", "p.json"), "p.json:1:3: malformed number: expected a digit");
  CHECK_ERROR(Json::parse("tru", "p.json"), "p.json:1:4: expected 'true'");
  CHECK_ERROR(Json::parse("'a'", "p.json"), "p.json:1:1: unexpected character '''");
  CHECK_ERROR(Json::parse("{\"a\": 1, \"a\": 2}", "p.json"), "p.json:1:13: field 'a' appears twice");
  CHECK_ERROR(Json::parse(std::string(100, '[') + std::string(100, ']'), "p.json"),
              "p.json:1:66: nesting deeper than 64 levels");
}

void test_type_errors_name_the_field() {
  Json doc = Json::parse(R"({"cbs": [{"page_size": "2048", "num_pages": 2.5, "n": -1, "big": 99999999999999999999}],
                            "grid": {"rows": 1}})",
                         "program.json");
  const Json& cb = doc.at("cbs").items()[0];
  CHECK_ERROR(cb.at("page_size").as_int(0, 100), "program.json: cbs[0].page_size: expected an integer, found a string");
  CHECK_ERROR(cb.at("num_pages").as_int(0, 100), "program.json: cbs[0].num_pages: expected an integer, found 2.5");
  CHECK_ERROR(cb.at("n").as_int(0, 100), "program.json: cbs[0].n: -1 is outside [0, 100]");
  CHECK_ERROR(cb.at("big").as_int(0, 100), "program.json: cbs[0].big: 99999999999999999999 is outside [0, 100]");
  CHECK_ERROR(cb.at("index"), "program.json: missing field 'cbs[0].index'");
  CHECK_ERROR(doc.at("format"), "program.json: missing field 'format'");
  CHECK_ERROR(doc.at("grid").items(), "program.json: grid: expected an array, found an object");
  CHECK_ERROR(doc.at("cbs").at("x"), "program.json: cbs: expected an object, found an array");
  CHECK_ERROR(cb.at("page_size").as_bool(), "program.json: cbs[0].page_size: expected a boolean, found a string");
  CHECK_ERROR(doc.at("grid").at("rows").as_string(), "program.json: grid.rows: expected a string, found a number");
}

}  // namespace

int main() {
  test_values_of_every_kind();
  test_syntax_errors_name_line_and_column();
  test_type_errors_name_the_field();
  return finish_checks("JSON reader tests");
}
