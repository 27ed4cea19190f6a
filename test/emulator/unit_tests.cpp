// C++ unit tests of the emulator's parts: numerics, tile layout and math, NoC
// addresses, cost table, DST, CBs, DRAM, the scheduler, and a small device run.
// Misuse is checked in a forked child, which must exit with the expected message.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "api/compute/eltwise_binary.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "cost_table.h"
#include "api/dataflow/dataflow_api.h"
#include "check.h"
#include "device.h"
#include "errors.h"
#include "noc.h"
#include "numerics.h"
#include "tile_math.h"

using namespace ttemu;

namespace {

// The n150's description, as the launcher hands it to the emulator.
const DeviceDescription& n150() {
  static const DeviceDescription description = load_device_description(TTEMU_DEVICE_DIR "/n150.toml");
  return description;
}

// Runs `body` in a child process; it must exit nonzero and print `needle` to stderr.
void check_fails_with(const std::function<void()>& body, const std::string& needle) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return;
  pid_t child = fork();
  if (child == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    body();
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string output;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) output.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  if (!failed || output.find(needle) == std::string::npos) {
    std::fprintf(stderr, "expected a failure with \"%s\", got status %d and:\n%s\n", needle.c_str(), status,
                 output.c_str());
    ++g_failures;
  }
}

void test_bf16_rounding() {
  CHECK(round_to_bf16(1.0f) == 1.0f);
  CHECK(round_to_bf16(1.0f + 0x1p-8f) == 1.0f);                  // tie -> even (down)
  CHECK(round_to_bf16(1.0f + 3 * 0x1p-8f) == 1.0f + 0x1p-6f);    // tie -> even (up)
  CHECK(round_to_bf16(1.0f + 0x1p-8f + 0x1p-12f) == 1.0f + 0x1p-7f);  // above the tie
  CHECK(round_to_bf16(-1.0f - 0x1p-8f) == -1.0f);
  CHECK(std::isnan(round_to_bf16(NAN)));
  CHECK(std::isinf(round_to_bf16(INFINITY)));
}

void test_face_layout() {
  CHECK(face_layout_index(0, 0) == 0);
  CHECK(face_layout_index(0, 15) == 15);
  CHECK(face_layout_index(0, 16) == 256);
  CHECK(face_layout_index(1, 0) == 16);
  CHECK(face_layout_index(16, 0) == 512);
  CHECK(face_layout_index(17, 17) == 768 + 16 + 1);
  float values[kTileElements], back[kTileElements];
  for (int i = 0; i < kTileElements; ++i) values[i] = static_cast<float>(i);  // exact in bf16 below 256 only
  uint8_t page[kTileElements * 4];
  pack_tile_page(values, DataFormat::Float32, page);
  float at_17_17;
  std::memcpy(&at_17_17, page + 4 * face_layout_index(17, 17), 4);
  CHECK(at_17_17 == 17 * 32 + 17);
  unpack_tile(page, DataFormat::Float32, back);
  CHECK(std::memcmp(values, back, sizeof values) == 0);
  pack_tile_page(values, DataFormat::Float16_b, page);
  unpack_tile(page, DataFormat::Float16_b, back);
  for (int i = 0; i < kTileElements; ++i) CHECK(back[i] == round_to_bf16(values[i]));
}

void test_tile_math() {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float a[kTileElements], b[kTileElements], product[kTileElements] = {}, bt[kTileElements];
  for (int i = 0; i < kTileElements; ++i) a[i] = uniform(random), b[i] = uniform(random);
  matmul_accumulate_tile(a, b, false, false, product);
  double worst = 0;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      double exact = 0;
      for (int k = 0; k < 32; ++k) exact += static_cast<double>(a[r * 32 + k]) * b[k * 32 + c];
      worst = std::max(worst, std::fabs(exact - product[r * 32 + c]));
    }
  CHECK(worst < 1e-5);
  transpose_tile(b, bt);
  float product_t[kTileElements] = {};
  matmul_accumulate_tile(a, bt, true, false, product_t);
  CHECK(std::memcmp(product, product_t, sizeof product) == 0);
  // Accumulating into bf16 DST: (dst + product) rounded once.
  float accumulated[kTileElements];
  std::fill(accumulated, accumulated + kTileElements, 1.0f);
  matmul_accumulate_tile(a, b, false, true, accumulated);
  for (int i = 0; i < kTileElements; ++i) CHECK(accumulated[i] == round_to_bf16(1.0f + product[i]));

  float dst[kTileElements] = {};
  float negative[kTileElements];
  for (int i = 0; i < kTileElements; ++i) negative[i] = -1.0f - static_cast<float>(i % 32);
  reduce_tile(ReducePool::Max, ReduceAxis::Row, negative, 1.0f, false, dst);
  CHECK(dst[0] == -1.0f && dst[5 * 32] == -1.0f && dst[1] == 0.0f);  // column 0 only, not clamped at 0
  std::fill(dst, dst + kTileElements, 0.0f);
  reduce_tile(ReducePool::Sum, ReduceAxis::Col, negative, 0.5f, false, dst);
  CHECK(dst[3] == 0.5f * 32 * (-1.0f - 3));
  std::fill(dst, dst + kTileElements, 0.0f);
  float ones[kTileElements];
  std::fill(ones, ones + kTileElements, 1.0f);
  reduce_tile(ReducePool::Sum, ReduceAxis::Scalar, ones, 2.0f, false, dst);
  CHECK(dst[0] == 2048.0f && dst[1] == 0.0f);

  float column[kTileElements] = {}, out[kTileElements];
  for (int r = 0; r < 32; ++r) column[r * 32] = static_cast<float>(r);
  binary_tile(BinaryOp::Sub, Broadcast::Cols, ones, column, false, out);
  CHECK(out[7 * 32 + 20] == 1.0f - 7.0f);
  binary_tile(BinaryOp::Add, Broadcast::Rows, ones, column, false, out);
  CHECK(out[7 * 32 + 0] == 1.0f && out[7 * 32 + 1] == 1.0f);  // row 0 of column: (0, 0, ...)
}

