//! A game server that swaps to each new release of its masters while it serves: lookups
//! in flight keep the release they started with; the old release's folder is removed
//! when the last of them is done. Publish a build, run this, publish another:
//!
//! ```sh
//! masterctl publish build --to file:///tmp/store
//! cargo run -p masterctl-delivery --example hot_reload -- file:///tmp/store jp /tmp/server
//! ```

// An example program: it unwraps and prints (the workspace lints are for the libraries).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::sync::{Arc, RwLock};
use std::time::Duration;

use masterctl_delivery::watch::{Loaded, Watch};
use masterctl_delivery::{Remote, RemoteOptions};
use masterctl_runtime::ValueRef;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(region), Some(dir)) = (args.next(), args.next(), args.next()) else {
        return Err("usage: hot_reload URL REGION DIR".into());
    };
    let runtime = masterctl_delivery::runtime()?;
    let remote = Remote::open(&url, &RemoteOptions::default())?;
    let mut watch = Watch::new(remote, &region, dir);
    let first = runtime
        .block_on(watch.poll())?
        .ok_or("the region has no release yet")?;
    println!("serving release {}", first.release);
    let current: Arc<RwLock<Arc<Loaded>>> = Arc::new(RwLock::new(Arc::new(first)));

    // Request handlers: each takes the current release for the whole request.
    let server = {
        let current = Arc::clone(&current);
        std::thread::spawn(move || {
            loop {
                let release = Arc::clone(&current.read().expect("not poisoned"));
                if let Some(item) = release.masters.table("item")
                    && let Some(row) = item.get(&[ValueRef::Int(1)])
                {
                    let _price = row.int("price");
                }
                drop(release);
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };

    // The watcher: a cheap conditional read of the pointer every few seconds.
    loop {
        std::thread::sleep(Duration::from_secs(5));
        match runtime.block_on(watch.poll()) {
            Ok(Some(next)) => {
                println!("serving release {}", next.release);
                *current.write().expect("not poisoned") = Arc::new(next);
            }
            Ok(None) => {}
            Err(e) => eprintln!("hot_reload: {e} (still serving the current release)"),
        }
        if server.is_finished() {
            return Ok(());
        }
    }
}
