// The kernel API (include/ttemu/kernel_bridge.h) on the running device: each call finds
// the calling core and thread, checks the call, performs it and charges its cost.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "cost_table.h"
#include "device.h"
#include "errors.h"
#include "math_lanes.h"
#include "numerics.h"
#include "tile_math.h"
#include "trace.h"
#include "ttemu/kernel_bridge.h"

namespace ttemu {

namespace {

Device& device() { return Device::active(); }
Scheduler& scheduler() { return Device::active().scheduler(); }
const CostTable& costs() { return Device::active().costs(); }

// The calling compute thread's core; compute calls from a data-movement kernel fail.
// Deferred matmuls (math_lanes.h) finish first unless the call is another matmul.
Core& compute_core(const char* call, bool drain = true) {
  device().note_api_call(call);
  KernelThread& thread = device().thread();
  if (thread.kind != ThreadKind::Compute)
    fail(std::string(call) + " is a compute API call, made from a data-movement kernel");
  if (drain) device().math_lanes().drain(thread.core->index());
  return *thread.core;
}

// A CB page as row-major fp32 in `scratch`.
const float* unpack_front(Core& core, uint32_t cb_id, uint32_t tile, const char* call, float* scratch) {
  CircularBuffer& cb = core.cb(cb_id, call);
  cb.check_holds_tiles(call);
  unpack_tile(cb.front_page(tile, call), cb.format(), scratch);
  ++device().thread().tiles_unpacked;
  return scratch;
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// The offset in the calling core's L1 of a local address range, or an error.
uint32_t local_l1_offset(uint32_t address, uint32_t size, const char* call, const char* role) {
  int core_index;
  uint32_t offset;
  Core& self = *device().thread().core;
  if (!device().locate_l1(address, &core_index, &offset) || core_index != self.index())
    fail(std::string(call) + ": " + role + " address " + hex(address) + " is not in this core's L1");
  if (static_cast<uint64_t>(offset) + size > device().l1_bytes())
    fail(std::string(call) + ": " + role + " range " + hex(address) + " + " + std::to_string(size) +
         " bytes runs past the end of L1");
  return offset;
}

uint8_t* remote_l1(Core& core, uint32_t offset, uint32_t size, const char* call) {
  if (static_cast<uint64_t>(offset) + size > device().l1_bytes())
    fail(std::string(call) + ": L1 offset " + hex(offset) + " + " + std::to_string(size) + " bytes on " +
         core.label() + " runs past the end of L1");
  return core.l1() + offset;
}

// Fails when a transfer this thread started still uses one of the `num_pages` pages
// `cb_push_back` publishes (a read writing them) or `cb_pop_front` frees (a write
// reading them); a transfer complete by now is landed instead (a read's bytes copied).
void check_pages_settled(uint32_t cb_id, uint32_t num_pages, bool push) {
  KernelThread& thread = device().thread();
  if (thread.kind == ThreadKind::Compute) return;
  CircularBuffer& cb = thread.core->cb(cb_id, push ? "cb_push_back" : "cb_pop_front");
  auto& in_flight = push ? thread.reads_in_flight : thread.writes_in_flight;
  uint64_t now = scheduler().now();
  for (auto it = in_flight.begin(); it != in_flight.end();) {
    bool overlaps = false;
    for (uint32_t i = 0; i < num_pages && !overlaps; ++i) {
      uint8_t* page = push ? cb.back_page_address(i) : cb.front_page_address(i);
      overlaps = it->l1 < page + cb.page_size() && page < it->l1 + it->size;
    }
    if (!overlaps && it->done > now) {
      ++it;
      continue;
    }
    if (overlaps && it->done > now) {
      const char* call = push ? "cb_push_back" : "cb_pop_front";
      fail(std::string(call) + "(cb " + std::to_string(cb_id) + ", " + std::to_string(num_pages) + ") " +
           (push ? "publishes a page a noc_async_read of this thread is still writing"
                 : "frees a page a noc_async_write of this thread is still reading") +
           " (the transfer completes at cycle " + std::to_string(it->done) + ", now is cycle " + std::to_string(now) +
           "): call " + (push ? "noc_async_read_barrier()" : "noc_async_write_barrier()") + " before " + call);
    }
    if (push) std::memcpy(it->l1, it->data.data(), it->size);
    it = in_flight.erase(it);
  }
}

// The cores of a multicast rectangle on `noc`, excluding the sender unless include_self.
// NoC 0 runs +x, +y and NoC 1 the other way, so a rectangle starts at the corner its NoC
// reaches first: on NoC 1 at the larger x and y (tt-metal's programs swap start and end
// for a NoC 1 multicast; get_noc_multicast_addr's NoC 1 coordinates count backwards).
std::vector<Core*> multicast_targets(const NocAddress& target, bool include_self, uint32_t num_dests, int noc,
                                     const char* call) {
  if (target.kind != NocAddress::Kind::Multicast)
    fail(std::string(call) + ": destination is not a multicast address (use get_noc_multicast_addr)");
  uint32_t x_first = target.x, y_first = target.y, x_last = target.x_end, y_last = target.y_end;
  if (noc == 1) std::swap(x_first, x_last), std::swap(y_first, y_last);
  if (x_first > x_last || y_first > y_last)
    fail(std::string(call) + ": on NoC " + std::to_string(noc) + " a multicast rectangle starts at its " +
         (noc == 0 ? "smallest x and y (start <= end)" : "largest x and y (start >= end: NoC 1 runs backwards)") +
         "; got start (" + std::to_string(target.x) + "," + std::to_string(target.y) + "), end (" +
         std::to_string(target.x_end) + "," + std::to_string(target.y_end) + ")");
  Core& self = *device().thread().core;
  std::vector<Core*> cores;
  for (uint32_t y = y_first; y <= y_last; ++y)
    for (uint32_t x = x_first; x <= x_last; ++x) {
      Core& core = device().core_at_noc(x, y, call);
      if (&core != &self || include_self) cores.push_back(&core);
    }
  if (cores.size() != num_dests)
    fail(std::string(call) + ": num_dests is " + std::to_string(num_dests) + " but the rectangle holds " +
         std::to_string(cores.size()) + " destination core(s)");
  return cores;
}

// The NoC a call names: 0 or 1.
int checked_noc(uint8_t noc, const char* call) {
  if (noc > 1) fail(std::string(call) + ": noc " + std::to_string(noc) + " does not exist (a Tensix has NoC 0 and NoC 1)");
  return noc;
}

// Runs `action` when a message sent now on `noc` from the calling core arrives at
// `target`, then wakes the target's semaphore waiters.
void deliver_to_semaphore(Core& target, int noc, std::function<void()> action) {
  uint64_t arrival =
      device().noc().message_arrival(device().thread().core->index(), noc, target.index(), scheduler().now());
  Core* core = &target;
  scheduler().schedule(arrival, [core, arrival, action = std::move(action)] {
    action();
    core->wake_semaphore_waiters(Device::active().scheduler(), arrival);
  });
}

}  // namespace

// ---- arguments ----------------------------------------------------------------------
uint32_t runtime_arg(uint32_t index) {
  KernelThread& thread = device().thread();
  if (index >= thread.runtime_args.size())
    fail("get_arg_val(" + std::to_string(index) + "): the kernel has " + std::to_string(thread.runtime_args.size()) +
         " runtime arg(s) on this core");
  return thread.runtime_args[index];
}

uint32_t common_runtime_arg(uint32_t index) {
  fail("get_common_arg_val(" + std::to_string(index) + "): common runtime args are not part of the program descriptor");
}

// ---- circular buffers ------------------------------------------------------------------
// In a compute kernel, cb_wait_front/cb_pop_front run on the unpacker (the fiber's
// clock) and cb_reserve_back/cb_push_back on the packer (KernelThread::pack_clock).
void cb_wait_front(uint32_t cb, uint32_t num_pages) {
  device().note_api_call("cb_wait_front");
  TracedCall traced("cb_wait_front", CbOp::Wait, cb, num_pages);
  uint64_t pushed = device().thread().core->cb(cb, "cb_wait_front").wait_front(scheduler(), num_pages);
  scheduler().wait_until(pushed);
  scheduler().advance(costs().cb_call);
}
void cb_pop_front(uint32_t cb, uint32_t num_pages) {
  device().note_api_call("cb_pop_front");
  TracedCall traced("cb_pop_front", CbOp::Pop, cb, num_pages);
  device().math_lanes().drain(device().thread().core->index());  // pending matmuls may read the popped pages
  scheduler().advance(costs().cb_call);
  check_pages_settled(cb, num_pages, /*push=*/false);
  device().thread().core->cb(cb, "cb_pop_front").pop_front(scheduler(), num_pages, scheduler().now());
}
void cb_reserve_back(uint32_t cb, uint32_t num_pages) {
  device().note_api_call("cb_reserve_back");
  TracedCall traced("cb_reserve_back", CbOp::Reserve, cb, num_pages);
  KernelThread& thread = device().thread();
  uint64_t freed = thread.core->cb(cb, "cb_reserve_back").reserve_back(scheduler(), num_pages);
  if (thread.kind == ThreadKind::Compute) {
    thread.pack_wait_until(freed);
    thread.pack_advance(costs().cb_call);
  } else {
    scheduler().wait_until(freed);
    scheduler().advance(costs().cb_call);
  }
}
void cb_push_back(uint32_t cb, uint32_t num_pages) {
  device().note_api_call("cb_push_back");
  TracedCall traced("cb_push_back", CbOp::Push, cb, num_pages);
  KernelThread& thread = device().thread();
  uint64_t time;
  if (thread.kind == ThreadKind::Compute) {
    thread.pack_advance(costs().cb_call);
    time = thread.pack_clock;
  } else {
    scheduler().advance(costs().cb_call);
    time = scheduler().now();
    check_pages_settled(cb, num_pages, /*push=*/true);
  }
  thread.core->cb(cb, "cb_push_back").push_back(scheduler(), num_pages, time);
}
bool cb_pages_available_at_front(uint32_t cb, uint32_t num_pages) {
  TracedCall traced("cb_pages_available_at_front", static_cast<int32_t>(cb));
  scheduler().sync_point();
  scheduler().advance(costs().cb_call);
  return device().thread().core->cb(cb, "cb_pages_available_at_front").pages_filled() >= num_pages;
}
bool cb_pages_reservable_at_back(uint32_t cb, uint32_t num_pages) {
  TracedCall traced("cb_pages_reservable_at_back", static_cast<int32_t>(cb));
  scheduler().sync_point();
  scheduler().advance(costs().cb_call);
  return device().thread().core->cb(cb, "cb_pages_reservable_at_back").pages_free() >= num_pages;
}
uint32_t cb_read_ptr(uint32_t cb) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(device().thread().core->cb(cb, "get_read_ptr").read_ptr()));
}
uint32_t cb_write_ptr(uint32_t cb) {
  return static_cast<uint32_t>(
      reinterpret_cast<uintptr_t>(device().thread().core->cb(cb, "get_write_ptr").write_ptr()));
}
uint32_t cb_page_size(uint32_t cb) { return device().thread().core->cb(cb, "get_tile_size").page_size(); }
DataFormat cb_data_format(uint32_t cb) { return device().thread().core->cb(cb, "get_dataformat").format(); }

