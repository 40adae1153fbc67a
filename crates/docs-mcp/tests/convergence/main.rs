//! Differential convergence test (issue 29): our peer — a document written only through the
//! service's paths (plan on a fork, merge, comment marks; `agent`) — and browser stand-ins
//! running BlockNote over Yjs 13 (`browsers`, `tests/docs-server/src/browser.mjs`) make random
//! edits of every kind each makes, exchange updates in random orders with drops, duplicates and
//! reconnections (`scenario`), then must hold the same document: same state vector, the same
//! tree in yrs and in every Yjs, the same BlockNote blocks from every peer and from our reader,
//! and a browser opening it must keep it as it is. BlockNote must also keep every write of ours
//! as we wrote it, right after it.
//!
//! A plain `cargo test` runs the upstream reports' shapes (`upstream`) and the fixed seeds.
//! `CONVERGENCE_SOAK=<scenarios>` (and `CONVERGENCE_FROM=<first seed>`) runs a soak instead
//! (`scripts/soak-convergence.sh`) and prints its figures. A divergence is minimized (fewer
//! browsers, fewer steps) and printed with its seed, to be kept below as a regression case.

mod agent;
mod browsers;
mod scenario;
mod tree;
mod upstream;
mod yjs14;

use std::time::Instant;

use browsers::Browsers;
use scenario::{Config, Divergence, Tally, Topology};

/// Seeds of the Yjs 14 check run by every `cargo test`.
const YJS14_SEEDS: &[u64] = &[1, 2, 3];
/// Seeds run by every `cargo test`: ones that do not meet yrs' panic (most do, see `upstream`).
const SEEDS: &[u64] = &[5, 21, 27, 28];
/// Seeds run by every `cargo test` with a browser on Yjs 14 (suggestions included) beside the
/// Yjs 13 ones, all connected to the room only (`Topology::Star`), as in Docs.
const SEEDS_WITH_YJS14: &[u64] = &[30000, 30001];
const STEPS: usize = 300;
const BROWSERS: usize = 3;
/// Browsers on Yjs 14 in a soak's scenarios unless `CONVERGENCE_YJS14` says otherwise.
const SOAK_Y14: usize = 1;

/// Divergences found by soaks, fixed since: each must converge. The fixes changed what the
/// scenarios do (a browser names a block, the agent's edit is refused), so the first two are
/// nearby runs: 1048's failed on header columns before the fix; 1050's own run now meets
/// yrs' panic, this one has browsers name blocks twice (without naming it meets the panic).
const REGRESSIONS: &[(&str, Config)] = &[
    // Header columns (seed 1031): a table whose first column is of tableHeader cells.
    ("headerCols", case(1048, 200, 2)),
    // A block without an id (seed 1050): a browser names the block it fills an emptied
    // document with, as BlockNote's UniqueID does.
    ("unnamed block", case(1050, 250, 2)),
    // A held edit merged over a change of its block's type (seed 1038): refused, as the
    // service refuses it, not merged into a block of two contents.
    ("held edit refused", case(1038, 55, 3)),
    // Two child groups in one block (seed 3273): an edit planned before a browser nested a
    // block under its target, merged after, gave the block a second group, and BlockNote's
    // browsers deleted the block. The block is re-created with one (`blocknote::groups`).
    ("two child groups", case(3273, 80, 3)),
    // Two root groups (seed 10197): two writers each made the root group of an emptied
    // document; a browser's next write dropped the second with its blocks. They are moved
    // into the first.
    ("two root groups", case(10197, 300, 3)),
];

const fn case(seed: u64, steps: usize, browsers: usize) -> Config {
    Config {
        seed,
        steps,
        browsers,
        y14: 0,
        topology: Topology::Mesh,
    }
}

fn main() {
    quiet_guarded_panics();
    let mut browsers = Browsers::start();
    let started = Instant::now();
    for case in upstream::CASES {
        if let Some(difference) = upstream::difference(&mut browsers, case) {
            panic!("{case}: yrs and Yjs differ: {difference}");
        }
        println!("upstream shape {case}: yrs ends as Yjs");
    }
    for seed in YJS14_SEEDS {
        if let Some(difference) = yjs14::difference(&mut browsers, *seed) {
            panic!("Yjs 14, seed {seed}: {difference}");
        }
    }
    println!(
        "Yjs 14 (@y/y 14.0.0-rc.7): our writes and its reach the same state, seeds {YJS14_SEEDS:?}"
    );
    if let Some(difference) = yjs14::out_of_order_difference(&mut browsers) {
        panic!("Yjs 14's suggestions accepted out of order: {difference}");
    }
    println!(
        "Yjs 14 accepts a later suggestion first: Yjs 14 and yrs alone show it, Yjs 13 and our session hold it aside"
    );
    // FIXME(yrs 0.28.1): alone, it panics (in debug; in release the clock arithmetic wraps)
    // on the reduced case this test found; the session keeps what it would panic on out of
    // it. When this fails, yrs was fixed: make the scenarios stop counting the panic
    // (`scenario::YRS_PANIC`) and drop this.
    let panics = upstream::pending_gc_panics();
    assert!(
        panics.alone,
        "yrs no longer panics on fixtures/yrs-pending-gc-panic.json"
    );
    assert!(
        !panics.session,
        "the session meets yrs' panic on fixtures/yrs-pending-gc-panic.json"
    );
    println!(
        "found here: yrs alone still panics on fixtures/yrs-pending-gc-panic.json (FIXME); the session does not"
    );
    match std::env::var("CONVERGENCE_SOAK") {
        Ok(count) => soak(
            &mut browsers,
            count.parse().expect("CONVERGENCE_SOAK: a count"),
        ),
        Err(_) => fixed(&mut browsers),
    }
    println!("convergence: {:.1} s", started.elapsed().as_secs_f64());
}

