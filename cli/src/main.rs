//! The `masterctl` binary: parse arguments, run one command, map the outcome to an
//! exit code (0 success, 1 data rejected, 2 usage or environment error).
//!
//! Each command lives in its own module under `commands/` and calls the library
//! crates, which return data; this binary decides how to show it.

mod commands;
mod failure;
mod output;
mod project;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use commands::{Command, GiveBack};
use output::Output;

/// Reading a workbook allocates millions of small values; mimalloc makes validating
/// 500 workbooks or 200,000 CSV rows about a quarter faster than the system allocator
/// (BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc takes memory from the system in large aligned regions. Where the kernel backs
/// anonymous memory with transparent huge pages whenever it can (`always`, the default
/// of many distributions), each first touch of a region zeroes 2 MiB, most of which is
/// never used: up to half the samples of a large validation or export were the kernel
/// clearing pages (docs/benchmarks/l10n-quality.md, "The allocator's pages"). Huge
/// pages are turned off for this process, as `MIMALLOC_ALLOW_THP=0` would do; memory
/// mapped files are not affected.
///
/// It runs before `main`, from the executable's initialisers: the runtime allocates
/// before `main` is called, and that first allocation reserves mimalloc's first region,
/// which mimalloc asks the kernel to back with huge pages (`madvise`) — where the
/// kernel then compacts memory to find one, that first fault alone was milliseconds.
#[cfg(target_os = "linux")]
extern "C" fn no_transparent_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments and changes only how this
    // process's future page faults are served; a kernel without it returns an error,
    // which changes nothing. It touches no state of Rust's, which is not set up yet.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// [`no_transparent_huge_pages`], called by the loader before the runtime starts.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NO_TRANSPARENT_HUGE_PAGES: extern "C" fn() = no_transparent_huge_pages;

/// mimalloc (version 3) gives memory freed back to the system a second after it is freed
/// (`purge_delay`, 1000 ms): about all of a command's run. `build` and `export` type a
/// region's tables, make their archive or sheets of them and drop them before writing:
/// their peak held the dropped tables still (a 51,200 × 30 sheet: build 150–165 MB,
/// export 141 MB; with 10 ms, 135 and 130 MB, in the same time). Commands that free as
/// they go (`validate`, `import`) pay for giving memory back that soon — each page taken
/// again is cleared — (10 ms: validate 0.42 s against 0.37 s), and have a longer delay
/// once the command is known ([`keep_freed_memory`]: `import` 200 ms, the others the
/// default; docs/benchmarks/wide-sheet.md).
///
/// On Linux the delay is set before the runtime starts: a purge once scheduled keeps its
/// time, so memory the command line's parsing frees would otherwise fix the first purge
/// a second away. The delay set is 10 ms, mimalloc version 2's; `MIMALLOC_PURGE_DELAY`
/// still sets it (an option the environment sets is not changed).
#[cfg(target_os = "linux")]
extern "C" fn give_freed_memory_back_soon() {
    // SAFETY: sets one of mimalloc's options to a number it takes (milliseconds); it
    // touches no state of Rust's, and no thread but this one exists.
    unsafe { allocator::mi_option_set_default(allocator::PURGE_DELAY, SOON) };
}

/// [`give_freed_memory_back_soon`], called by the loader before the runtime starts
/// (elsewhere than Linux, mimalloc's own delay stays).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static GIVE_FREED_MEMORY_BACK_SOON: extern "C" fn() = give_freed_memory_back_soon;

/// The purge delay of [`give_freed_memory_back_soon`], in milliseconds.
#[cfg(target_os = "linux")]
const SOON: std::ffi::c_long = 10;
/// The purge delay of `import`, in milliseconds: its table's pieces freed while it
/// reads are given back before it writes the canonical files (a 51,200 × 30 sheet: 107–113
/// MB at the peak against 116–121 MB at 200 ms, in the same time; 50 ms was slower).
const SHORTLY: std::ffi::c_long = 100;
/// mimalloc's own purge delay (version 3), in milliseconds.
const LATER: std::ffi::c_long = 1000;

/// A longer purge delay than [`SOON`] (`SHORTLY`, or mimalloc's own), for a command that
/// frees as it goes.
fn keep_freed_memory(delay: std::ffi::c_long) {
    // SAFETY: as in `give_freed_memory_back_soon`; called before the command starts
    // any thread.
    unsafe { allocator::mi_option_set_default(allocator::PURGE_DELAY, delay) };
}