// ---- compute: DST protocol ----------------------------------------------------------------
void tile_regs_acquire() {
  TracedCall traced("tile_regs_acquire");
  Core& core = compute_core("tile_regs_acquire");
  KernelThread& thread = device().thread();
  // Full sync: one DST section, so math waits for every pack; half sync: two halves.
  bool full_sync = device().config().dst_full_sync_en;
  scheduler().wait_until(thread.half_free_at[full_sync ? 0 : thread.sections_released % 2]);
  core.dst().acquire();
  scheduler().advance(costs().tile_regs_sync);
}
void tile_regs_commit() {
  TracedCall traced("tile_regs_commit");
  Core& core = compute_core("tile_regs_commit", false);
  core.dst().commit();
  device().math_lanes().seal(core.index());  // the section's matmuls may start
  scheduler().advance(costs().tile_regs_sync);
  device().thread().committed_at = scheduler().now();
}
void tile_regs_wait() {
  TracedCall traced("tile_regs_wait");
  compute_core("tile_regs_wait").dst().wait();
  KernelThread& thread = device().thread();
  thread.pack_wait_until(thread.committed_at);
  thread.pack_advance(costs().tile_regs_sync);
}
void tile_regs_release() {
  TracedCall traced("tile_regs_release");
  compute_core("tile_regs_release").dst().release();
  KernelThread& thread = device().thread();
  thread.pack_advance(costs().tile_regs_sync);
  bool full_sync = device().config().dst_full_sync_en;
  thread.half_free_at[full_sync ? 0 : thread.sections_released % 2] = thread.pack_clock;
  ++thread.sections_released;
}

