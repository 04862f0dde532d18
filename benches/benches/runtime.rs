//! The runtime loader on a build made by `benches/runtime.sh` (which sets
//! `MASTERCTL_BUILD` and `MASTERCTL_CANONICAL`): opening it three ways against the floors
//! (read() into memory; mmap and touch every page) and against what a server would do
//! without masterctl (decode the same tables from JSON with serde_json, or from the
//! canonical CSVs, into HashMaps); then lookups by primary key against std's HashMap,
//! a secondary index range, a weighted draw.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use masterctl_runtime::{Masters, ValueRef};

fn dirs() -> Option<(PathBuf, PathBuf)> {
    let build = std::env::var_os("MASTERCTL_BUILD")?;
    let canonical = std::env::var_os("MASTERCTL_CANONICAL")?;
    Some((build.into(), canonical.into()))
}

fn build_files(build: &Path) -> Vec<PathBuf> {
    let masters = Masters::open(build).expect("the build opens");
    masters
        .manifest()
        .files
        .iter()
        .map(|f| build.join(&f.path))
        .collect()
}

/// Every canonical CSV under `dir` (tables/ and locales/).
fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "csv") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The canonical CSVs as JSON files (an array of row objects per file, numbers as
/// numbers), written once beside them.
fn json_files(csvs: &[PathBuf], out: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(out).unwrap();
    csvs.iter()
        .enumerate()
        .map(|(i, csv)| {
            let path = out.join(format!("{i}.json"));
            if !path.exists() {
                let mut reader = csv::Reader::from_path(csv).unwrap();
                let header: Vec<String> =
                    reader.headers().unwrap().iter().map(String::from).collect();
                let rows: Vec<serde_json::Map<String, serde_json::Value>> = reader
                    .records()
                    .map(|r| {
                        let r = r.unwrap();
                        header
                            .iter()
                            .zip(r.iter())
                            .map(|(h, v)| {
                                let value = v
                                    .parse::<i64>()
                                    .map(serde_json::Value::from)
                                    .or_else(|_| v.parse::<f64>().map(serde_json::Value::from))
                                    .unwrap_or_else(|_| serde_json::Value::from(v));
                                (h.clone(), value)
                            })
                            .collect()
                    })
                    .collect();
                std::fs::write(&path, serde_json::to_vec(&rows).unwrap()).unwrap();
            }
            path
        })
        .collect()
}

fn open(c: &mut Criterion) {
    let Some((build, canonical)) = dirs() else {
        eprintln!("runtime bench: run benches/runtime.sh (it prepares the build)");
        return;
    };
    let files = build_files(&build);
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let csvs = csv_files(&canonical);
    let jsons = json_files(&csvs, &canonical.join("../json"));
    let mut group = c.benchmark_group("open");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Bytes(bytes));
    group.bench_function("validated", |b| {
        b.iter(|| black_box(Masters::open(&build).unwrap()))
    });
    group.bench_function("hash_trusted", |b| {
        b.iter(|| black_box(Masters::open_trusted(&build).unwrap()))
    });
    group.bench_function("unchecked", |b| {
        // SAFETY: the build was just written by masterctl build and validated above.
        b.iter(|| black_box(unsafe { Masters::open_unchecked(&build) }.unwrap()))
    });
    group.bench_function("floor_read", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| std::fs::read(f).unwrap())
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("floor_mmap_touch", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            let maps: Vec<memmap2::Mmap> = files
                .iter()
                .map(|f| unsafe { memmap2::Mmap::map(&std::fs::File::open(f).unwrap()) }.unwrap())
                .collect();
            for map in &maps {
                for page in map.chunks(4096) {
                    sum += u64::from(page[0]);
                }
            }
            black_box((maps, sum))
        })
    });
    group.bench_function("floor_mmap_read_every_byte", |b| {
        b.iter(|| {
            let maps: Vec<memmap2::Mmap> = files
                .iter()
                .map(|f| unsafe { memmap2::Mmap::map(&std::fs::File::open(f).unwrap()) }.unwrap())
                .collect();
            let sum: u64 = maps
                .iter()
                .map(|map| {
                    map.chunks_exact(8)
                        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                        .fold(0u64, u64::wrapping_add)
                })
                .fold(0u64, u64::wrapping_add);
            black_box((maps, sum))
        })
    });
    group.bench_function("json_decode_to_hashmaps", |b| {
        b.iter(|| {
            jsons
                .iter()
                .map(|f| {
                    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
                        serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
                    rows.into_iter()
                        .enumerate()
                        .map(|(i, row)| {
                            (
                                row.values()
                                    .next()
                                    .and_then(|v| v.as_i64())
                                    .unwrap_or(i as i64),
                                row,
                            )
                        })
                        .collect::<HashMap<i64, _>>()
                })
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("csv_decode_to_hashmaps", |b| {
        b.iter(|| {
            csvs.iter()
                .map(|f| {
                    let mut reader = csv::Reader::from_path(f).unwrap();
                    reader
                        .records()
                        .enumerate()
                        .map(|(i, r)| {
                            let r = r.unwrap();
                            (
                                r.get(0)
                                    .and_then(|k| k.parse::<i64>().ok())
                                    .unwrap_or(i as i64),
                                r,
                            )
                        })
                        .collect::<HashMap<i64, _>>()
                })
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

/// Pseudo-random numbers, the same every run.
fn randoms(n: usize, below: u64) -> Vec<u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        })
        .collect()
}

fn lookups(c: &mut Criterion) {
    let Some((build, _)) = dirs() else { return };
    let masters = Masters::open(&build).unwrap();
    let big = masters.table("t0000").unwrap();
    let rows = big.len() as u64;
    let ids: Vec<i64> = randoms(4096, rows)
        .into_iter()
        .map(|i| i as i64 + 1)
        .collect();
    let map: HashMap<i64, usize> = big
        .rows()
        .map(|r| (r.int("id").unwrap(), r.index()))
        .collect();
    let mut group = c.benchmark_group("lookup");
    let mut next = 0usize;
    group.bench_function("primary_key_1m_rows", |b| {
        b.iter(|| {
            next = (next + 1) & 4095;
            black_box(big.get(&[ValueRef::Int(ids[next])]).map(|r| r.index()))
        })
    });
    group.bench_function("std_hashmap_1m_rows", |b| {
        b.iter(|| {
            next = (next + 1) & 4095;
            black_box(map.get(&ids[next]).copied())
        })
    });
    let by_price = big.index(&["price"]).unwrap();
    let prices = randoms(4096, 1_000_000);
    group.bench_function("index_range_price_1000_wide", |b| {
        b.iter(|| {
            next = (next + 1) & 4095;
            let low = prices[next] as i64;
            let rows = by_price.range(
                std::ops::Bound::Included(ValueRef::Int(low)),
                std::ops::Bound::Excluded(ValueRef::Int(low + 1000)),
            );
            black_box(rows.len())
        })
    });
    let draw = masters.weighted("draw").unwrap();
    let gachas = randoms(4096, 100);
    let random = randoms(4096, u64::MAX);
    group.bench_function("weighted_draw_100_slots", |b| {
        b.iter(|| {
            next = (next + 1) & 4095;
            black_box(
                draw.draw_u64(&[ValueRef::Int(gachas[next] as i64 + 1)], random[next])
                    .map(|r| r.index()),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, open, lookups);
criterion_main!(benches);