/// The parts of mimalloc's C interface used here (the crate's own bindings do not name
/// the option).
mod allocator {
    use std::ffi::{c_int, c_long};

    /// `mi_option_purge_delay` in mimalloc.h (version 3): its place in `mi_option_e`.
    pub const PURGE_DELAY: c_int = 15;

    unsafe extern "C" {
        /// Set `option` unless the environment (`MIMALLOC_<NAME>`) set it.
        pub fn mi_option_set_default(option: c_int, value: c_long);
        /// The value of `option`.
        #[cfg(test)]
        pub fn mi_option_get(option: c_int) -> c_long;
    }

    #[cfg(all(test, target_os = "linux"))]
    mod tests {
        use super::*;

        /// The option set is the purge delay — the options mimalloc.h places three and
        /// four after it, `os_tag` and `max_errors`, have their defaults there (100 and
        /// 32) — set before `main` (the test harness's too), and set back.
        #[test]
        fn the_option_set_is_the_purge_delay() {
            // SAFETY: reads an option.
            let read = |option| unsafe { mi_option_get(option) };
            assert_eq!((read(PURGE_DELAY + 3), read(PURGE_DELAY + 4)), (100, 32));
            if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
                return;
            }
            let read = || read(PURGE_DELAY);
            assert_eq!(read(), crate::SOON);
            crate::keep_freed_memory(crate::SHORTLY);
            assert_eq!(read(), crate::SHORTLY);
            crate::keep_freed_memory(crate::LATER);
            assert_eq!(read(), crate::LATER);
            crate::give_freed_memory_back_soon();
            assert_eq!(read(), crate::SOON);
        }
    }
}

/// libgit2 reads every certificate authority of the system's bundle as it starts (its
/// OpenSSL context's default paths): ~30 ms, most of a short command's time. A command
/// that reaches no git remote never checks a certificate through it, so it starts
/// libgit2 with no bundle — `SSL_CERT_FILE` pointing at an empty file for that moment —
/// and the variable is given back at once (a store's client, which reads the
/// certificates for itself, reads it after). Commands that may reach a git remote start
/// it as before.
fn start_git_without_certificates() {
    let kept = std::env::var_os("SSL_CERT_FILE");
    // SAFETY: main's first steps: no other thread exists yet to read the environment
    // (no command has run; the allocator starts none).
    unsafe { std::env::set_var("SSL_CERT_FILE", "/dev/null") };
    masterctl_store::git::repo::start_libgit2();
    // SAFETY: as above.
    unsafe {
        match kept {
            Some(value) => std::env::set_var("SSL_CERT_FILE", value),
            None => std::env::remove_var("SSL_CERT_FILE"),
        }
    }
}

/// Game master data from spreadsheets to live servers: validated, versioned per region,
/// built for zero-copy loading.
#[derive(Parser)]
#[command(name = "masterctl", version, about, long_about = None)]
struct Cli {
    /// The master repository, for the commands that read one (default: the current
    /// folder or the nearest parent holding masterctl.toml)
    #[arg(long, value_name = "DIR")]
    repo: Option<std::path::PathBuf>,
    #[command(flatten)]
    global: output::GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(2),
            };
        }
    };
    let mut global = cli.global;
    let output = Output::new(&global);
    // `--repo` before the command's name or after it; only for commands that read one.
    match (cli.repo, cli.command.repo()) {
        (Some(_), None) => {
            let failure = failure::Failure::usage(format!(
                "`masterctl {}` reads no master repository: --repo is not for it",
                cli.command.name()
            ));
            output.failure(&failure);
            return ExitCode::from(failure.exit_code());
        }
        (before, Some(after)) => global.repo = after.repo.clone().or(before),
        (None, None) => {}
    }
    match cli.command.gives_memory_back() {
        GiveBack::Soon => {}
        GiveBack::Shortly => keep_freed_memory(SHORTLY),
        GiveBack::Later => keep_freed_memory(LATER),
    }
    if cli.command.opens_git() && !cli.command.reaches_a_git_remote() {
        start_git_without_certificates();
    }
    match commands::run(cli.command, &global, &output, Cli::command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            output.failure(&failure);
            ExitCode::from(failure.exit_code())
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The initialiser ran before the test harness's `main`, as it does before the
    /// command line's: huge pages are off from the first allocation on.
    #[test]
    fn huge_pages_are_off_before_main() {
        // SAFETY: PR_GET_THP_DISABLE only reads the process's flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1, "transparent huge pages are still on");
    }
}
