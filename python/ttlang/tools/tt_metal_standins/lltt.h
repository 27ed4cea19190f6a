// Stand-in for the SFPI toolchain's lltt.h (replay-buffer recording).
#pragma once
namespace lltt {
enum Mode { Exec, NoExec };
template <Mode mode = NoExec, class... A> inline void record(A...) {}
template <class... A> inline void replay(A...) {}
template <class... A> constexpr unsigned replay_insn(A...) { return 0; }
}  // namespace lltt
