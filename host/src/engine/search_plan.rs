//! Where and how a search runs, decided once: [`SearchPlan::decide`] resolves
//! `--device auto`, picks the GPUs and whether the database stays resident
//! on them ([`Layout`]), and resolves `--kernel` into each device's
//! [`Plan`]; [`super::open`] executes the decision and
//! [`super::explain`] prints it. Which configuration each chunk then runs
//! is the kernel's cost model ([`Plan::kernel_for`] and the adapters'),
//! called by the launches and by `explain` alike.

use super::gpu::{self, Budget, DeviceInfo};
use super::{Placement, SearchOptions};
use crate::db::Database;
use crate::error::{Error, Result};
use crate::kernel::{Plan, Target};
use crate::scoring::Scoring;

/// A search's placement and plans, before anything is opened.
#[derive(Clone, Debug)]
pub enum SearchPlan {
    /// On the host's cores.
    Cpu {
        /// The kernel plan (`auto` is `simt` there).
        plan: Plan,
        /// Why `--device auto` came to the CPU, when it did.
        fell_back: Option<String>,
    },
    /// On GPUs.
    Gpus(GpuPlan),
}

/// Where and how a search runs on GPUs.
#[derive(Clone, Debug)]
pub struct GpuPlan {
    /// The GPUs.
    pub devices: Vec<DeviceInfo>,
    /// The smallest GPU's free memory, within `--gpu-memory`.
    pub budget: Budget,
    /// How they hold the database.
    pub layout: Layout,
    /// Each GPU's plan for one query at a time.
    pub plans: Vec<Plan>,
    /// The one GPU's plan when it may score the queries in batches
    /// ([`Layout::OneResident`], [`SearchOptions::batches`], and batches of
    /// more than two queries by `auto_batch_queries` or asked for); it
    /// falls back to `plans[0]` when its memory holds no batch.
    pub batched: Option<Plan>,
}

impl SearchPlan {
    /// Decides where and how `db` is searched at `placement` with
    /// `scoring` and `options`.
    ///
    /// # Errors
    /// `--device gpu` without a usable GPU, a GPU number that does not
    /// exist, or a driver error reading the devices or their memory.
    pub fn decide(
        placement: Placement,
        db: &Database,
        scoring: &Scoring,
        options: &SearchOptions,
    ) -> Result<SearchPlan> {
        let gaps = scoring.gaps.kernel_gaps();
        let wanted = match resolve(placement)? {
            Where::Cpu(fell_back) => {
                return Ok(SearchPlan::Cpu {
                    plan: Plan::new(options.kernel, Target::Cpu, db, gaps),
                    fell_back,
                });
            }
            Where::Gpus(wanted) => wanted,
        };
        let devices = gpu::selected_devices(wanted.as_deref())?;
        if devices.is_empty() {
            return Err(Error::NoDevice);
        }
        let plan_for = |device: &DeviceInfo, batches: bool| {
            let target = Target::Gpu {
                capability: device.compute_capability,
            };
            Plan::for_search(options.kernel, target, db, gaps, batches)
        };
        let plans: Vec<Plan> = devices.iter().map(|d| plan_for(d, false)).collect();
        let ordinals: Vec<usize> = devices.iter().map(|d| d.ordinal).collect();
        // The smallest GPU decides whether the database stays resident.
        let budget = options.memory.smallest_free(&ordinals)?;
        let layout = Layout::of(ordinals.len(), budget.holds(db), options.split);
        // Batches as the engine sizes them (its memory aside): what was
        // asked for, else none where one query fills the GPU
        // (`auto_batch_queries`); 2 or fewer queries a batch are none.
        let fill = options.query_batch.unwrap_or_else(|| {
            let sms = devices[0].multiprocessors;
            gpu::resident::batch::auto_batch_queries(sms, db.len(), usize::MAX)
        }) > 2;
        let batches = options.batches(scoring) && fill;
        let batched =
            (layout == Layout::OneResident && batches).then(|| plan_for(&devices[0], true));
        Ok(SearchPlan::Gpus(GpuPlan {
            devices,
            budget,
            layout,
            plans,
            batched,
        }))
    }
}

