//! The GPU side of the engines, by concern: [`device`] (discovery, the
//! kernels' module on each GPU, context binding), [`budget`] (each GPU's
//! free memory and the share of it each plan uses), [`resident`] (the engine
//! that keeps chunks of the database on one GPU) and [`crate::kernel::launch`] (what a
//! kernel's adapter needs to launch it on a chunk).
//!
//! Every `unsafe` use of `cudarc` is in [`resident`], [`crate::kernel::launch`] or a
//! kernel's adapter (`crate::kernel`), which checks the buffer sizes that
//! the kernel's `# Safety` section asks for.

pub mod budget;
pub mod device;
pub mod resident;
pub mod timeline;

pub(crate) use crate::error::gpu_error;
pub use budget::{Budget, MemoryCap};
pub(crate) use device::kernels_module;
pub use device::{
    DeviceInfo, KernelsSource, PTX, PTX_SM90, SASS_VARIABLE, best_cubin, device, devices,
    kernels_loaded_from, ptx_for, sass_architectures, sass_for, sass_on, selected_devices, warm_up,
};
pub use resident::{
    AS_FREED_FROM_RESIDUES, DEFAULT_GPU_STREAMS, DISPATCH_VARIABLE, Dispatch, EngineStream,
    EntryPointUse, GpuEngine, GpuEngineBuilder, KernelResources, plan_for,
};
