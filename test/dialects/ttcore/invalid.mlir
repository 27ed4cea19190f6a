// Every ttcore verifier and parser error.
// RUN: %ttlang-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{a tile must be 32x32, but this one is 16x32.}}
func.func private @half_tile(!ttcore.tile<16x32, bf16>)

// -----

// expected-error @+1 {{expected a tile shape of two dimensions, got 3}}
func.func private @rank3_tile(!ttcore.tile<32x32x32, bf16>)

// -----

// expected-error @+1 {{Expected `bf16`, `f32`, or `bfp8_b`}}
func.func private @fp16_tile(!ttcore.tile<32x32, f16>)

// -----

// expected-error @+1 {{a grid needs at least one core in each dimension, but this one is 0x4.}}
"test.op"() {grid = #ttcore.grid<0x4>} : () -> ()

// -----

// expected-error @+1 {{expected a grid of two dimensions (rows x columns), got 3}}
"test.op"() {grid = #ttcore.grid<1x2x3>} : () -> ()

// -----

// expected-error @+1 {{Expected `dram`, `l1`, or `dst`}}
"test.op"() {space = #ttcore.memory_space<sram>} : () -> ()

// -----

// expected-error @+1 {{a device's DST holds at least two tiles (one per half).}}
"test.op"() {device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 1396736, max_cbs = 32, dst_tiles = 1x8>} : () -> ()

// -----

// expected-error @+1 {{expected dst_tiles as two dimensions, got 1}}
"test.op"() {device = #ttcore.device<n150, grid = 8x8, cb_l1_bytes = 1396736, max_cbs = 32, dst_tiles = 16>} : () -> ()