void test_noc_addresses() {
  NocAddress core = decode_noc_address(encode_core_address(3, 5, 0x1234) + 16);
  CHECK(core.kind == NocAddress::Kind::Core && core.x == 3 && core.y == 5 && core.address == 0x1244);
  NocAddress dram = decode_noc_address(encode_dram_address(11, 0x40000));
  CHECK(dram.kind == NocAddress::Kind::Dram && dram.bank == 11 && dram.address == 0x40000);
  NocAddress mcast = decode_noc_address(encode_multicast_address(1, 2, 7, 9, 0x100));
  CHECK(mcast.kind == NocAddress::Kind::Multicast && mcast.x == 1 && mcast.y == 2 && mcast.x_end == 7 &&
        mcast.y_end == 9 && mcast.address == 0x100);
}

void test_cost_table() {
  const CostTable& cost = n150().cost;
  // bf16 tiles cost the format's floor until the fidelity phases take longer.
  const DataFormat bf16 = DataFormat::Float16_b;
  CHECK(matmul_tile_cycles(cost, MathFidelity::LoFi, bf16, bf16) == cost.matmul_tile_floor_bf16);
  CHECK(matmul_tile_cycles(cost, MathFidelity::HiFi2, bf16, bf16) == cost.matmul_tile_floor_bf16);
  CHECK(matmul_tile_cycles(cost, MathFidelity::HiFi4, bf16, bf16) == 64);
  // A mixed matmul takes the larger floor of its operands' formats.
  CHECK(matmul_tile_cycles(cost, MathFidelity::LoFi, DataFormat::Bfp8_b, bf16) == cost.matmul_tile_floor_bf16);
  CHECK(matmul_tile_cycles(cost, MathFidelity::LoFi, DataFormat::Bfp8_b, DataFormat::Bfp8_b) ==
        std::max<uint64_t>(16, cost.matmul_tile_floor_bfp8_b));
  CHECK(cost.matmul_tile_floor_bf16 > 32 && cost.matmul_tile_floor_bf16 < 64);
  CHECK(reduce_tile_cycles(cost, MathFidelity::HiFi4) == 4 * cost.reduce_tile_per_phase);
  // The peak is the ideal engine rate, 8x16 x 16x16 per cycle per fidelity phase.
  CHECK(peak_flops_per_cycle(cost, MathFidelity::LoFi) == 4096.0);
  CHECK(peak_flops_per_cycle(cost, MathFidelity::HiFi4) == 1024.0);
  // Two cores reading one DRAM bank: the second queues behind the first at the bank.
  NocTiming noc(n150(), {{1, 1}, {2, 1}});
  const NocParameters& p = n150().noc;
  uint64_t first = noc.dram_read(0, 0, 1, 2400, 0);   // NoC 0, bank 1 at (0, 1): same row as both cores
  uint64_t second = noc.dram_read(1, 0, 1, 2400, 0);
  // Round trips on a one-way torus ring: 10 hops along the row for both cores.
  const uint64_t latency = p.dram_read_latency_cycles + 10 * p.hop_cycles;
  CHECK(first == static_cast<uint64_t>(std::ceil(2400 / p.dram_read_bytes_per_cycle)) + latency);
  CHECK(second == static_cast<uint64_t>(std::ceil(2400 / n150().dram_bank_bytes_per_cycle +
                                                  2400 / p.dram_read_bytes_per_cycle)) + latency);
}