void init(InitKind kind) {
  static const char* const names[] = {"compute_kernel_hw_startup", "copy_init", "matmul_init", "reduce_init",
                                      "add/sub/mul_init", "bcast init", "transpose_init", "SFPU op init"};
  TracedCall traced(names[static_cast<int>(kind)]);
  compute_core(names[static_cast<int>(kind)]);
  scheduler().advance(costs().init);
}

void reconfig_data_format(const char* call, int32_t first_old, int32_t first_new, int32_t second_old,
                          int32_t second_new) {
  TracedCall traced(call);
  Core& core = compute_core(call);
  auto changes = [&](int32_t old_cb, int32_t new_cb) {
    if (new_cb == kNoCB) return false;
    DataFormat format = core.cb(static_cast<uint32_t>(new_cb), call).format();
    return old_cb == kNoCB || core.cb(static_cast<uint32_t>(old_cb), call).format() != format;
  };
  bool first = changes(first_old, first_new);
  bool second = changes(second_old, second_new);
  // tt-llk asserts a packer reconfiguration never meets reduce's edge masks.
  if (first && std::strcmp(call, "pack_reconfig_data_format") == 0 && device().thread().pack_reduce_mask)
    fail(std::string(call) + "(cb " + std::to_string(first_new) +
         ") reconfigures the packer while reduce_init's edge masks are on: call reduce_uninit first");
  if (first || second) scheduler().advance(costs().reconfig);
}

// tt-metal 0.81.1 sets the B transpose in matmul_init, not per matmul_tiles.
namespace {
std::unordered_map<const Core*, bool>& matmul_transposes() {
  static std::unordered_map<const Core*, bool> transposes;
  return transposes;
}
}  // namespace

void set_matmul_transpose(bool transpose_b) { matmul_transposes()[&compute_core("matmul_init", false)] = transpose_b; }

bool matmul_transpose() {
  auto found = matmul_transposes().find(&compute_core("matmul_tiles", false));
  return found != matmul_transposes().end() && found->second;
}

// ---- compute: math ---------------------------------------------------------------------
void copy_tile(uint32_t cb, uint32_t tile, uint32_t dst) {
  TracedCall traced("copy_tile", cb, tile, dst);
  Core& core = compute_core("copy_tile");
  float* out = core.dst().math_tile(dst, "copy_tile");
  CircularBuffer& in = core.cb(cb, "copy_tile");
  in.check_holds_tiles("copy_tile");
  unpack_tile(in.front_page(tile, "copy_tile"), in.format(), out);
  ++device().thread().tiles_unpacked;
  core.dst().store(dst);
  scheduler().advance(costs().copy_tile);
}

void pack_l1_acc(bool enable) {
  TracedCall traced("pack_reconfig_l1_acc");
  compute_core("pack_reconfig_l1_acc");
  device().thread().pack_l1_acc = enable;
}

void reduce_init(ReduceAxis axis) {
  init(InitKind::Reduce);
  device().thread().pack_reduce_mask = axis;
}

void reduce_uninit() {
  init(InitKind::Reduce);
  device().thread().pack_reduce_mask.reset();
}

