//! Reading and validating synthetic master data, in process (criterion).
//!
//! `cargo bench -p masterctl-benches --bench validate`. The comparison with the tools
//! planners would otherwise use, end to end, is `benches/compare.sh`.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use masterctl_benches::{DataFormat, Shape, generate};
use masterctl_schemas::load::load_project;
use masterctl_schemas::validate_paths;

fn prepared(name: &str, shape: Shape) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("masterctl-bench-{name}"));
    if !dir.join("masterctl.toml").is_file() {
        generate(&dir, &shape).expect("synthetic data is written");
    }
    dir
}

fn bench_shape(c: &mut Criterion, name: &str, shape: Shape) {
    let dir = prepared(name, shape);
    let project = load_project(&dir).expect("synthetic schemas load");
    let data = vec![Path::new(&dir).join("data")];
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.throughput(Throughput::Elements((shape.tables * shape.rows) as u64));
    group.bench_function(name, |b| {
        b.iter(|| {
            let validation = validate_paths(&project, &data);
            assert!(!validation.report.has_errors());
            validation.tables.len()
        })
    });
    group.finish();
}

fn validate(c: &mut Criterion) {
    bench_shape(
        c,
        "xlsx_100x1000",
        Shape {
            tables: 100,
            rows: 1000,
            format: DataFormat::Xlsx,
        },
    );
    bench_shape(
        c,
        "csv_2x100000",
        Shape {
            tables: 2,
            rows: 100_000,
            format: DataFormat::Csv,
        },
    );
}

criterion_group!(benches, validate);
criterion_main!(benches);