// Two cores whose reads cross one link take twice as long as one; reads on disjoint
// routes do not slow each other down.
void test_noc_link_contention() {
  const std::vector<std::pair<int, int>> positions = {{1, 1}, {2, 1}, {3, 1}, {1, 2}, {2, 2}};
  const NocParameters& p = n150().noc;
  const uint32_t bytes = 65536;
  const double stream = bytes / p.core_read_bytes_per_cycle;
  const uint64_t latency = p.core_read_latency_cycles + 10 * p.hop_cycles;  // a row's round trip
  NocTiming alone(n150(), positions);
  uint64_t one = alone.core_read(0, 0, 2, bytes, 0);
  CHECK(one == static_cast<uint64_t>(std::ceil(stream)) + latency);
  // Cores (1,1) and (2,1) read from (3,1): on NoC 0 both routes leave (3,1) eastward.
  NocTiming shared(n150(), positions);
  uint64_t first = shared.core_read(0, 0, 2, bytes, 0);
  uint64_t second = shared.core_read(1, 0, 2, bytes, 0);
  CHECK(first == one);
  CHECK(second == static_cast<uint64_t>(std::ceil(2 * stream)) + latency);
  CHECK(second - latency == 2 * (one - latency));
  // (1,2) reads from (2,2) on row 2 meanwhile: no link in common, no delay.
  uint64_t other_row = shared.core_read(3, 0, 4, bytes, 0);
  CHECK(other_row == one);
  // A transfer travels on the NoC its caller names: (2,1) writing to (1,1) on NoC 0 goes
  // east round the ring through the links (1,1)'s read from (3,1) holds and queues behind
  // it; on NoC 1 it goes one link west, alone.
  const double write_stream = bytes / p.core_write_bytes_per_cycle;
  const uint64_t write_latency = p.core_write_latency_cycles + 10 * p.hop_cycles;
  const uint64_t write_alone = static_cast<uint64_t>(std::ceil(write_stream)) + write_latency;
  NocTiming east(n150(), positions);
  east.core_read(0, 0, 2, bytes, 0);
  CHECK(east.core_write(1, 0, 0, bytes, 0) == static_cast<uint64_t>(std::ceil(stream + write_stream)) + write_latency);
  NocTiming west(n150(), positions);
  west.core_read(0, 0, 2, bytes, 0);
  CHECK(west.core_write(1, 1, 0, bytes, 0) == write_alone);
}

// Defined below: runs a kernel that must fail with `needle`.
void check_run_fails_with(const KernelSpec& kernel, int cols, const std::string& needle);

// A kernel's NoC calls default to its RISC's NoC (tt-metal's `noc_index`: the reader's
// NoC 0, the writer's NoC 1 on Wormhole); a NoC that does not exist is an error.
int g_reader_noc = -1, g_writer_noc = -1;
void reader_noc_kernel() { g_reader_noc = noc_index; }
void writer_noc_kernel() { g_writer_noc = noc_index; }
void read_on_noc_2_kernel() { noc_async_read(get_noc_addr(0, 0, get_write_ptr(0)), get_write_ptr(0), 32, 2); }
// Core (0,0) multicasts a word to the rest of a 1x3 row, naming the rectangle from its
// near end (x 0 to 2) or its far end (x 2 to 0); the others check it arrived.
uint32_t g_multicast_seen = 0;
void multicast_row_kernel(bool far_first) {
  uint32_t page = get_write_ptr(0);
  auto* word = reinterpret_cast<volatile uint32_t*>(page);
  volatile uint32_t* semaphore = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  if (my_x[noc_index] == 0) {
    *word = 42;
    uint64_t rectangle = far_first ? get_noc_multicast_addr(2, 0, 0, 0, page) : get_noc_multicast_addr(0, 0, 2, 0, page);
    noc_async_write_multicast(page, rectangle, 4, 2);
    noc_async_write_barrier();
    for (uint32_t x = 1; x < 3; ++x) noc_semaphore_inc(get_noc_addr(x, 0, get_semaphore(0)), 1);
  } else {
    noc_semaphore_wait(semaphore, 1);
    g_multicast_seen += *word;
  }
}
void multicast_near_first_kernel() { multicast_row_kernel(false); }
void multicast_far_first_kernel() { multicast_row_kernel(true); }

void test_noc_per_kernel() {
  DeviceConfig config;  // one core
  Device device(config, n150());
  device.add_cb(0, 2, 2048, DataFormat::Float16_b);
  device.add_kernel({"reader", ThreadKind::Reader, reader_noc_kernel});
  device.add_kernel({"writer", ThreadKind::Writer, writer_noc_kernel});
  device.run();
  CHECK(g_reader_noc == n150().noc.reader_noc && g_reader_noc == 0);
  CHECK(g_writer_noc == n150().noc.writer_noc && g_writer_noc == 1);
  check_run_fails_with({"bad_noc", ThreadKind::Reader, read_on_noc_2_kernel}, 1,
                       "noc_async_read: noc 2 does not exist (a Tensix has NoC 0 and NoC 1)");
  // A program may put a kernel on the other NoC (tt-metal's matmul runs its in0 reader on
  // NoC 1): its calls then default to that one.
  Device swapped(config, n150());
  swapped.add_cb(0, 2, 2048, DataFormat::Float16_b);
  swapped.add_kernel({"reader", ThreadKind::Reader, reader_noc_kernel, 1});
  swapped.run();
  CHECK(g_reader_noc == 1);
  // A NoC 1 multicast rectangle starts at its far corner, a NoC 0 one at its near one.
  check_run_fails_with({"near_first_on_noc_1", ThreadKind::Reader, multicast_near_first_kernel, 1}, 3,
                       "noc_async_write_multicast: on NoC 1 a multicast rectangle starts at its largest x and y "
                       "(start >= end: NoC 1 runs backwards); got start (0,0), end (2,0)");
  check_run_fails_with({"far_first_on_noc_0", ThreadKind::Reader, multicast_far_first_kernel, 0}, 3,
                       "on NoC 0 a multicast rectangle starts at its smallest x and y (start <= end)");
  g_multicast_seen = 0;
  DeviceConfig row;
  row.rows = 1;
  row.cols = 3;
  Device far_first(row, n150());
  far_first.add_cb(0, 2, 2048, DataFormat::Float16_b);
  far_first.set_semaphores({0});
  far_first.add_kernel({"far_first_on_noc_1", ThreadKind::Reader, multicast_far_first_kernel, 1});
  far_first.run();
  CHECK(g_multicast_seen == 2 * 42);  // both other cores of the row got the word
}