void pack_tile(uint32_t dst, uint32_t cb, uint32_t out_tile, bool out_of_order) {
  TracedCall traced("pack_tile", cb, out_of_order ? static_cast<int32_t>(out_tile) : -1, dst);
  Core& core = compute_core("pack_tile");
  const float* values = core.dst().pack_tile(dst, "pack_tile");
  alignas(64) float masked[kTileElements];
  if (const std::optional<ReduceAxis>& mask = device().thread().pack_reduce_mask) {
    for (int r = 0; r < kTileRows; ++r)
      for (int c = 0; c < kTileCols; ++c) {
        bool kept = *mask == ReduceAxis::Row ? c == 0 : *mask == ReduceAxis::Col ? r == 0 : r == 0 && c == 0;
        masked[r * kTileCols + c] = kept ? values[r * kTileCols + c] : 0.0f;
      }
    values = masked;
  }
  CircularBuffer& out = core.cb(cb, "pack_tile");
  out.check_holds_tiles("pack_tile");
  uint8_t* page = out_of_order ? out.back_page(out_tile, "pack_tile") : out.next_pack_page("pack_tile");
  if (device().thread().pack_l1_acc) {
    // L1 accumulation: the packer adds the tile to what the page holds
    std::vector<float> sum(kTileRows * kTileCols);
    unpack_tile(page, out.format(), sum.data());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += values[i];
    pack_tile_page(sum.data(), out.format(), page);
  } else {
    pack_tile_page(values, out.format(), page);
  }
  ++device().thread().tiles_packed;
  device().thread().pack_advance(static_cast<uint64_t>(std::ceil(out.page_size() / costs().pack_bytes_per_cycle)));
}

void matmul_tiles(uint32_t cb0, uint32_t cb1, uint32_t tile0, uint32_t tile1, uint32_t dst, bool transpose_b) {
  TracedCall traced("matmul_tiles", cb0, tile0, dst);
  Core& core = compute_core("matmul_tiles", false);
  float* out = core.dst().math_tile(dst, "matmul_tiles");
  CircularBuffer& in0 = core.cb(cb0, "matmul_tiles");
  CircularBuffer& in1 = core.cb(cb1, "matmul_tiles");
  in0.check_holds_tiles("matmul_tiles");
  in1.check_holds_tiles("matmul_tiles");
  MatmulJob job{in0.front_page(tile0, "matmul_tiles"), in1.front_page(tile1, "matmul_tiles"), in0.version(), in1.version(),
                in0.format(), in1.format(), transpose_b, core.dst().rounds_to_bf16(), out};
  device().math_lanes().submit(core.index(), dst, job);
  device().thread().tiles_unpacked += 2;
  core.dst().mark_written(dst);
  core.add_flops(2ull * kTileRows * kTileCols * kTileCols);
  scheduler().advance(matmul_tile_cycles(costs(), device().config().math_fidelity, in0.format(), in1.format()));
}

void reduce_tile(ReducePool pool, ReduceAxis axis, uint32_t cb, uint32_t cb_scaler, uint32_t tile,
                 uint32_t tile_scaler, uint32_t dst) {
  TracedCall traced("reduce_tile", cb, tile, dst);
  Core& core = compute_core("reduce_tile");
  float* out = core.dst().math_tile(dst, "reduce_tile");
  alignas(64) float a[kTileElements], scaler[kTileElements];
  unpack_front(core, cb, tile, "reduce_tile", a);
  unpack_front(core, cb_scaler, tile_scaler, "reduce_tile", scaler);
  // The scaler is element [0][0] of the scaler tile (see docs/emulator.md).
  ttemu::reduce_tile(pool, axis, a, scaler[0], core.dst().written(dst), out);
  core.dst().store(dst);
  scheduler().advance(reduce_tile_cycles(costs(), device().config().math_fidelity));
}

void binary_tiles(BinaryOp op, Broadcast bcast, uint32_t cb0, uint32_t cb1, uint32_t tile0, uint32_t tile1,
                  uint32_t dst, bool accumulate) {
  TracedCall traced(traced_name(op, bcast), cb0, tile0, dst);
  const char* call = bcast == Broadcast::None ? "add/sub/mul_tiles" : "*_tiles_bcast";
  Core& core = compute_core(call);
  float* out = core.dst().math_tile(dst, call);
  alignas(64) float a[kTileElements], b[kTileElements];
  unpack_front(core, cb0, tile0, call, a);
  unpack_front(core, cb1, tile1, call, b);
  binary_tile(op, bcast, a, b, accumulate, out);
  core.dst().store(dst);
  int phases = op == BinaryOp::Mul ? fidelity_phases(device().config().math_fidelity) : 1;
  scheduler().advance(op == BinaryOp::Mul ? costs().eltwise_mul_tile_per_phase * phases : costs().eltwise_add_tile);
}

