//! The embedded PTX: every kernel entry point present, nothing the driver
//! would refuse or that would run slowly.

use host::engine::gpu::{PTX, PTX_SM90};
use host::kernel::KERNELS;

/// Both builds of the kernels: baseline `sm_80` and Hopper's `sm_90`.
const BUILDS: [(&str, &str); 2] = [("sm_80", PTX), ("sm_90", PTX_SM90)];

#[test]
fn ptx_declares_every_kernel_entry_point() {
    let symbols = KERNELS
        .iter()
        .flat_map(|k| k.kernel.symbols())
        .chain(host::align::KERNEL_SYMBOLS);
    for symbol in symbols {
        for (arch, ptx) in BUILDS {
            assert!(
                ptx.contains(&format!(".visible .entry {symbol}(")),
                "{arch} PTX has no entry point {symbol}"
            );
        }
    }
}

#[test]
fn ptx_calls_no_external_function() {
    // A non-inlined call into another crate shows up as `.extern .func`,
    // which the driver cannot resolve.
    for (arch, ptx) in BUILDS {
        assert!(
            !ptx.contains(".extern .func"),
            "{arch} PTX declares an external function"
        );
    }
}

#[test]
fn ptx_keeps_kernel_state_out_of_local_memory() {
    // Column state must stay in registers: a `.local` depot means an array
    // was not fully unrolled (see host/build.rs).
    for (arch, ptx) in BUILDS {
        assert!(!ptx.contains(".local"), "{arch} PTX uses local memory");
    }
}

#[test]
fn ptx_targets_each_architecture() {
    for (arch, ptx) in BUILDS {
        assert!(ptx.contains(&format!(".target {arch}\n")), "{arch}");
        assert!(ptx.contains(".version 8.0"), "{arch}");
    }
}

/// On Hopper the 16-bit kernel's cells are packed instructions (DPX in the
/// SASS), not pairs of 16-bit ones: LLVM splits a packed subtract, so the
/// recurrence adds negated costs (`Score::minus`).
#[test]
fn sm90_ptx_packs_the_16_bit_kernel() {
    let entry = PTX_SM90
        .split(".visible .entry sw_simt_i16x2(")
        .nth(1)
        .expect("sm_90 PTX has sw_simt_i16x2");
    let body = &entry[..entry.find("\n}").expect("the entry point ends")];
    let count = |op: &str| body.matches(op).count();
    assert!(
        count("add.s16x2") >= 4 * 128,
        "{} add.s16x2",
        count("add.s16x2")
    );
    assert!(
        count("max.s16x2") >= 3 * 128,
        "{} max.s16x2",
        count("max.s16x2")
    );
    assert_eq!(count("sub.s16"), 0, "16-bit subtracts");
}

/// Every group and query-group entry point and the rescue carry their
/// launch bounds (host/build.rs): the block size the host launches and the
/// register cap for the build's architecture.
#[test]
fn ptx_caps_the_group_kernels_registers() {
    for (arch, ptx) in BUILDS {
        for (symbol, threads, cap) in gpu_kernels::launch_bounds(arch == "sm_90") {
            let entry = format!(".visible .entry {symbol}(");
            let after = &ptx[ptx.find(&entry).expect("entry point")..];
            let head = &after[..after.find("\n{").expect("a body")];
            let bounds = format!(".maxntid {threads}, 1, 1\n.maxnreg {cap}\n");
            assert!(
                head.ends_with(&bounds[..bounds.len() - 1]),
                "{arch} {symbol}: {head}"
            );
        }
    }
}