// A core reading its own L1 through the NoC (tt-metal's SDPA reader copies its mask
// tiles so; ttlang's fill_causal_mask lowering too): no hop and no link, the core's
// read port at the one-from-one rate and its latency; copies queue on that port,
// another core's reads (other ports, no shared link) do not wait for them.
void test_noc_self_read() {
  const std::vector<std::pair<int, int>> positions = {{1, 1}, {2, 1}};
  const NocParameters& p = n150().noc;
  const uint32_t bytes = 2048;
  const double stream = bytes / p.core_read_bytes_per_cycle;
  NocTiming noc(n150(), positions);
  uint64_t first = noc.core_read(0, 0, 0, bytes, 0);
  CHECK(first == static_cast<uint64_t>(std::ceil(stream)) + p.core_read_latency_cycles);
  uint64_t second = noc.core_read(0, 0, 0, bytes, 0);
  CHECK(second == static_cast<uint64_t>(std::ceil(2 * stream)) + p.core_read_latency_cycles);
  uint64_t other = noc.core_read(1, 0, 1, bytes, 0);
  CHECK(other == first);
}

// A write is acknowledged by a response from each destination, which the writer's port
// takes one per write_response_cycles: a small multicast to 24 cores is bound by its
// 24 responses, not by its one flit of data, and the next one queues behind them.
void test_multicast_responses() {
  const NocParameters& p = n150().noc;
  std::vector<std::pair<int, int>> positions;
  for (int y = 1; y <= 5; ++y)
    for (int x : {1, 2, 3, 4, 6}) positions.emplace_back(x, y);  // logical 5x5 from (0, 0)
  std::vector<int> targets;
  for (int core = 1; core < 25; ++core) targets.push_back(core);
  NocTiming noc(n150(), positions);
  uint64_t first = noc.multicast_write(0, 1, targets, 32, true, 0);
  uint64_t second = noc.multicast_write(0, 1, targets, 32, true, 0);
  CHECK(second - first == 24 * p.write_response_cycles);
  // The same multicast to 3 cores is bound by its data and the linked gap instead.
  NocTiming few(n150(), positions);
  uint64_t a = few.multicast_write(0, 1, {1, 5, 6}, 32, true, 0);
  uint64_t b = few.multicast_write(0, 1, {1, 5, 6}, 32, true, 0);
  CHECK(b - a >= p.multicast_linked_gap_cycles && b - a <= p.multicast_linked_gap_cycles + 2);
}

void test_device_descriptions() {
  // The n150's logical cores sit at the Tensix NoC positions of tt-metal's soc descriptor.
  CHECK(n150().compute_rows == 8 && n150().compute_cols == 8);
  CHECK(n150().column_x[4] == 6 && n150().row_y[5] == 7);
  CHECK(n150().dram_banks == 12 && n150().dram_bank_noc[0] == std::make_pair(0, 11));
  DeviceDescription p150 = load_device_description(TTEMU_DEVICE_DIR "/p150.toml");
  CHECK(p150.compute_rows == 9 && p150.compute_cols == 14 && p150.row_y[0] == 2 && p150.column_x[7] == 10);
  CHECK(p150.clock_hz == 1.35e9);
  // A key the emulator does not know is an error, not silently ignored.
  char path[] = "/tmp/ttemu-device-XXXXXX";
  int fd = mkstemp(path);
  std::FILE* file = fdopen(fd, "w");
  std::FILE* original = std::fopen(TTEMU_DEVICE_DIR "/n150.toml", "r");
  for (int c; (c = std::fgetc(original)) != EOF;) std::fputc(c, file);
  std::fputs("mystery_tile = 5\n", file);  // lands in [cost], the last table
  std::fclose(original);
  std::fclose(file);
  check_fails_with([&] { load_device_description(path); }, "unknown key 'cost.mystery_tile'");
  unlink(path);
}

// ---- the cost of each API call, as the device description and cost_table.h say ----
std::vector<std::pair<std::string, uint64_t>> g_call_costs;

void cost_probe_reader() {
  ::cb_reserve_back(0, 2);
  ::cb_push_back(0, 2);
}

