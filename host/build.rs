//! Compiles `gpu-kernels/` to PTX and hands its path to the host library.
//!
//! This plays the role of Rust-CUDA's `cuda_builder`, with rustc's own
//! `nvptx64-nvidia-cuda` target (docs/design.md §2): a nested
//! `cargo rustc --target nvptx64-nvidia-cuda -Zbuild-std=core -- --emit=asm`
//! with its own target directory (one per architecture and checkout), so it
//! neither deadlocks on the outer build's lock nor inherits host `RUSTFLAGS`.
//! It runs twice: for baseline `sm_80` (`gpu_kernels.ptx`, which the driver
//! JIT-compiles for any GPU from Ampere on) and for `sm_90`
//! (`gpu_kernels_sm90.ptx`, loaded on Hopper and later: there rustc emits the
//! packed 16-bit instructions that become DPX), both PTX ISA 8.0. Cargo
//! reruns this script when a kernel source, `build_sass.rs` or the
//! `ptxas` it looks for (`WARPSW_PTXAS`, `CUDA_HOME`, `CUDA_PATH`) changes.
//!
//! rustc has no launch-bounds attribute for `ptx-kernel` functions, so the
//! group kernels' bounds are written into the PTX here: after each group
//! entry point's parameter list, `.maxntid` (the block size the host
//! launches) and `.maxnreg` (the register cap of its configuration for the
//! build's architecture, `gpu_kernels::group_i16x2::CONFIGS` and
//! `gpu_kernels::query_group_i16x2::CONFIGS`), which ptxas
//! and the driver's JIT honour as nvcc's `__launch_bounds__` and
//! `__maxnreg__`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

#[path = "build_sass.rs"]
mod sass;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels = manifest_dir.join("../gpu-kernels");
    println!("cargo:rerun-if-changed={}", kernels.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        kernels.join("Cargo.toml").display()
    );

    // The kernel crate's folder as one path, whatever the checkout's is
    // called from: the nested build's key and the sources' dates.
    let kernels = fs::canonicalize(&kernels).unwrap_or(kernels);
    let key = checkout_key(&kernels);

    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    for (arch, file) in [
        ("sm_80", "gpu_kernels.ptx"),
        ("sm_90", "gpu_kernels_sm90.ptx"),
    ] {
        let nested = out_dir.join(format!("nvptx-{arch}-{key}"));
        let ptx = build_ptx(&manifest_dir, &kernels, &nested, arch);
        let text = fs::read_to_string(&ptx)
            .unwrap_or_else(|e| fail(&format!("reading {}: {e}", ptx.display())));
        let dest = out_dir.join(file);
        fs::write(&dest, with_launch_bounds(&text, arch == "sm_90"))
            .unwrap_or_else(|e| fail(&format!("writing {}: {e}", dest.display())));
    }
    println!(
        "cargo:rerun-if-changed={}",
        manifest_dir.join("build_sass.rs").display()
    );
    sass::write_sass(
        &out_dir,
        &out_dir.join("gpu_kernels.ptx"),
        &out_dir.join("gpu_kernels_sm90.ptx"),
    );
}

/// `ptx` with `.maxntid` and `.maxnreg` after the parameter list of every
/// group and query-group entry point (module docs); fails if one is
/// missing.
fn with_launch_bounds(ptx: &str, hopper: bool) -> String {
    let caps = gpu_kernels::launch_bounds(hopper);
    let mut out = String::with_capacity(ptx.len() + 64 * caps.len());
    let mut bounds = None;
    let mut done = 0;
    for line in ptx.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(name) = line
            .strip_prefix(".visible .entry ")
            .and_then(|rest| rest.strip_suffix('('))
        {
            bounds = caps.iter().find(|(symbol, _, _)| *symbol == name);
        } else if line == ")"
            && let Some((_, threads, registers)) = bounds.take()
        {
            out.push_str(&format!(".maxntid {threads}, 1, 1\n.maxnreg {registers}\n"));
            done += 1;
        }
    }
    if done != caps.len() {
        fail(&format!(
            "launch bounds written for {done} of the {} group entry points",
            caps.len()
        ));
    }
    out
}

