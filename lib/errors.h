// Reporting kernel misuse: one message naming the core, thread, kernel (and CB), then
// exit with kExitKernelError so the launcher can tell misuse from a crash.
#pragma once

#include <functional>
#include <string>

namespace ttemu {

constexpr int kExitKernelError = 3;
constexpr int kExitSetupError = 2;

// Where the error happened ("core (0,1) compute [kernel 'add']"); set by the device.
void set_error_context(std::function<std::string()> context);
// A kernel misused the API (or deadlocked): report with context and exit.
[[noreturn]] void fail(const std::string& message);
// The same for a misuse the compiler located in the kernel's source: `source` is
// "file:line" (empty when unknown), reported first on its own line ("ttemu location: ")
// for the launcher to attach to the error.
[[noreturn]] void fail_at(const std::string& source, const std::string& message);
// The program description itself is wrong (no kernel context): report and exit.
[[noreturn]] void fail_setup(const std::string& message);

}  // namespace ttemu