/// yrs' panics are caught and counted (see `upstream`, `scenario::YRS_PANIC`): each says one
/// line, not a backtrace that buries what failed. Any other panic is told as usual.
fn quiet_guarded_panics() {
    let told = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_yrs = info
            .location()
            .is_some_and(|at| at.file().contains("/yrs-"));
        if in_yrs {
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            eprintln!("(caught) yrs panicked at {at}");
        } else {
            told(info);
        }
    }));
}

fn fixed(browsers: &mut Browsers) {
    let configs = REGRESSIONS
        .iter()
        .map(|(_, c)| *c)
        .chain(SEEDS.iter().map(|&seed| Config {
            seed,
            steps: STEPS,
            browsers: BROWSERS,
            y14: 0,
            topology: Topology::Mesh,
        }))
        .chain(SEEDS_WITH_YJS14.iter().map(|&seed| Config {
            seed,
            steps: STEPS,
            browsers: BROWSERS,
            y14: 1,
            topology: Topology::Star,
        }));
    let mut total = Tally::new();
    for config in configs {
        match scenario::run(browsers, config) {
            Ok(tally) => add(&mut total, tally),
            Err(divergence) => {
                report(browsers, config, &divergence);
                panic!("scenario {config:?} diverged");
            }
        }
    }
    println!("fixed seeds converged; actions: {total:?}");
}

fn soak(browsers: &mut Browsers, count: u64) {
    let from: u64 = std::env::var("CONVERGENCE_FROM").map_or(1000, |s| s.parse().expect("a seed"));
    let y14: usize = std::env::var("CONVERGENCE_YJS14")
        .map_or(SOAK_Y14, |s| s.parse().expect("a count of Yjs 14 browsers"));
    let topology = match std::env::var("CONVERGENCE_TOPOLOGY").as_deref() {
        Ok("mesh") => Topology::Mesh,
        Ok("star") | Err(_) => Topology::Star,
        Ok(other) => panic!("CONVERGENCE_TOPOLOGY: star or mesh, not {other}"),
    };
    let mut total = Tally::new();
    let mut diverged = vec![];
    for seed in from..from + count {
        let config = Config {
            seed,
            steps: STEPS,
            browsers: BROWSERS,
            y14,
            topology,
        };
        // A panic of our own code is a finding of the soak, with its seed: told, not the end
        // of the soak (its scenario is run again by the fixed seeds' path to reduce it).
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            scenario::run(browsers, config)
        }));
        let Ok(run) = run else {
            println!("soak: seed {seed}: our code panicked (run it as a fixed seed)");
            diverged.push((seed, "our code panics"));
            continue;
        };
        match run {
            Ok(tally) => add(&mut total, tally),
            // Already reduced to a fixture: not minimized again.
            Err(divergence)
                if [scenario::YRS_PANIC, scenario::YJS14_THROWS].contains(&divergence.check) =>
            {
                let what: String = divergence.detail.chars().take(100).collect();
                println!("soak: seed {seed}: {}: {what}", divergence.check);
                diverged.push((seed, divergence.check));
            }
            Err(divergence) => {
                report(browsers, config, &divergence);
                diverged.push((seed, divergence.check));
            }
        }
    }
    println!(
        "soak: seeds {from}..{}, scenarios run: {count}, each with {BROWSERS} browsers on Yjs 13 \
         and {y14} on Yjs 14, {topology:?}",
        from + count
    );
    println!("soak: actions: {total:?}");
    println!("soak: divergences found: {}", diverged.len());
    for (seed, check) in &diverged {
        println!("soak:   seed {seed}: {check}");
    }
    if !diverged.is_empty() {
        std::process::exit(1);
    }
}

fn add(total: &mut Tally, tally: Tally) {
    for (kind, n) in tally {
        *total.entry(kind).or_default() += n;
    }
}

/// Prints a divergence minimized: the fewest browsers, then the fewest steps, that still fail
/// the same check.
fn report(browsers: &mut Browsers, config: Config, divergence: &Divergence) {
    let fails = |browsers: &mut Browsers, c: Config| {
        scenario::run(browsers, c)
            .err()
            .filter(|d| d.check == divergence.check)
    };
    let mut best = (config, divergence.clone());
    for n in 1..config.browsers {
        if let Some(d) = fails(
            browsers,
            Config {
                browsers: n,
                ..config
            },
        ) {
            best = (
                Config {
                    browsers: n,
                    ..config
                },
                d,
            );
            break;
        }
    }
    let (mut passes, mut failing) = (0, best.0.steps);
    while passes + 1 < failing {
        let mid = (passes + failing) / 2;
        match fails(
            browsers,
            Config {
                steps: mid,
                ..best.0
            },
        ) {
            Some(d) => {
                failing = mid;
                best = (
                    Config {
                        steps: mid,
                        ..best.0
                    },
                    d,
                );
            }
            None => passes = mid,
        }
    }
    eprintln!(
        "DIVERGENCE {config:?}, minimized to {:?}:\n{}",
        best.0, best.1
    );
}
