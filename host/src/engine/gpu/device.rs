//! The GPUs the driver reports, their contexts and the kernels' module on
//! each: discovery, module cache, context binding, and driver errors named
//! by device and stage.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaModule, DriverError};
use cudarc::nvrtc::Ptx;

use crate::error::{Error, Result, gpu_error};
use crate::switch::Switch;

/// The kernels' PTX, built by `host/build.rs` for baseline `sm_80`: the
/// driver JIT-compiles it for the GPU it runs on (Ampere and later).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.ptx"));

/// The same kernels built for `sm_90`, loaded on GPUs of compute capability
/// 9.0 and up: there the 16-bit kernel's packed arithmetic is `add.s16x2` /
/// `max.s16x2` (DPX in the SASS) instead of pairs of 16-bit instructions.
pub const PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels_sm90.ptx"));

/// The PTX for a GPU of compute capability `major.minor`.
///
/// ```
/// use host::engine::gpu::{PTX, PTX_SM90, ptx_for};
/// assert!(std::ptr::eq(ptx_for((8, 0)), PTX));
/// assert!(std::ptr::eq(ptx_for((9, 0)), PTX_SM90));
/// ```
pub fn ptx_for((major, _minor): (i32, i32)) -> &'static str {
    if major >= 9 { PTX_SM90 } else { PTX }
}

mod sass {
    include!(concat!(env!("OUT_DIR"), "/sass.rs"));
}

/// The kernels' machine code for a GPU of compute capability `(major,
/// minor)`, where the build assembled it (`ptxas` at hand; `build_sass.rs`):
/// the cubin of the same major version and the highest minor up to the
/// GPU's (a cubin runs on later minors of its major). `None`: the driver
/// JIT-compiles [`ptx_for`]'s PTX.
pub fn sass_for(capability: (i32, i32)) -> Option<&'static [u8]> {
    best_cubin(sass::SASS, capability)
}

/// The environment switch that keeps the build's machine code unused
/// (`off`: the driver compiles the PTX, as a build without `ptxas` does;
/// for comparing the two), `on` by default.
pub const SASS_VARIABLE: &str = "WARPSW_SASS";

static SASS_ON: Switch = Switch::new(SASS_VARIABLE, true);

/// Whether [`SASS_VARIABLE`] lets the build's machine code be loaded; an
/// error if it is neither on nor off.
pub fn sass_on() -> Result<bool> {
    SASS_ON.on()
}

/// The environment switch for cudarc's own ordering of buffers between
/// streams: `on` (the default) or `off`, for comparing the two.
///
/// With it on, every kernel that reads a buffer waits on an event of the
/// buffer's last write and records one of its own read, and every write or
/// free waits on those: two driver calls a buffer a launch, five buffers a
/// chunk's launch. Kernels take every buffer as read, so cudarc never
/// ordered a read-back after the kernels that write the scores: the
/// engine orders its streams itself (the workers wait for the profiles'
/// upload; the engine's stream joins the chunks it reads back, every chunk
/// before it uploads the next query's profiles or frees or reuses a
/// buffer, and every worker before the engine is dropped), as does the
/// GPU traceback (`crate::align`, one stream). `off` leaves those calls
/// out, and the events of each new buffer. On one H200 it halved the
/// host's time to queue a query's 34 chunks on half of Swiss-Prot (0.58
/// against 1.24 ms, a query of 8 residues) but did not move `bench` beyond
/// its noise (short and standard queries) and wrote the same hits; the GPU
/// tests of pairs, hand-over, split and streamed parts have not run with
/// it off, so it stays on (benches/RESULTS.md, *No batches on short
/// sequences, measured; where a query of a few residues spends its time*).
pub const EVENT_TRACKING_VARIABLE: &str = "WARPSW_EVENT_TRACKING";

static EVENT_TRACKING: Switch = Switch::new(EVENT_TRACKING_VARIABLE, true);

