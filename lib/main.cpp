// ttemu-run <work dir>: runs one program on the emulated device (see program_loader.h).
#include <chrono>
#include <cstdio>

#include "errors.h"
#include "program_loader.h"
#include "trace.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ttemu-run <work dir>\n");
    return ttemu::kExitSetupError;
  }
  ttemu::LoadedProgram program = ttemu::load_program(argv[1]);
  auto start = std::chrono::steady_clock::now();
  ttemu::TraceRecorder::start_from_environment(*program.device);
  program.device->run();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ttemu::TraceRecorder::finish(*program.device);
  ttemu::save_results(program, argv[1], seconds);
  return 0;
}