void binary_dest_reuse_tiles(BinaryOp op, DestReuse reuse, uint32_t cb, uint32_t tile, uint32_t dst) {
  TracedCall traced(traced_name(op, reuse), cb, tile, dst);
  const char* call = "binary_dest_reuse_tiles";
  Core& core = compute_core(call);
  if (reuse == DestReuse::None) fail("binary_dest_reuse_tiles needs DEST_TO_SRCA or DEST_TO_SRCB");
  float* out = core.dst().math_tile(dst, call);
  alignas(64) float operand[kTileElements], held[kTileElements];
  unpack_front(core, cb, tile, call, operand);
  std::memcpy(held, out, sizeof held);
  if (reuse == DestReuse::DestToSrcA)
    binary_tile(op, Broadcast::None, held, operand, false, out);
  else
    binary_tile(op, Broadcast::None, operand, held, false, out);
  core.dst().store(dst);
  int phases = op == BinaryOp::Mul ? fidelity_phases(device().config().math_fidelity) : 1;
  scheduler().advance(op == BinaryOp::Mul ? costs().eltwise_mul_tile_per_phase * phases : costs().eltwise_add_tile);
}

void unary_bcast(Broadcast bcast, uint32_t cb, uint32_t tile, uint32_t dst) {
  TracedCall traced("unary_bcast", cb, tile, dst);
  Core& core = compute_core("unary_bcast");
  float* out = core.dst().math_tile(dst, "unary_bcast");
  alignas(64) float in[kTileElements];
  unpack_front(core, cb, tile, "unary_bcast", in);
  broadcast_tile(bcast, in, out);
  core.dst().store(dst);
  scheduler().advance(costs().unary_bcast_tile);
}

void transpose_wh_tile(uint32_t cb, uint32_t tile, uint32_t dst) {
  TracedCall traced("transpose_wh_tile", cb, tile, dst);
  Core& core = compute_core("transpose_wh_tile");
  float* out = core.dst().math_tile(dst, "transpose_wh_tile");
  alignas(64) float in[kTileElements];
  unpack_front(core, cb, tile, "transpose_wh_tile", in);
  transpose_tile(in, out);
  core.dst().store(dst);
  scheduler().advance(costs().transpose_tile);
}

void sfpu_unary(SfpuUnary op, uint32_t dst, float param, bool approx) {
  TracedCall traced(traced_name(op), -1, -1, dst);
  Core& core = compute_core("SFPU op");
  float* values = core.dst().math_tile(dst, "SFPU op");
  // As on tt-metal, the call's template argument decides (kernels pass APPROX, the
  // program's math_approx_mode); a bare exp_tile() is exact there too.
  sfpu_unary_tile(op, param, approx, values);
  core.dst().store(dst);
  uint64_t cycles = costs().sfpu_simple_tile;
  if (op == SfpuUnary::Exp) cycles = approx ? costs().exp_approx_tile : costs().exp_tile;
  if (op == SfpuUnary::Recip || op == SfpuUnary::DivScalar) cycles = costs().recip_tile;
  if (op == SfpuUnary::Sqrt || op == SfpuUnary::Rsqrt) cycles = costs().sqrt_tile;
  scheduler().advance(cycles);
}

void sfpu_binary(SfpuBinary op, uint32_t dst0, uint32_t dst1, uint32_t out) {
  TracedCall traced(traced_name(op), -1, -1, out);
  Core& core = compute_core("SFPU binary op");
  const float* a = core.dst().math_tile(dst0, "SFPU binary op");
  const float* b = core.dst().math_tile(dst1, "SFPU binary op");
  float* result = core.dst().math_tile(out, "SFPU binary op");
  sfpu_binary_tile(op, a, b, result);
  core.dst().store(out);
  scheduler().advance(op == SfpuBinary::Div ? costs().sfpu_div_tile : costs().sfpu_simple_tile);
}

void sfpu_where(uint32_t cond, uint32_t if_true, uint32_t if_false, uint32_t out, DataFormat format) {
  TracedCall traced("where_tile", -1, -1, out);
  const char* call = "where_tile";
  Core& core = compute_core(call);
  const float* c = core.dst().math_tile(cond, call);
  const float* t = core.dst().math_tile(if_true, call);
  const float* f = core.dst().math_tile(if_false, call);
  float* result = core.dst().math_tile(out, call);
  // The format selects how the SFPU loads DST (16-bit or 32-bit rows); the other one
  // reads a DST of the wrong width.
  bool fp32_dst = !core.dst().rounds_to_bf16();
  if (format != DataFormat::Float16_b && format != DataFormat::Float32)
    fail("where_tile: only DataFormat::Float16_b and DataFormat::Float32 are emulated");
  if (format == DataFormat::Float16_b && fp32_dst)
    fail("where_tile<DataFormat::Float16_b> on a 32-bit DST (fp32_dest_acc_en); use DataFormat::Float32");
  if (format == DataFormat::Float32 && !fp32_dst)
    fail("where_tile<DataFormat::Float32> on a 16-bit DST; use DataFormat::Float16_b or set fp32_dest_acc_en");
  sfpu_where_tile(c, t, f, result);
  core.dst().store(out);
  scheduler().advance(costs().sfpu_where_tile);
}

void fill_tile(uint32_t dst, float value) {
  TracedCall traced("fill_tile", -1, -1, dst);
  Core& core = compute_core("fill_tile");
  float* values = core.dst().math_tile(dst, "fill_tile");
  std::fill(values, values + kTileElements, value);
  core.dst().store(dst);
  scheduler().advance(costs().sfpu_simple_tile);
}

void copy_dest_values(uint32_t dst_to, uint32_t dst_from) {
  TracedCall traced("copy_dest_values", -1, -1, dst_to);
  const char* call = "copy_dest_values";
  Core& core = compute_core(call);
  const float* from = core.dst().math_tile(dst_from, call);
  float* to = core.dst().math_tile(dst_to, call);
  // A move, not arithmetic: the bits go over unchanged (DST already holds them in its
  // format, so store()'s rounding leaves them as they are).
  if (to != from) std::memcpy(to, from, kTileElements * sizeof(float));
  core.dst().store(dst_to);
  scheduler().advance(costs().sfpu_copy_dest_tile);
}