/// Where a search runs once `Placement::Auto` is resolved.
pub enum Where {
    /// The CPU, with what to say when `auto` fell back to it.
    Cpu(Option<String>),
    /// These GPUs (`None`: all).
    Gpus(Option<Vec<usize>>),
}

/// `placement` resolved: `Auto` runs on the GPUs when a driver reports
/// one, else on the CPU (and says why); an error other than a missing
/// driver or GPU is an error.
pub fn resolve(placement: Placement) -> Result<Where> {
    match placement {
        Placement::Cpu => Ok(Where::Cpu(None)),
        Placement::Gpus(wanted) => Ok(Where::Gpus(wanted)),
        Placement::Auto(wanted) => match gpu::devices() {
            Ok(_) => Ok(Where::Gpus(wanted)),
            Err(why @ (Error::NoDriver(_) | Error::NoDevice)) => {
                Ok(Where::Cpu(Some(format!("{why}; using the CPU"))))
            }
            Err(other) => Err(other),
        },
    }
}

/// How the GPUs of a search hold its database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One GPU, the whole database resident: the only one that pairs and
    /// batches queries.
    OneResident,
    /// One GPU streaming the database in parts.
    OneStreamed,
    /// Several GPUs, each holding the database, sharing its chunks.
    SeveralResident,
    /// Several GPUs streaming it.
    SeveralStreamed,
    /// Several GPUs, one part of the database each, each running the
    /// one-GPU engine on its part (resident or streamed by its own memory).
    Split,
}

impl Layout {
    /// The layout of `gpus` GPUs whose smallest memory `holds` the
    /// database or not, `split` between them or not.
    pub fn of(gpus: usize, holds: bool, split: bool) -> Layout {
        match (gpus, holds) {
            (1, true) => Layout::OneResident,
            (1, false) => Layout::OneStreamed,
            _ if split => Layout::Split,
            (_, true) => Layout::SeveralResident,
            (_, false) => Layout::SeveralStreamed,
        }
    }

    /// In words, for `--explain`.
    pub fn describe(self, gpus: usize, options: &SearchOptions) -> String {
        match self {
            Layout::OneResident => "one GPU, the database resident".into(),
            Layout::OneStreamed => {
                "one GPU, the database streamed in parts (it needs more than half of the \
                 free memory)"
                    .into()
            }
            Layout::SeveralResident => format!(
                "{gpus} GPUs, each holding the database, sharing its chunks (--balance {})",
                options.policy
            ),
            Layout::SeveralStreamed => format!(
                "{gpus} GPUs streaming the database in parts (--balance {})",
                options.policy
            ),
            Layout::Split => format!(
                "{gpus} GPUs, the database split by residues, one part each, each GPU \
                 running the one-GPU engine on its part"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;

    #[test]
    fn the_cpu_and_auto_without_a_gpu_are_decided_before_anything_opens() {
        let db = Database::from_records(vec![crate::db::tests::record("a", &[1, 2, 3])]);
        let (scoring, options) = (Scoring::default(), SearchOptions::default());
        match SearchPlan::decide(Placement::Cpu, &db, &scoring, &options).unwrap() {
            SearchPlan::Cpu { plan, fell_back } => {
                assert_eq!(plan.kernels(), [Kernel::Simt]);
                assert!(fell_back.is_none());
            }
            other => panic!("--device cpu decided {other:?}"),
        }
        // `auto` goes where the driver says: the CPU, saying why, without
        // one; the GPUs, one plan each, with one.
        let auto = SearchPlan::decide(Placement::Auto(None), &db, &scoring, &options).unwrap();
        match (gpu::devices(), auto) {
            (Err(_), SearchPlan::Cpu { fell_back, .. }) => {
                assert!(fell_back.unwrap().ends_with("using the CPU"));
            }
            (Ok(found), SearchPlan::Gpus(gpus)) => {
                assert_eq!(gpus.devices.len(), found.len());
                assert_eq!(gpus.plans.len(), found.len());
            }
            (found, decided) => panic!("devices {:?}, decided {decided:?}", found.map(|d| d.len())),
        }
    }
}
