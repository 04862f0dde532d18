//! `synth --out DIR [--tables N] [--rows M] [--format xlsx|xlsx-one-workbook|csv]`: write a synthetic master
//! project (see the library docs) for benchmarks and comparisons.

use std::path::PathBuf;
use std::process::ExitCode;

use masterctl_benches::{DataFormat, Shape, generate};

const USAGE: &str =
    "usage: synth --out DIR [--tables N] [--rows M] [--format xlsx|xlsx-one-workbook|csv]";

fn main() -> ExitCode {
    let mut out = None;
    let mut shape = Shape {
        tables: 500,
        rows: 1000,
        format: DataFormat::Xlsx,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        let parsed = match (arg.as_str(), value.as_deref()) {
            ("--out", Some(v)) => {
                out = Some(PathBuf::from(v));
                true
            }
            ("--tables", Some(v)) => v.parse().map(|n| shape.tables = n).is_ok(),
            ("--rows", Some(v)) => v.parse().map(|n| shape.rows = n).is_ok(),
            ("--format", Some("xlsx")) => {
                shape.format = DataFormat::Xlsx;
                true
            }
            ("--format", Some("xlsx-one-workbook")) => {
                shape.format = DataFormat::XlsxSingleWorkbook;
                true
            }
            ("--format", Some("csv")) => {
                shape.format = DataFormat::Csv;
                true
            }
            _ => false,
        };
        if !parsed {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    let Some(out) = out else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if shape.tables == 0 || shape.rows == 0 {
        eprintln!("--tables and --rows must be at least 1");
        return ExitCode::from(2);
    }
    match generate(&out, &shape) {
        Ok(()) => {
            println!(
                "wrote {} tables × {} rows ({:?}) under {}",
                shape.tables,
                shape.rows,
                shape.format,
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("synth: {e}");
            ExitCode::from(2)
        }
    }
}