// ---- data movement: addresses ------------------------------------------------------------
uint8_t thread_noc() { return static_cast<uint8_t>(device().thread().noc); }
uint8_t my_noc_x() { return static_cast<uint8_t>(device().thread().core->col()); }
uint8_t my_noc_y() { return static_cast<uint8_t>(device().thread().core->row()); }

namespace {
// Core NoC addresses carry L1 offsets; a kernel passes the address it got from
// get_write_ptr/get_semaphore (its own L1), which is the same offset on every core.
uint32_t l1_offset_of(uint32_t address, const char* call) {
  int core_index;
  uint32_t offset;
  if (!device().locate_l1(address, &core_index, &offset))
    fail(std::string(call) + ": " + hex(address) + " is not an L1 address (use get_write_ptr/get_read_ptr/get_semaphore)");
  return offset;
}
}  // namespace

uint64_t core_noc_addr(uint32_t x, uint32_t y, uint32_t l1_addr) {
  device().core_at_noc(x, y, "get_noc_addr");
  return encode_core_address(x, y, l1_offset_of(l1_addr, "get_noc_addr"));
}

uint64_t local_noc_addr(uint32_t l1_addr) {
  Core& self = *device().thread().core;
  return encode_core_address(self.col(), self.row(), l1_offset_of(l1_addr, "get_noc_addr"));
}

uint64_t multicast_noc_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end, uint32_t l1_addr) {
  return encode_multicast_address(x_start, y_start, x_end, y_end, l1_offset_of(l1_addr, "get_noc_multicast_addr"));
}

uint64_t dram_page_noc_addr(uint32_t bank_base_address, uint32_t page_id, uint32_t page_size, uint32_t offset) {
  uint32_t bank = page_id % device().dram().banks();
  uint64_t address = bank_base_address + static_cast<uint64_t>(page_id / device().dram().banks()) * page_size + offset;
  if (address > 0xffffffffull) fail("DRAM page " + std::to_string(page_id) + " lies beyond the 32-bit bank address space");
  return encode_dram_address(bank, static_cast<uint32_t>(address));
}

// ---- data movement: transfers ---------------------------------------------------------------
void noc_read(uint64_t src_noc_addr, uint32_t dst_l1_addr, uint32_t size, uint8_t noc) {
  TracedCall traced("noc_async_read");
  const char* call = "noc_async_read";
  device().note_api_call(call);
  scheduler().sync_point();
  KernelThread& thread = device().thread();
  uint8_t* destination = thread.core->l1() + local_l1_offset(dst_l1_addr, size, call, "destination");
  NocAddress source = decode_noc_address(src_noc_addr);
  const int route = checked_noc(noc, call);
  uint64_t now = scheduler().now();
  uint64_t done = now;
  // The bytes are taken now and land at the barrier (noc_read_barrier): until then the
  // destination holds what it held, as on hardware before the NoC delivers.
  std::vector<uint8_t> data(size);
  if (source.kind == NocAddress::Kind::Dram) {
    device().dram().read(static_cast<int>(source.bank), source.address, data.data(), size);
    done = device().noc().dram_read(thread.core->index(), route, source.bank, size, now);
  } else if (source.kind == NocAddress::Kind::Core) {
    Core& from = device().core_at_noc(source.x, source.y, call);
    std::memcpy(data.data(), remote_l1(from, source.address, size, call), size);
    done = device().noc().core_read(thread.core->index(), route, from.index(), size, now);
  } else {
    fail(std::string(call) + ": source " + hex(src_noc_addr) + " is not a core or DRAM NoC address");
  }
  thread.reads_in_flight.push_back({destination, size, done, std::move(data), thread.read_trid});
  thread.reads_done_at = std::max(thread.reads_done_at, done);
  trace_noc_transfer(thread.core->index(), true, source.kind == NocAddress::Kind::Dram ? static_cast<int>(source.bank) : -1,
                     now, done);
  scheduler().advance(device().description().noc.issue_cycles);
}

void noc_write(uint32_t src_l1_addr, uint64_t dst_noc_addr, uint32_t size, uint8_t noc) {
  TracedCall traced("noc_async_write");
  const char* call = "noc_async_write";
  device().note_api_call(call);
  scheduler().sync_point();
  KernelThread& thread = device().thread();
  const uint8_t* source = thread.core->l1() + local_l1_offset(src_l1_addr, size, call, "source");
  NocAddress target = decode_noc_address(dst_noc_addr);
  const int route = checked_noc(noc, call);
  uint64_t now = scheduler().now();
  uint64_t done = now;
  if (target.kind == NocAddress::Kind::Dram) {
    device().dram().write(static_cast<int>(target.bank), target.address, source, size);
    done = device().noc().dram_write(thread.core->index(), route, target.bank, size, now);
  } else if (target.kind == NocAddress::Kind::Core) {
    Core& to = device().core_at_noc(target.x, target.y, call);
    std::memmove(remote_l1(to, target.address, size, call), source, size);
    done = device().noc().core_write(thread.core->index(), route, to.index(), size, now);
    if (device().overlaps_semaphores(target.address, size)) deliver_to_semaphore(to, route, [] {});
  } else {
    fail(std::string(call) + ": destination " + hex(dst_noc_addr) +
         " is not a core or DRAM NoC address (multicast needs noc_async_write_multicast)");
  }
  thread.writes_in_flight.push_back({const_cast<uint8_t*>(source), size, done, {}});
  thread.writes_done_at = std::max(thread.writes_done_at, done);
  trace_noc_transfer(thread.core->index(), false, target.kind == NocAddress::Kind::Dram ? static_cast<int>(target.bank) : -1,
                     now, done);
  scheduler().advance(device().description().noc.write_issue_cycles);
}

