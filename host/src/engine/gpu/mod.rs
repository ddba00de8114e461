//! The GPU side of the engines, by concern: [`device`] (discovery, the
//! kernels' module on each GPU, context binding), [`budget`] (each GPU's
//! free memory and the share of it each plan uses), [`resident`] (the engine
//! that keeps chunks of the database on one GPU) and [`launch`] (what a
//! kernel's adapter needs to launch it on a chunk).
//!
//! Every `unsafe` use of `cudarc` is in [`resident`], [`launch`] or a
//! kernel's adapter (`crate::kernel`), which checks the buffer sizes that
//! the kernel's `# Safety` section asks for.

pub mod budget;
pub mod device;
pub mod launch;
pub mod resident;
pub mod timeline;

pub use budget::{Budget, MemoryCap};
pub use device::{
    DeviceInfo, KernelsSource, PTX, PTX_SM90, SASS_VARIABLE, best_cubin, device, devices,
    kernels_loaded_from, ptx_for, sass_architectures, sass_for, sass_on, selected_devices, warm_up,
};
pub(crate) use device::{gpu_error, kernels_module};
pub use resident::{
    DEFAULT_GPU_STREAMS, EngineStream, EntryPointUse, GpuEngine, GpuEngineBuilder, KernelResources,
    plan_for,
};
