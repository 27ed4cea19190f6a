#include "errors.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "ttemu/kernel_bridge.h"

namespace ttemu {

namespace {
std::function<std::string()>& error_context() {
  static std::function<std::string()> context;
  return context;
}
}  // namespace

void set_error_context(std::function<std::string()> context) { error_context() = std::move(context); }

void fail(const std::string& message) {
  std::string where = error_context() ? error_context()() : std::string();
  std::fprintf(stderr, "ttemu error: %s%s%s\n", where.c_str(), where.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  _exit(kExitKernelError);
}

void fail_at(const std::string& source, const std::string& message) {
  if (source.empty()) fail(message);
  std::fprintf(stderr, "ttemu location: %s\n", source.c_str());
  fail(source + ": " + message);
}

void fail_setup(const std::string& message) {
  std::fprintf(stderr, "ttemu error: %s\n", message.c_str());
  std::fflush(stderr);
  _exit(kExitSetupError);
}

[[noreturn]] void kernel_error(const char* message) { fail(message); }

}  // namespace ttemu