void noc_write_multicast(uint32_t src_l1_addr, uint64_t dst_mcast_addr, uint32_t size, uint32_t num_dests,
                         bool include_self, bool linked, uint8_t noc) {
  TracedCall traced("noc_async_write_multicast");
  const char* call = "noc_async_write_multicast";
  device().note_api_call(call);
  scheduler().sync_point();
  KernelThread& thread = device().thread();
  const uint8_t* source = thread.core->l1() + local_l1_offset(src_l1_addr, size, call, "source");
  NocAddress target = decode_noc_address(dst_mcast_addr);
  const int route = checked_noc(noc, call);
  std::vector<int> indices;
  for (Core* core : multicast_targets(target, include_self, num_dests, route, call)) {
    std::memmove(remote_l1(*core, target.address, size, call), source, size);
    indices.push_back(core->index());
  }
  uint64_t done =
      device().noc().multicast_write(thread.core->index(), route, indices, size, linked, scheduler().now());
  if (device().overlaps_semaphores(target.address, size))
    for (int index : indices) deliver_to_semaphore(device().core(index), route, [] {});
  thread.writes_in_flight.push_back({const_cast<uint8_t*>(source), size, done, {}});
  thread.writes_done_at = std::max(thread.writes_done_at, done);
  trace_noc_transfer(thread.core->index(), false, -1, scheduler().now(), done);
  scheduler().advance(device().description().noc.write_issue_cycles);
}

namespace {
// Waits until the thread's reads that `takes` selects have completed, then lands their
// bytes in L1; the others stay in flight.
template <typename Takes>
void land_reads(Takes takes) {
  KernelThread& thread = device().thread();
  uint64_t done = 0;
  for (const KernelThread::Transfer& read : thread.reads_in_flight)
    if (takes(read)) done = std::max(done, read.done);
  scheduler().wait_until(done);
  std::vector<KernelThread::Transfer> others;
  for (KernelThread::Transfer& read : thread.reads_in_flight) {
    if (takes(read))
      std::memcpy(read.l1, read.data.data(), read.size);
    else
      others.push_back(std::move(read));
  }
  thread.reads_in_flight = std::move(others);
}
}  // namespace

void noc_read_barrier() {
  device().note_api_call("noc_async_read_barrier");
  TracedCall traced("noc_async_read_barrier");
  land_reads([](const KernelThread::Transfer&) { return true; });
}

// tt-metal's NOC_MAX_TRANSACTION_ID (Wormhole and Blackhole noc_parameters.h).
namespace {
constexpr uint32_t kMaxTransactionId = 0xF;

void check_transaction_id(const char* call, uint32_t trid) {
  if (trid > kMaxTransactionId)
    fail(std::string(call) + "(" + std::to_string(trid) + "): transaction ids are 0x0-0xF");
}
}  // namespace

void noc_read_set_trid(uint32_t trid) {
  device().note_api_call("noc_async_read_set_trid");
  TracedCall traced("noc_async_read_set_trid");
  check_transaction_id("noc_async_read_set_trid", trid);
  device().thread().read_trid = trid;
}

void noc_read_barrier_with_trid(uint32_t trid) {
  device().note_api_call("noc_async_read_barrier_with_trid");
  TracedCall traced("noc_async_read_barrier_with_trid");
  check_transaction_id("noc_async_read_barrier_with_trid", trid);
  land_reads([trid](const KernelThread::Transfer& read) { return read.trid == trid; });
}

void noc_write_barrier() {
  device().note_api_call("noc_async_write_barrier");
  TracedCall traced("noc_async_write_barrier");
  KernelThread& thread = device().thread();
  scheduler().wait_until(thread.writes_done_at);
  thread.writes_in_flight.clear();
}

// ---- semaphores ---------------------------------------------------------------------------
uint32_t semaphore_addr(uint32_t id) {
  if (id >= Device::kMaxSemaphores) fail("get_semaphore(" + std::to_string(id) + "): no such semaphore");
  Core& self = *device().thread().core;
  return device().l1_address(self, Device::kSemaphoreOffset + id * Device::kSemaphoreStride);
}

void semaphore_wait(volatile uint32_t* addr, uint32_t value, bool at_least) {
  device().note_api_call("noc_semaphore_wait");
  TracedCall traced(at_least ? "noc_semaphore_wait_min" : "noc_semaphore_wait");
  scheduler().sync_point();
  Core& self = *device().thread().core;
  Core::SemaphoreWaiter waiter{&scheduler().current(), addr, value, at_least};
  while (!waiter.satisfied()) {
    self.add_semaphore_waiter(waiter);
    scheduler().block([addr, value, at_least] {
      return std::string("noc_semaphore_wait") + (at_least ? "_min" : "") + " at " +
             hex(reinterpret_cast<uintptr_t>(addr)) + " wants " + (at_least ? ">= " : "== ") + std::to_string(value) +
             ", value is " + std::to_string(*addr);
    });
  }
  scheduler().advance(costs().semaphore_call);
}

