// What the emulator's C++ test programs share: CHECK records a failed condition and
// goes on; main ends with `return finish_checks("...")`.
#pragma once

#include <cstdio>

inline int g_failures = 0;

#define CHECK(condition)                                                                \
  do {                                                                                  \
    if (!(condition)) {                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++g_failures;                                                                     \
    }                                                                                   \
  } while (0)

// The exit status of a test program: nonzero when any check failed.
inline int finish_checks(const char* suite) {
  if (g_failures) {
    std::fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("all %s passed\n", suite);
  return 0;
}