void cost_probe_compute() {
  Scheduler& clock = Device::active().scheduler();
  KernelThread& thread = Device::active().thread();
  auto measure = [&](const char* name, const std::function<void()>& call) {
    uint64_t before = clock.now(), pack_before = thread.pack_clock;
    call();
    g_call_costs.emplace_back(name, clock.now() - before + (thread.pack_clock - pack_before));
  };
  ::cb_wait_front(0, 2);  // waits for the reader's push; the call itself, again:
  measure("cb_wait_front", [] { ttemu::cb_wait_front(0, 2); });
  measure("tile_regs_acquire", [] { ttemu::tile_regs_acquire(); });
  measure("init", [] { ttemu::init(InitKind::Matmul); });
  // srcA from bf16 CB 0 to bfp8_b CB 2 changes a format; from CB 0 to bf16 CB 1 none.
  measure("reconfig_data_format_srca(old, new)", [] { ttemu::reconfig_data_format("srca", 0, 2, kNoCB, kNoCB); });
  measure("reconfig_data_format_srca(same format)", [] { ttemu::reconfig_data_format("srca", 0, 1, kNoCB, kNoCB); });
  measure("pack_reconfig_data_format(new)", [] { ttemu::reconfig_data_format("pack", kNoCB, 1, kNoCB, kNoCB); });
  measure("copy_tile", [] { ttemu::copy_tile(0, 0, 0); });
  measure("matmul_tiles", [] { ttemu::matmul_tiles(0, 0, 0, 1, 1, false); });
  measure("add_tiles", [] { ttemu::binary_tiles(BinaryOp::Add, Broadcast::None, 0, 0, 0, 1, 2, false); });
  measure("sub_tiles_bcast", [] { ttemu::binary_tiles(BinaryOp::Sub, Broadcast::Cols, 0, 0, 0, 1, 2, false); });
  measure("mul_reuse_dest", [] { ttemu::binary_dest_reuse_tiles(BinaryOp::Mul, DestReuse::DestToSrcA, 0, 0, 2); });
  measure("mul_tiles", [] { ttemu::binary_tiles(BinaryOp::Mul, Broadcast::None, 0, 0, 0, 1, 2, false); });
  measure("reduce_tile", [] { ttemu::reduce_tile(ReducePool::Sum, ReduceAxis::Row, 0, 0, 0, 1, 3); });
  measure("transpose_wh_tile", [] { ttemu::transpose_wh_tile(0, 0, 3); });
  measure("unary_bcast", [] { ttemu::unary_bcast(Broadcast::Cols, 0, 0, 3); });
  measure("exp_tile approx", [] { ttemu::sfpu_unary(SfpuUnary::Exp, 0, 0.0f, true); });
  measure("exp_tile", [] { ttemu::sfpu_unary(SfpuUnary::Exp, 0, 0.0f, false); });
  measure("recip_tile", [] { ttemu::sfpu_unary(SfpuUnary::Recip, 0, 0.0f, false); });
  measure("sqrt_tile", [] { ttemu::sfpu_unary(SfpuUnary::Sqrt, 0, 0.0f, false); });
  measure("negative_tile", [] { ttemu::sfpu_unary(SfpuUnary::Neg, 0, 0.0f, false); });
  measure("add_binary_tile", [] { ttemu::sfpu_binary(SfpuBinary::Add, 0, 1, 2); });
  measure("div_binary_tile", [] { ttemu::sfpu_binary(SfpuBinary::Div, 0, 1, 2); });
  measure("where_tile", [] { ttemu::sfpu_where(0, 1, 2, 3, DataFormat::Float16_b); });
  measure("copy_dest_values", [] { ttemu::copy_dest_values(3, 0); });
  measure("fill_tile", [] { ttemu::fill_tile(3, 1.0f); });
  measure("tile_regs_commit", [] { ttemu::tile_regs_commit(); });
  measure("cb_pop_front", [] { ttemu::cb_pop_front(0, 2); });
  measure("cb_reserve_back", [] { ttemu::cb_reserve_back(1, 1); });
  thread.pack_wait_until(thread.committed_at);  // the packer's wait for the commit, not the call
  measure("tile_regs_wait", [] { ttemu::tile_regs_wait(); });
  measure("pack_tile", [] { ttemu::pack_tile(0, 1, 0, false); });
  measure("tile_regs_release", [] { ttemu::tile_regs_release(); });  // the packed page is not pushed: no thread would wait for it
}

void test_api_call_costs() {
  DeviceConfig config;
  config.math_fidelity = MathFidelity::HiFi2;
  Device device(config, n150());
  device.add_cb(0, 2, 2048, DataFormat::Float16_b);
  device.add_cb(1, 1, 2048, DataFormat::Float16_b);
  device.add_cb(2, 1, 1088, DataFormat::Bfp8_b);
  device.add_kernel({"probe_reader", ThreadKind::Reader, cost_probe_reader});
  device.add_kernel({"probe_compute", ThreadKind::Compute, cost_probe_compute});
  device.run();
  const CostTable& c = n150().cost;
  const uint64_t phases = 2;  // HiFi2
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"cb_wait_front", c.cb_call},
      {"tile_regs_acquire", c.tile_regs_sync},
      {"init", c.init},
      {"reconfig_data_format_srca(old, new)", c.reconfig},
      {"reconfig_data_format_srca(same format)", 0},
      {"pack_reconfig_data_format(new)", c.reconfig},
      {"copy_tile", c.copy_tile},
      {"matmul_tiles", std::max(c.matmul_tile_per_phase * phases, c.matmul_tile_floor_bf16)},
      {"add_tiles", c.eltwise_add_tile},
      {"sub_tiles_bcast", c.eltwise_add_tile},
      {"mul_reuse_dest", c.eltwise_mul_tile_per_phase * phases},
      {"mul_tiles", c.eltwise_mul_tile_per_phase * phases},
      {"reduce_tile", c.reduce_tile_per_phase * phases},
      {"transpose_wh_tile", c.transpose_tile},
      {"unary_bcast", c.unary_bcast_tile},
      {"exp_tile approx", c.exp_approx_tile},
      {"exp_tile", c.exp_tile},
      {"recip_tile", c.recip_tile},
      {"sqrt_tile", c.sqrt_tile},
      {"negative_tile", c.sfpu_simple_tile},
      {"add_binary_tile", c.sfpu_simple_tile},
      {"div_binary_tile", c.sfpu_div_tile},
      {"where_tile", c.sfpu_where_tile},
      {"copy_dest_values", c.sfpu_copy_dest_tile},
      {"fill_tile", c.sfpu_simple_tile},
      {"tile_regs_commit", c.tile_regs_sync},
      {"cb_pop_front", c.cb_call},
      {"cb_reserve_back", c.cb_call},
      {"tile_regs_wait", c.tile_regs_sync},
      {"pack_tile", static_cast<uint64_t>(std::ceil(2048 / c.pack_bytes_per_cycle))},
      {"tile_regs_release", c.tile_regs_sync},
  };
  CHECK(g_call_costs == expected);
  for (size_t i = 0; i < std::min(expected.size(), g_call_costs.size()); ++i)
    if (g_call_costs[i] != expected[i])
      std::fprintf(stderr, "  %s: modeled %llu cycles, the cost model says %llu\n", expected[i].first.c_str(),
                   static_cast<unsigned long long>(g_call_costs[i].second),
                   static_cast<unsigned long long>(expected[i].second));
  // The bf16 matmul floor (fitted on GEMM_FLOPS) is what a HiFi2 tile costs; 43 today.
  CHECK(g_call_costs[7].second == 43);
  // A data-format reconfiguration site: ~70 cycles in SDPA's counters (tt-metal #56692).
  CHECK(g_call_costs[3].second == 70);
}