/// Whether [`EVENT_TRACKING_VARIABLE`] asks for cudarc's event tracking;
/// an error if it is neither on nor off.
pub fn event_tracking_on() -> Result<bool> {
    EVENT_TRACKING.on()
}

/// [`sass_for`] over `table`.
///
/// ```
/// use host::engine::gpu::best_cubin;
/// let table: &[(i32, i32, &[u8])] = &[(8, 0, b"a"), (8, 6, b"b"), (9, 0, b"c")];
/// assert_eq!(best_cubin(table, (8, 7)), Some(&b"b"[..]));
/// assert_eq!(best_cubin(table, (8, 0)), Some(&b"a"[..]));
/// assert_eq!(best_cubin(table, (9, 0)), Some(&b"c"[..]));
/// assert_eq!(best_cubin(table, (12, 0)), None);
/// assert_eq!(best_cubin(table, (7, 5)), None);
/// ```
pub fn best_cubin(
    table: &[(i32, i32, &'static [u8])],
    (major, minor): (i32, i32),
) -> Option<&'static [u8]> {
    table
        .iter()
        .filter(|&&(a, b, _)| a == major && b <= minor)
        .max_by_key(|&&(_, b, _)| b)
        .map(|&(_, _, cubin)| cubin)
}

/// The architectures the build assembled, as `sm_XY` (empty: PTX only).
pub fn sass_architectures() -> Vec<String> {
    sass::SASS
        .iter()
        .map(|(major, minor, _)| format!("sm_{major}{minor}"))
        .collect()
}

/// A GPU the driver reports.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Total memory in bytes.
    pub total_memory: usize,
    /// Streaming multiprocessors.
    pub multiprocessors: usize,
}

impl DeviceInfo {
    /// "GPU n (name)": how warnings and run summaries name a device.
    pub fn label(&self) -> String {
        format!("GPU {} ({})", self.ordinal, self.name)
    }

    /// A driver error on this device at `stage`, as the host's [`Error`].
    pub fn error(&self, stage: &'static str) -> impl Fn(DriverError) -> Error + use<> {
        gpu_error(self.ordinal, &self.name, stage)
    }
}

/// Lists the GPUs, or says why there are none: [`Error::NoDriver`] when no
/// CUDA driver library can be loaded, [`Error::NoDevice`] when it reports none.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    // SAFETY: only checks whether the driver library can be loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::NoDriver("libcuda.so could not be loaded".into()));
    }
    let count = CudaContext::device_count().map_err(|e| Error::NoDriver(e.to_string()))?;
    if count <= 0 {
        return Err(Error::NoDevice);
    }
    (0..count as usize)
        .map(|ordinal| {
            let ctx =
                CudaContext::new(ordinal).map_err(gpu_error(ordinal, "", "opening the device"))?;
            let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
            let stage = |s| gpu_error(ordinal, &name, s);
            Ok(DeviceInfo {
                ordinal,
                compute_capability: ctx
                    .compute_capability()
                    .map_err(stage("reading attributes"))?,
                total_memory: ctx.total_mem().map_err(stage("reading attributes"))?,
                multiprocessors: ctx
                    .attribute(
                        cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                    )
                    .map_err(stage("reading attributes"))?
                    .max(1) as usize,
                name: name.clone(),
            })
        })
        .collect()
}

/// The GPUs to use: every one present (`None`), or those listed, each
/// checked to exist, with what the driver reports of each.
pub fn selected_devices(wanted: Option<&[usize]>) -> Result<Vec<DeviceInfo>> {
    let present = devices()?;
    let Some(list) = wanted else {
        return Ok(present);
    };
    list.iter()
        .map(|&ordinal| {
            present
                .iter()
                .find(|d| d.ordinal == ordinal)
                .cloned()
                .ok_or_else(|| {
                    let ordinals: Vec<usize> = present.iter().map(|d| d.ordinal).collect();
                    Error::InvalidArgument(format!(
                        "there is no GPU {ordinal} (GPUs present: {ordinals:?})"
                    ))
                })
        })
        .collect()
}