void charge_helper(const char* helper) {
  TracedCall traced(helper);
  if (std::strcmp(helper, "fill_causal_mask_tile") == 0) {
    scheduler().advance(costs().fill_causal_mask_tile);
  } else if (std::strcmp(helper, "fill_uniform_tile") == 0) {
    scheduler().advance(costs().fill_uniform_tile);
  } else {
    kernel_error((std::string("TTLANG_MODELED_COST: no cost for helper '") + helper + "'").c_str());
  }
}

namespace {
std::string tile_list(const int32_t* values, uint32_t rank, const char* separator) {
  std::string text;
  for (uint32_t d = 0; d < rank; ++d) text += (d ? separator : "") + std::to_string(values[d]);
  return text;
}
}  // namespace

void check_tile_block(const char* tensor, const char* source, const int32_t* values, uint32_t count) {
  uint32_t rank = count ? static_cast<uint32_t>(values[0]) : 0;
  if (count == 0 || count != 1 + 3 * rank) fail("TTLANG_CHECK_TILE_BLOCK: malformed arguments");
  const int32_t* block = values + 1;
  const int32_t* shape = block + rank;
  const int32_t* index = shape + rank;
  for (uint32_t d = 0; d < rank; ++d) {
    if (index[d] >= 0 && index[d] <= shape[d] - block[d]) continue;
    std::string where = index[d] < 0 ? "starts at tile " + std::to_string(index[d])
                                     : "covers tiles " + std::to_string(index[d]) + ".." +
                                           std::to_string(index[d] + block[d] - 1);
    fail_at(source, "a transfer of a " + tile_list(block, rank, "x") + "-tile block at tile index [" +
                        tile_list(index, rank, ", ") + "] of `" + tensor + "` (" + tile_list(shape, rank, "x") +
                        " tiles) leaves the tensor: in dim " + std::to_string(d) + " it " + where + " of 0.." +
                        std::to_string(shape[d] - 1) +
                        " (pages are numbered row-major: past a row's end are the next row's tiles)");
  }
}

void semaphore_set(volatile uint32_t* addr, uint32_t value) {
  device().note_api_call("noc_semaphore_set");
  TracedCall traced("noc_semaphore_set");
  scheduler().sync_point();
  *addr = value;
  device().thread().core->wake_semaphore_waiters(scheduler(), scheduler().now());
  scheduler().advance(costs().semaphore_call);
}

void semaphore_inc(uint64_t noc_addr, uint32_t increment, uint8_t noc) {
  TracedCall traced("noc_semaphore_inc");
  const char* call = "noc_semaphore_inc";
  device().note_api_call(call);
  scheduler().sync_point();
  NocAddress target = decode_noc_address(noc_addr);
  if (target.kind != NocAddress::Kind::Core) fail(std::string(call) + ": target is not a core NoC address");
  Core& to = device().core_at_noc(target.x, target.y, call);
  auto* word = reinterpret_cast<uint32_t*>(remote_l1(to, target.address, 4, call));
  deliver_to_semaphore(to, checked_noc(noc, call), [word, increment] { *word += increment; });
  scheduler().advance(device().description().noc.issue_cycles);
}

void semaphore_set_remote(uint32_t src_l1_addr, uint64_t dst_noc_addr, uint8_t noc) {
  TracedCall traced("noc_semaphore_set_remote");
  const char* call = "noc_semaphore_set_remote";
  device().note_api_call(call);
  scheduler().sync_point();
  KernelThread& thread = device().thread();
  uint32_t value;
  std::memcpy(&value, thread.core->l1() + local_l1_offset(src_l1_addr, 4, call, "source"), 4);
  NocAddress target = decode_noc_address(dst_noc_addr);
  if (target.kind != NocAddress::Kind::Core) fail(std::string(call) + ": target is not a core NoC address");
  Core& to = device().core_at_noc(target.x, target.y, call);
  auto* word = reinterpret_cast<uint32_t*>(remote_l1(to, target.address, 4, call));
  deliver_to_semaphore(to, checked_noc(noc, call), [word, value] { *word = value; });
  scheduler().advance(device().description().noc.issue_cycles);
}

void semaphore_set_multicast(uint32_t src_l1_addr, uint64_t dst_mcast_addr, uint32_t num_dests, bool include_self,
                             uint8_t noc) {
  TracedCall traced("noc_semaphore_set_multicast");
  const char* call = "noc_semaphore_set_multicast";
  device().note_api_call(call);
  scheduler().sync_point();
  KernelThread& thread = device().thread();
  uint32_t value;
  std::memcpy(&value, thread.core->l1() + local_l1_offset(src_l1_addr, 4, call, "source"), 4);
  NocAddress target = decode_noc_address(dst_mcast_addr);
  const int route = checked_noc(noc, call);
  for (Core* core : multicast_targets(target, include_self, num_dests, route, call)) {
    auto* word = reinterpret_cast<uint32_t*>(remote_l1(*core, target.address, 4, call));
    deliver_to_semaphore(*core, route, [word, value] { *word = value; });
  }
  scheduler().advance(device().description().noc.issue_cycles);
}

}  // namespace ttemu