/// Compiles the kernel crate (`kernels`, its folder) for `arch` in
/// `target_dir` (one per architecture, so that neither build invalidates
/// the other, and per checkout: [`checkout_key`]) and returns the PTX
/// file, built again from nothing where it is older than a kernel source.
fn build_ptx(manifest_dir: &Path, kernels: &Path, target_dir: &Path, arch: &str) -> PathBuf {
    let sources = newest_source(kernels);
    let ptx = run_nested_build(manifest_dir, target_dir, arch);
    if modified(&ptx) >= sources {
        return ptx;
    }
    // The nested build answered with PTX older than a kernel source of this
    // checkout, so not built from it (it once handed back another
    // checkout's kernels: benches/RESULTS.md, "Streamed pairs, fourth
    // version, measured"). Build again from nothing.
    println!(
        "cargo:warning=the PTX for {arch} was older than a kernel source in {}: \
         built again from nothing",
        kernels.display()
    );
    let _ = fs::remove_dir_all(target_dir);
    let ptx = run_nested_build(manifest_dir, target_dir, arch);
    if modified(&ptx) < sources {
        // Built from nothing, so from these sources: one of them is dated
        // in the future.
        println!(
            "cargo:warning=a kernel source in {} is dated after its PTX build (in the future?)",
            kernels.display()
        );
    }
    ptx
}

/// One nested `cargo rustc` of the kernel crate for `arch` in `target_dir`;
/// the PTX file it leaves.
fn run_nested_build(manifest_dir: &Path, target_dir: &Path, arch: &str) -> PathBuf {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(manifest_dir.join(".."))
        .args([
            "rustc",
            "-p",
            "gpu-kernels",
            "--release",
            "--lib",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--target-dir",
        ])
        .arg(target_dir)
        .args([
            "--",
            "--emit=asm",
            "-C",
            &format!("target-cpu={arch}"),
            "-C",
            "target-feature=+ptx80",
            // Debug sections in PTX are rejected by ptxas.
            "-C",
            "debuginfo=0",
            // Kernels keep their column state in fixed-size arrays indexed by
            // loop counters; only full unrolling keeps those arrays in
            // registers instead of local memory (tests/ptx.rs checks).
            "-C",
            "llvm-args=-unroll-threshold=4000",
        ]);
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_MAKEFLAGS",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    let output = cmd.output().unwrap_or_else(|e| {
        fail(&format!(
            "could not start the nested cargo for the PTX build: {e}"
        ))
    });
    if !output.status.success() {
        fail(&format!(
            "compiling gpu-kernels to PTX for {arch} failed (nested `cargo rustc --target nvptx64-nvidia-cuda`).\n\
             It needs the pinned nightly with the rust-src component (see rust-toolchain.toml).\n\
             --- stderr ---\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }

    let deps = target_dir.join("nvptx64-nvidia-cuda/release/deps");
    newest_ptx(&deps).unwrap_or_else(|| {
        fail(&format!(
            "the PTX build succeeded but no gpu_kernels-*.s is in {}",
            deps.display()
        ))
    })
}

/// A key for the kernel crate's folder (canonical), for the nested target
/// directory's name. Two checkouts built into one `CARGO_TARGET_DIR` (two git
/// worktrees, say) share this crate's `OUT_DIR`. Without the key they would
/// share its nested build too, where cargo can take one checkout's kernel
/// crate as fresh by another's build and hand back that build's PTX. (The
/// key guards only the nested build: where cargo does not rerun this script
/// for the second checkout, its `OUT_DIR` keeps the first's PTX. One target
/// directory per checkout is the safe way, docs/design.md.)
fn checkout_key(kernels: &Path) -> String {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    kernels.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// When the newest Rust source of the kernel crate was written (the files
/// rustc reads: the crate includes nothing else; an editor's swap file or
/// a touched manifest does not count).
fn newest_source(kernels: &Path) -> SystemTime {
    fn walk(path: &Path, newest: &mut SystemTime) {
        if let Ok(entries) = fs::read_dir(path) {
            for entry in entries.flatten() {
                walk(&entry.path(), newest);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            *newest = (*newest).max(modified(path));
        }
    }
    let mut newest = SystemTime::UNIX_EPOCH;
    walk(&kernels.join("src"), &mut newest);
    newest
}

/// When `path` was last written (the epoch where that cannot be read).
fn modified(path: &Path) -> SystemTime {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The most recently written `gpu_kernels-*.s` (older hashes may linger).
fn newest_ptx(deps: &Path) -> Option<PathBuf> {
    fs::read_dir(deps)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("gpu_kernels-") && name.ends_with(".s")
        })
        .max_by_key(|p| fs::metadata(p).and_then(|m| m.modified()).ok())
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}