/// Opens the GPUs `wanted` (`None`: all) and loads the kernels in each, so
/// that a search that starts this on another thread while it reads its
/// input finds them ready: a device's start (its context and the kernels'
/// module; with the database's upload 0.72–0.85 s on an H200,
/// benches/RESULTS.md) then runs beside the reading instead of after it.
/// Errors are dropped: the search's own opening of the devices reports
/// them.
pub fn warm_up(wanted: Option<&[usize]>) {
    let Ok(devices) = selected_devices(wanted) else {
        return;
    };
    for device in devices {
        let _ = kernels_module(device.ordinal, "warm-up");
    }
}

/// What the driver reports of GPU `ordinal`.
pub fn device(ordinal: usize) -> Result<DeviceInfo> {
    Ok(selected_devices(Some(&[ordinal]))?.remove(0))
}

/// GPU `ordinal`'s context and the kernels' module on it (the build's
/// machine code for its compute capability, [`sass_for`], else
/// [`ptx_for`]'s PTX, which the driver compiles), the context bound to the
/// calling thread. Loaded once per process and device; every engine and
/// traceback run after the first reuses it. [`kernels_loaded_from`] says
/// which it was.
pub(crate) fn kernels_module(
    ordinal: usize,
    name: &str,
) -> Result<(Arc<CudaContext>, Arc<CudaModule>)> {
    let mut loaded = LOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, ctx, module, _)) = loaded.iter().find(|l| l.0 == ordinal) {
        ctx.bind_to_thread()
            .map_err(gpu_error(ordinal, name, "binding the device"))?;
        return Ok((ctx.clone(), module.clone()));
    }
    let stage = |s| gpu_error(ordinal, name, s);
    // A misspelt switch is told before the device is opened.
    let tracking = event_tracking_on()?;
    let ctx = CudaContext::new(ordinal).map_err(stage("opening the device"))?;
    if !tracking {
        // SAFETY: no buffer exists in this context yet, and every user of
        // it orders its streams itself (EVENT_TRACKING_VARIABLE); asked for
        // by WARPSW_EVENT_TRACKING=off only.
        unsafe { ctx.disable_event_tracking() };
    }
    let capability = ctx
        .compute_capability()
        .map_err(stage("reading attributes"))?;
    // Machine code where the build made it; the PTX (compiled by the
    // driver) otherwise, or if the driver refuses the cubin.
    let cubin = match sass_on()? {
        true => sass_for(capability),
        false => None,
    };
    let from_cubin = cubin.and_then(|c| ctx.load_module(Ptx::from_binary(c.to_vec())).ok());
    let (module, source) = match from_cubin {
        Some(module) => (module, KernelsSource::MachineCode),
        None => (
            ctx.load_module(Ptx::from_src(ptx_for(capability)))
                .map_err(stage("loading the kernels' PTX"))?,
            KernelsSource::Ptx,
        ),
    };
    loaded.push((ordinal, ctx.clone(), module.clone(), source));
    Ok((ctx, module))
}

/// Device ordinal, its context, the module loaded in it and what it was
/// loaded from.
type Loaded = (usize, Arc<CudaContext>, Arc<CudaModule>, KernelsSource);

/// The kernels' modules loaded so far, a device at a time.
static LOADED: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// What a device's kernels were loaded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelsSource {
    /// The build's machine code for the device ([`sass_for`]).
    MachineCode,
    /// The PTX, compiled by the driver ([`ptx_for`]).
    Ptx,
}

impl std::fmt::Display for KernelsSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KernelsSource::MachineCode => "machine code",
            KernelsSource::Ptx => "PTX",
        })
    }
}

/// What GPU `ordinal`'s kernels were loaded from, once they are.
pub fn kernels_loaded_from(ordinal: usize) -> Option<KernelsSource> {
    LOADED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .iter()
        .find(|l| l.0 == ordinal)
        .map(|l| l.3)
}
