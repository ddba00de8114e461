//! warpsw's integration tests: one binary, one module per area.
//!
//! GPU tests are `#[ignore = "needs a CUDA GPU"]`: CI (no GPU) reports them as
//! ignored; on a GPU machine `scripts/gpu.sh` packages this binary and
//! `run.sh` runs it with `--ignored`.

mod cli;
mod engines;
mod gpu;
mod hay;
mod kernels;
mod library;
mod multi;
mod ptx;
mod stats;
mod traceback;
mod vector_kernels;
mod words;
