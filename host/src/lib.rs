//! warpsw's host library: the search pipeline as stages.
//!
//! read ([`fasta`]) → encode ([`alphabet`]) → score ([`matrix`], [`scoring`],
//! [`profile`]) → sort/pack ([`db`], [`dbfile`]) → upload and dispatch
//! ([`engine`], [`dispatch`]) → merge ([`merge`]) → report ([`output`]).
//! [`kernel`] is the catalogue of search kernels (one adapter a family) and
//! `auto`'s plan.
//! [`reference`](mod@reference) is the scalar oracle every engine is tested against;
//! [`traceback`] computes whole alignments (seed 003's kernels), written by
//! [`alignment_output`].
#![feature(portable_simd)]
#![deny(missing_docs)]

pub mod alignment_output;
pub mod alphabet;
pub mod checkpointed;
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
pub mod scoring;
pub mod traceback;

pub use error::{Error, Result};
