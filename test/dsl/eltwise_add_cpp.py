# RUN: env TTLANG_COMPILE_ONLY=1 %python %s | FileCheck %s
# The final C++ of the eltwise add kernel: with TTLANG_COMPILE_ONLY, calling the kernel
# compiles it through every stage and returns the artifact instead of running.

from ttlang import CircularBuffer, Program, TensorAccessor, TensorSpec, compute, datamovement, dma, pykernel_gen


@pykernel_gen(grid=(1, 1))
def add(lhs, rhs, out):
    lhs_acc, rhs_acc, out_acc = TensorAccessor(lhs), TensorAccessor(rhs), TensorAccessor(out)

    @compute()
    def add_compute(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        with lhs_cb.wait() as l, rhs_cb.wait() as r, out_cb.reserve() as o:
            o.store(l + r)

    @datamovement()
    def reader(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        with lhs_cb.reserve() as blk:
            dma(lhs_acc[0, 0], blk).wait()
        with rhs_cb.reserve() as blk:
            dma(rhs_acc[0, 0], blk).wait()

    @datamovement()
    def writer(lhs_cb: CircularBuffer, rhs_cb: CircularBuffer, out_cb: CircularBuffer):
        with out_cb.wait() as blk:
            dma(blk, out_acc[0, 0]).wait()

    return Program(add_compute, reader, writer)(lhs, rhs, out)


tile = TensorSpec((32, 32))
artifact = add(tile, tile, tile)
print(artifact.program.grid)
for name, source in artifact.sources.items():
    print(f"// ===== {name}")
    print(source)

# CHECK: (1, 1)

# CHECK-LABEL: // ===== add_compute
# CHECK: void kernel_main() {
# CHECK: cb_reserve_back([[OUT:.*]], 1);
# CHECK-NEXT: tile_regs_acquire();
# CHECK-NEXT: add_init([[LHS:.*]], [[RHS:.*]]);
# CHECK-NEXT: cb_wait_front([[LHS]], 1);
# CHECK-NEXT: cb_wait_front([[RHS]], 1);
# CHECK-NEXT: add_tiles([[LHS]], [[RHS]], 0, 0, 0);
# CHECK-NEXT: tile_regs_commit();
# CHECK-NEXT: tile_regs_wait();
# CHECK-NEXT: pack_tile<true>(0, [[OUT]], 0);
# CHECK-NEXT: tile_regs_release();
# CHECK: cb_push_back([[OUT]], 1);

# CHECK-LABEL: // ===== add_reader
# CHECK: void kernel_main() {
# CHECK: cb_reserve_back([[A:.*]], 1);
# CHECK-NEXT: uint32_t [[PTR:.*]] = get_write_ptr([[A]]);
# CHECK-NEXT: noc_async_read_set_trid(1);
# CHECK-NEXT: noc_async_read_tile(0, {{.*}}, [[PTR]]);
# CHECK-NEXT: noc_async_read_barrier_with_trid(1);
# CHECK-NEXT: cb_push_back([[A]], 1);

# CHECK-LABEL: // ===== add_writer
# CHECK: cb_wait_front([[C:.*]], 1);
# CHECK-NEXT: uint32_t [[RPTR:.*]] = get_read_ptr([[C]]);
# CHECK-NEXT: noc_async_write_tile(0, {{.*}}, [[RPTR]]);
# CHECK-NEXT: noc_async_write_barrier();
# CHECK-NEXT: cb_pop_front([[C]], 1);
