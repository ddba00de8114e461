//! The embedded PTX: every kernel entry point present, nothing the driver
//! would refuse or that would run slowly.

use host::engine::KERNELS;
use host::engine::gpu::PTX;

#[test]
fn ptx_declares_every_kernel_entry_point() {
    for k in KERNELS {
        assert!(
            PTX.contains(&format!(".visible .entry {}(", k.symbol)),
            "PTX has no entry point {}",
            k.symbol
        );
    }
}

#[test]
fn ptx_declares_the_traceback_kernels() {
    for symbol in host::traceback::KERNEL_SYMBOLS {
        assert!(
            PTX.contains(&format!(".visible .entry {symbol}(")),
            "PTX has no entry point {symbol}"
        );
    }
}

#[test]
fn ptx_calls_no_external_function() {
    // A non-inlined call into another crate shows up as `.extern .func`,
    // which the driver cannot resolve.
    assert!(
        !PTX.contains(".extern .func"),
        "PTX declares an external function"
    );
}

#[test]
fn ptx_keeps_kernel_state_out_of_local_memory() {
    // Column state must stay in registers: a `.local` depot means an array
    // was not fully unrolled (see host/build.rs).
    assert!(!PTX.contains(".local"), "PTX uses local memory");
}

#[test]
fn ptx_targets_the_baseline_architecture() {
    assert!(PTX.contains(".target sm_80"));
    assert!(PTX.contains(".version 8.0"));
}