// A NoC command costs its issue cycles on the issuing thread; the transfer runs on.
uint64_t g_issue_cost = 0, g_write_issue_cost = 0;
void issue_probe_kernel() {
  Scheduler& clock = Device::active().scheduler();
  uint32_t page = get_write_ptr(0);
  uint64_t before = clock.now();
  noc_async_read(get_noc_addr(0, 0, page + 1024), page, 1024);
  g_issue_cost = clock.now() - before;
  noc_async_read_barrier();
  before = clock.now();
  noc_async_write(page, get_noc_addr(0, 0, page + 1024), 1024);
  g_write_issue_cost = clock.now() - before;
  noc_async_write_barrier();
}

void test_noc_issue_cost() {
  DeviceConfig config;
  Device device(config, n150());
  device.add_cb(0, 1, 2048, DataFormat::Float16_b);
  device.add_kernel({"issue", ThreadKind::Reader, issue_probe_kernel});
  device.run();
  CHECK(g_issue_cost == n150().noc.issue_cycles);
  CHECK(g_write_issue_cost == n150().noc.write_issue_cycles);
}

// A read carries the transaction id set before it (noc_async_read_set_trid), and a
// barrier on an id waits for that id's reads only: the small read issued first (id 2)
// is waited for while the large one (id 1) is still in flight; its bytes land only at
// its own barrier. Ids past tt-metal's 0xF are an error.
uint64_t g_small_waited = 0, g_large_waited = 0, g_large_done_at = 0;
uint8_t g_before_large_barrier = 0, g_after_large_barrier = 0;
void trid_kernel() {
  Scheduler& clock = Device::active().scheduler();
  uint32_t page = get_write_ptr(0);
  auto* bytes = reinterpret_cast<volatile uint8_t*>(page);
  bytes[1024] = 0;
  bytes[3072] = 7;  // the large read's first source byte
  noc_async_read_set_trid(2);
  noc_async_read(get_noc_addr(0, 0, page + 2048), page, 32);
  noc_async_read_set_trid(1);
  noc_async_read(get_noc_addr(0, 0, page + 3072), page + 1024, 1024);
  g_large_done_at = Device::active().thread().reads_done_at;
  noc_async_read_barrier_with_trid(2);
  g_small_waited = clock.now();
  g_before_large_barrier = bytes[1024];
  noc_async_read_barrier_with_trid(1);
  g_large_waited = clock.now();
  g_after_large_barrier = bytes[1024];
}

void bad_trid_kernel() { noc_async_read_set_trid(16); }

void test_read_transaction_ids() {
  DeviceConfig config;
  Device device(config, n150());
  device.add_cb(0, 2, 2048, DataFormat::Float16_b);
  device.add_kernel({"trid", ThreadKind::Reader, trid_kernel});
  device.run();
  CHECK(g_small_waited < g_large_done_at);
  CHECK(g_large_waited >= g_large_done_at);
  CHECK(g_before_large_barrier == 0 && g_after_large_barrier == 7);
  check_run_fails_with({"bad", ThreadKind::Reader, bad_trid_kernel}, 1,
                       "noc_async_read_set_trid(16): transaction ids are 0x0-0xF");
}

