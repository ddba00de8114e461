//! warpsw's host library: the search pipeline as stages.
//!
//! read ([`fasta`]) → encode ([`alphabet`]) → score ([`matrix`], [`scoring`],
//! [`profile`]) → sort/pack ([`db`], [`dbfile`]) → upload and dispatch
//! ([`engine`], [`dispatch`]) → statistics ([`stats`]) and ranking
//! ([`merge`]) → realign the hits ([`align`](mod@align)) → report ([`output`]).
//! [`search`](mod@search) is the whole pipeline as one call, its hits
//! handed to a sink. [`kernel`] is the catalogue of search kernels (one adapter a family) and
//! `auto`'s plan.
//! [`reference`](mod@reference) is the scalar oracle every engine is tested against;
//! [`align`](mod@align) computes whole alignments with traceback (gpu-pairAlign's
//! kernels, Blazewicz 2011) on the GPUs or the CPU and writes them;
//! [`schedule`] is the longest-first scheduler that alignment and search's
//! dispatch share.
#![feature(portable_simd)]
#![deny(missing_docs)]

pub mod align;
pub mod alphabet;
pub mod db;
pub mod dbfile;
pub mod dispatch;
pub mod engine;
pub mod error;
pub mod fasta;
pub mod kernel;
pub mod matrix;
pub mod merge;
pub mod output;
pub mod profile;
pub mod reference;
pub mod schedule;
pub mod scoring;
pub mod search;
pub mod stats;
pub mod switch;

pub use error::{Error, Result};
