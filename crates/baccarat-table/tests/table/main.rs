//! The engine's integration tests, one binary: a module per area, the
//! helpers in `common`, the rule-by-rule suite in `conformance`.
//! proptest keeps failing seeds in `../proptest-regressions/<file>.txt`.

mod common;
mod conformance;
mod draw;
mod engine;
mod engine_live;
mod engine_liveness;
mod engine_props;
mod engine_styles;
mod roads;
mod shuffle_golden;
mod tournament;
