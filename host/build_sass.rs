//! The build's SASS: where NVIDIA's `ptxas` is at hand, the kernels' PTX
//! is also assembled for the GPUs warpsw supports, so that the first search
//! on a machine loads machine code instead of waiting for the driver to
//! compile the entry points it launches (again in every new container or
//! after a driver update; benches/RESULTS.md has the times). Without
//! `ptxas` (CI, most developers' machines) the binary carries PTX alone and
//! works as before.
//!
//! `ptxas` is looked for in `WARPSW_PTXAS` (a path; `none` turns this off),
//! then on `PATH`, in `CUDA_HOME`/`CUDA_PATH`, `/usr/local/cuda`, and in the
//! `nvidia-cuda-nvcc` wheel of the `python3` on `PATH`
//! (`pip install nvidia-cuda-nvcc`). A failed assembly is a warning and that
//! architecture keeps its PTX.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures assembled: `(major, minor, the PTX it comes from)`;
/// `hopper` PTX for 9.0 (its packed 16-bit instructions), the baseline PTX
/// for the rest. A cubin runs on its own major version from its minor on
/// (an 8.0 cubin on an 8.7 GPU); other GPUs JIT-compile the PTX.
pub const ARCHES: [(u32, u32, bool); 4] =
    [(8, 0, false), (8, 6, false), (8, 9, false), (9, 0, true)];

/// `ptxas`, if the build can find one (module docs).
pub fn find_ptxas() -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed=WARPSW_PTXAS");
    // Not PATH: any change of it would rerun the assembly (a minute); a
    // ptxas that appears later is taken when the kernels next change, or
    // at once with WARPSW_PTXAS.
    println!("cargo:rerun-if-env-changed=CUDA_HOME");
    println!("cargo:rerun-if-env-changed=CUDA_PATH");
    if let Some(given) = std::env::var_os("WARPSW_PTXAS") {
        return match given.to_str() {
            Some("none") | Some("") => None,
            _ => Some(PathBuf::from(given)),
        };
    }
    let on_path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join("ptxas")).collect())
        .unwrap_or_default();
    let toolkits = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain([PathBuf::from("/usr/local/cuda")])
        .map(|d| d.join("bin/ptxas"));
    on_path
        .into_iter()
        .chain(toolkits)
        .chain(wheel_ptxas())
        .find(|p| p.is_file())
}

/// `ptxas` of the `nvidia-cuda-nvcc` wheel, where `python3` has one.
fn wheel_ptxas() -> Vec<PathBuf> {
    let script = "import nvidia; print('\\n'.join(nvidia.__path__))";
    let Ok(out) = Command::new("python3").args(["-c", script]).output() else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .flat_map(|dir| ["cu13/bin/ptxas", "cuda_nvcc/bin/ptxas"].map(|p| Path::new(dir).join(p)))
        .collect()
}

/// Assembles `ptx` for `sm_{major}{minor}` into `cubin` with `ptxas`;
/// `false` (and a build warning) where it fails.
pub fn assemble(ptxas: &Path, ptx: &Path, (major, minor): (u32, u32), cubin: &Path) -> bool {
    let arch = format!("sm_{major}{minor}");
    let status = Command::new(ptxas)
        .args(["-arch", &arch, "-O3"])
        .arg(ptx)
        .arg("-o")
        .arg(cubin)
        .output();
    match status {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            println!(
                "cargo:warning=ptxas ({}) could not assemble the kernels for {arch}, which keep their PTX: {}",
                ptxas.display(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            );
            false
        }
        Err(e) => {
            println!(
                "cargo:warning=ptxas ({}) did not run ({e}); the kernels keep their PTX",
                ptxas.display()
            );
            false
        }
    }
}

/// Assembles every architecture of [`ARCHES`] side by side (`baseline` and
/// `hopper` the two PTX files) into `out_dir`, and writes `sass.rs` there:
/// the table `SASS` of `(major, minor, cubin bytes)` the host includes,
/// empty without `ptxas`.
pub fn write_sass(out_dir: &Path, baseline: &Path, hopper: &Path) {
    let ptxas = find_ptxas();
    let built: Vec<(u32, u32, PathBuf)> = match &ptxas {
        None => Vec::new(),
        Some(ptxas) => std::thread::scope(|s| {
            let jobs: Vec<_> = ARCHES
                .iter()
                .map(|&(major, minor, is_hopper)| {
                    let ptx = if is_hopper { hopper } else { baseline };
                    let cubin = out_dir.join(format!("gpu_kernels_sm{major}{minor}.cubin"));
                    s.spawn(move || {
                        assemble(ptxas, ptx, (major, minor), &cubin)
                            .then_some((major, minor, cubin))
                    })
                })
                .collect();
            jobs.into_iter()
                .filter_map(|j| j.join().ok().flatten())
                .collect()
        }),
    };
    let mut table = String::from(
        "/// The kernels assembled for these GPUs at build time: (major, minor, cubin).\n\
         pub const SASS: &[(i32, i32, &[u8])] = &[\n",
    );
    for (major, minor, cubin) in &built {
        table.push_str(&format!(
            "    ({major}, {minor}, include_bytes!({:?})),\n",
            cubin.display().to_string()
        ));
    }
    table.push_str("];\n");
    let dest = out_dir.join("sass.rs");
    std::fs::write(&dest, table).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}