void test_dst_capacity_and_protocol() {
  DstRegisters dst;
  dst.configure(16, false, false);
  CHECK(dst.capacity() == 8);
  dst.configure(16, false, true);
  CHECK(dst.capacity() == 16);
  dst.configure(8, true, false);
  CHECK(dst.capacity() == 4);
  dst.configure(8, true, true);
  CHECK(dst.capacity() == 8);
  check_fails_with([] {
    DstRegisters registers;
    registers.configure(16, false, false);
    registers.acquire();
    registers.math_tile(8, "copy_tile");
  }, "copy_tile: DST index 8 is beyond DST capacity 8 tiles (16-bit DST, half sync)");
  check_fails_with([] {
    DstRegisters registers;
    registers.configure(16, false, false);
    registers.acquire();
    registers.commit();
    registers.release();
  }, "tile_regs_release while DST is committed");
  // bf16 DST rounds on store; fp32 DST keeps the value.
  DstRegisters bf16;
  bf16.configure(16, false, false);
  bf16.acquire();
  bf16.math_tile(0, "t")[0] = 1.0f + 0x1p-10f;
  bf16.store(0);
  bf16.commit();
  bf16.wait();
  CHECK(bf16.pack_tile(0, "t")[0] == 1.0f);
}

void test_dram_interleaving_and_bounds() {
  Dram dram(n150().dram_banks, n150().dram_bank_bytes);
  uint32_t base = dram.allocate("x", DataFormat::Float16_b, 25, 2048);
  auto& data = dram.find("x")->data;
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i / 2048);  // page number
  uint8_t byte = 0;
  dram.read(13 % 12, base + (13 / 12) * 2048, &byte, 1);  // page 13: bank 1, second row
  CHECK(byte == 13);
  dram.read(0, base + 2 * 2048, &byte, 1);  // page 24: bank 0, third row
  CHECK(byte == 24);
  check_fails_with([&] { dram.read(1, base + 2 * 2048, &byte, 1); },
                   "past the last page of buffer 'x' (25 pages)");
  check_fails_with([&] { dram.read(0, 0x10, &byte, 1); }, "not inside any allocated buffer");
}

// ---- a small device run ----
uint64_t g_produced_at = 0;
uint64_t g_consumed_at = 0;

void producer_kernel() {
  ::cb_reserve_back(0, 1);
  auto* page = reinterpret_cast<uint32_t*>(get_write_ptr(0));
  page[0] = 42;
  ttemu::Device::active().scheduler().advance(1000);  // long work before the push
  ::cb_push_back(0, 1);
  g_produced_at = ttemu::Device::active().scheduler().now();
}

void consumer_kernel() {
  ::cb_wait_front(0, 1);
  g_consumed_at = ttemu::Device::active().scheduler().now();
  auto* page = reinterpret_cast<uint32_t*>(get_read_ptr(0));
  if (page[0] != 42) ttemu::fail("consumer read the wrong value");
  ::cb_pop_front(0, 1);
}

void test_cb_hand_off_carries_time() {
  DeviceConfig config;  // one core
  Device device(config, n150());
  device.add_cb(0, 2, 2048, DataFormat::Float16_b);
  device.add_kernel({"producer", ThreadKind::Reader, producer_kernel});
  device.add_kernel({"consumer", ThreadKind::Writer, consumer_kernel});
  device.run();
  CHECK(g_produced_at >= 1000);
  // The consumer cannot see the page before the producer pushed it.
  CHECK(g_consumed_at >= g_produced_at);
  const KernelThread& writer = device.core(0).threads()[static_cast<int>(ThreadKind::Writer)];
  CHECK(writer.fiber->waiting_cycles() >= 1000);
  CHECK(writer.fiber->clock() == writer.fiber->busy_cycles() + writer.fiber->waiting_cycles());
}

// Two CBs in one L1 (tt-metal's indices of one buffer, `shares_l1_with`): the same
// pages, pointers of their own, and page versions apart (the math lanes keep unpacked
// pages by page address and version: equal versions would hand one CB the other's tiles).
void test_cbs_sharing_l1_keep_versions_apart() {
  DeviceConfig config;  // one core
  Device device(config, n150());
  device.add_cb(0, 4, 2048, DataFormat::Float16_b);
  device.add_cb(1, 4, 2048, DataFormat::Float16_b, 0);
  CircularBuffer& holder = device.core(0).cbs()[0];
  CircularBuffer& sharer = device.core(0).cbs()[1];
  CHECK(sharer.base() == holder.base());
  CHECK(sharer.version() != holder.version());
}

// Core (0,0) writes a word into core (0,1)'s CB page and signals it; core (0,1) checks
// it and reads a second word back from core (0,0) with a raw NoC read.
uint32_t g_read_back = 0;

void core_to_core_kernel() {
  uint32_t page = get_write_ptr(0);
  auto* words = reinterpret_cast<volatile uint32_t*>(page);
  volatile uint32_t* semaphore = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  if (my_x[noc_index] == 0) {
    words[0] = 7;
    words[1] = 11;
    noc_async_write(page, get_noc_addr(1, 0, page), 4);
    noc_async_write_barrier();
    noc_semaphore_inc(get_noc_addr(1, 0, get_semaphore(0)), 1);
  } else {
    noc_semaphore_wait(semaphore, 1);
    if (words[0] != 7) ttemu::fail("the NoC write did not arrive");
    noc_async_read(get_noc_addr(0, 0, page + 4), page + 4, 4);
    noc_async_read_barrier();
    g_read_back = words[1];
  }
}

void test_core_to_core_write_read_and_semaphore() {
  DeviceConfig config;
  config.rows = 1;
  config.cols = 2;
  Device device(config, n150());
  device.add_cb(0, 1, 2048, DataFormat::Float16_b);
  device.set_semaphores({0});
  device.add_kernel({"exchange", ThreadKind::Reader, core_to_core_kernel});
  device.run();
  CHECK(g_read_back == 11);
  const Fiber& receiver = *device.core(1).threads()[static_cast<int>(ThreadKind::Reader)].fiber;
  // It waited at least for the write's latency and the semaphore message.
  CHECK(receiver.waiting_cycles() >= 2 * n150().noc.message_cycles);
}

void waits_forever_kernel() { ::cb_wait_front(0, 1); }

// Runs `kernel` alone on a 1 x `cols` grid with one 2-page CB (cb 0); the run must fail
// with `needle`.
void check_run_fails_with(const KernelSpec& kernel, int cols, const std::string& needle) {
  check_fails_with([&] {
    DeviceConfig config;
    config.rows = 1;
    config.cols = cols;
    Device device(config, n150());
    device.add_cb(0, 2, 2048, DataFormat::Float16_b);
    device.add_kernel(kernel);
    device.run();
  }, needle);
}

void test_deadlock_is_reported() {
  check_run_fails_with({"stuck", ThreadKind::Writer, waits_forever_kernel}, 2,
                       "deadlock: no thread can make progress; 2 blocked thread(s):\n  core (0,0) writer [kernel "
                       "'stuck']: cb 0: cb_wait_front wants 1 page(s), 0 available\n  core (0,1) writer [kernel 'stuck']");
}

void pushes_unread_kernel() {
  ::cb_reserve_back(0, 1);
  ::cb_push_back(0, 1);
}

// A run that ends with a CB holding pushed pages no thread waited for used that data
// nowhere: an output never written back comes back silently unchanged, so it is an
// error. (A waited page left unpopped, like a reduce scaler, was read: no error.)
void test_pages_left_in_a_cb_are_reported() {
  check_run_fails_with({"producer", ThreadKind::Reader, pushes_unread_kernel}, 1,
                       "the run ended with pages pushed to 1 CB(s) that no thread waited for: their data was never "
                       "used (a wait in a branch not taken or a loop that runs too few times?)\n  core (0,0) cb 0: "
                       "1 page(s)");
  // (test_cb_hand_off_carries_time runs a producer and a consumer that pops: no error)
}

// The compiler's per-dimension check of a transfer's block (TTLANG_CHECK_TILE_BLOCK):
// rank, block extents, tensor extents, then the block's first tile in each dimension.
void test_tile_block_check() {
  uint32_t row = 0, col = 1;
  TTLANG_CHECK_TILE_BLOCK("x", "k.py:7", 2, 1, 2, 2, 3, row, col);  // tiles 1..2 of a 3-tile row: inside
  TTLANG_CHECK_TILE_BLOCK("x", "k.py:7", 2, 2, 3, 2, 3, 0, 0);      // the whole tensor
  // tiles 2..3 of a 3-tile row: page 3 exists (it is row 1's first tile), so only the
  // per-dimension check sees it
  check_fails_with([] { TTLANG_CHECK_TILE_BLOCK("x", "k.py:7", 2, 1, 2, 2, 3, 0, 2); },
                   "ttemu location: k.py:7\nttemu error: k.py:7: a transfer of a 1x2-tile block at tile index [0, 2] "
                   "of `x` (2x3 tiles) leaves the tensor: in dim 1 it covers tiles 2..3 of 0..2");
  uint32_t minus_one = 0xffffffffu;  // a run-time index computed below zero in uint32_t
  check_fails_with([=] { TTLANG_CHECK_TILE_BLOCK("q", "", 4, 1, 1, 1, 4, 1, 8, 2, 4, 0, 7, minus_one, 0); },
                   "ttemu error: a transfer of a 1x1x1x4-tile block at tile index [0, 7, -1, 0] of `q` "
                   "(1x8x2x4 tiles) leaves the tensor: in dim 2 it starts at tile -1 of 0..1");
}

void test_scheduler_runs_earliest_first() {
  Scheduler scheduler;
  std::vector<int> order;
  scheduler.spawn(1, [&] {
    scheduler.advance(10);
    scheduler.sync_point();
    order.push_back(1);
  });
  scheduler.spawn(0, [&] {
    scheduler.advance(20);
    scheduler.sync_point();
    order.push_back(0);
  });
  CHECK(scheduler.run());
  CHECK((order == std::vector<int>{1, 0}));  // fiber 1 reaches its sync point at 10, fiber 0 at 20
}

}  // namespace

int main() {
  test_bf16_rounding();
  test_face_layout();
  test_tile_math();
  test_noc_addresses();
  test_cost_table();
  test_device_descriptions();
  test_noc_link_contention();
  test_noc_self_read();
  test_noc_per_kernel();
  test_multicast_responses();
  test_api_call_costs();
  test_noc_issue_cost();
  test_read_transaction_ids();
  test_dst_capacity_and_protocol();
  test_dram_interleaving_and_bounds();
  test_scheduler_runs_earliest_first();
  test_cb_hand_off_carries_time();
  test_cbs_sharing_l1_keep_versions_apart();
  test_core_to_core_write_read_and_semaphore();
  test_deadlock_is_reported();
  test_tile_block_check();
  test_pages_left_in_a_cb_are_reported();
  return finish_checks("emulator unit tests");
}
